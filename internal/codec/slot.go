package codec

// PointerCodec is implemented by the codecs For compiles from a type's
// structure (structs, arrays, slices, maps, pointers): they encode from and
// decode into a value the caller holds. Their Codec methods must copy the
// value to the heap on every call; through a pointer to memory the caller
// reuses (see Slot) they do not allocate for it.
type PointerCodec[T any] interface {
	// AppendFrom appends the encoding of *v to buf.
	AppendFrom(buf []byte, v *T) []byte
	// DecodeInto decodes one value from the front of buf into *v, which
	// must hold T's zero value, and returns the bytes consumed. On error
	// *v is left zero.
	DecodeInto(buf []byte, v *T) (int, error)
}

// Slot is a Codec that goes through a heap slot of its own when the codec
// it wraps is a PointerCodec, so encoding and decoding a compiled type costs
// no allocation for the value itself. A Slot is not safe for concurrent use:
// each goroutine (a task, a state table) keeps its own.
type Slot[T any] struct {
	c  Codec[T]
	pc PointerCodec[T]
	v  *T
}

var _ Codec[int] = (*Slot[int])(nil)

// NewSlot returns a Slot over c.
func NewSlot[T any](c Codec[T]) *Slot[T] {
	s := &Slot[T]{c: c}
	if pc, ok := c.(PointerCodec[T]); ok {
		s.pc, s.v = pc, new(T)
	}
	return s
}

// Append implements Codec.
func (s *Slot[T]) Append(buf []byte, v T) []byte {
	if s.pc == nil {
		return s.c.Append(buf, v)
	}
	*s.v = v
	buf = s.pc.AppendFrom(buf, s.v)
	var zero T
	*s.v = zero // hold no reference to v's memory
	return buf
}

// DecodeInto decodes a value from buf into *dst, which must hold the zero
// value, and returns the bytes it read: in place with a PointerCodec,
// else by assignment.
func (s *Slot[T]) DecodeInto(buf []byte, dst *T) (int, error) {
	if s.pc != nil {
		return s.pc.DecodeInto(buf, dst)
	}
	v, n, err := s.c.Decode(buf)
	*dst = v
	return n, err
}

// Decode implements Codec.
func (s *Slot[T]) Decode(buf []byte) (T, int, error) {
	if s.pc == nil {
		return s.c.Decode(buf)
	}
	n, err := s.pc.DecodeInto(buf, s.v)
	v := *s.v
	var zero T
	*s.v = zero
	return v, n, err
}
