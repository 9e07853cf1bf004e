// Package codec owns the binary encoding of records and keyed state: what a
// record becomes when it crosses a non-chained edge (network buffers), what a
// state value becomes in a checkpoint, and the hash that assigns a key to its
// key group. The encodings below are therefore part of the network and
// checkpoint formats: changing one breaks savepoint compatibility and mixed
// versions of a cluster, and so does changing KeyHasher, which the golden
// values in the tests pin.
//
// # Using it
//
// For[T] returns the Codec of T, built once per type and cached. The
// predeclared scalar types, string and []byte get specialized codecs;
// everything else is compiled from its reflect.Type into a plan: a flat table
// of instructions (kind, field offset) in which nested structs and short
// arrays are inlined, run by one loop with a switch per instruction. A struct
// of scalars and strings is therefore encoded and decoded with no reflect
// call and no function call per field; pointers, slices, maps and
// BinaryMarshaler types are one instruction that calls their own encoder
// (allocating slices and pointees, maps and marshaling methods still use
// reflect). Codecs are safe for concurrent use.
//
// Check answers whether a type has a codec without building one; the graph
// builder calls it at job-build time so that a record type with a channel in
// it fails there, with the path to the field, not when the first record is
// shipped. Register
// installs a user codec for a type, which takes precedence everywhere the type
// appears; it is also the only way to give an interface type a codec. Call it
// from init, before the codecs of types containing that type are built.
//
// Encoding appends to a caller's buffer and allocates nothing when the buffer
// has room (BinaryMarshaler types without AppendBinary, and the rare types
// whose marshaling methods are on the pointer receiver, are the exception).
// Decoding allocates only what the value needs: strings, slices, maps,
// pointees. A decoded value never aliases the input, which is a recycled
// network buffer. A BatchDecoder decodes many values (the records of one
// network buffer, a block of a cache file) with one allocation for all
// their strings and byte slices instead of one per field; see its
// documentation for the API and for what sharing that allocation costs. Decoding a truncated or malformed input returns an error
// wrapping ErrCorrupt and never panics; lengths are checked against the bytes
// left before anything is allocated, and nesting is bounded (10000 levels of
// pointers, slices and maps; Append cannot fail, so a deeper value encodes
// but does not decode).
//
// # Wire format
//
// There is no header, no type information and no field names: both sides
// must agree on the type, which in Weir they do because both run the same job
// binary. A value's encoding is the concatenation of its parts:
//
//	bool                   1 byte: 0 or 1 (anything else is corrupt)
//	int8, uint8            1 byte (int8 as two's complement)
//	int, int16/32/64       zig-zag varint (as encoding/binary.AppendVarint),
//	                       int always as 64 bits; decoding checks the range
//	uint, uint16/32/64     uvarint (LEB128, as encoding/binary.AppendUvarint)
//	float32, float64       IEEE 754 bits, 4 or 8 bytes little-endian
//	complex64, complex128  real part then imaginary part, as floats
//	string                 uvarint(len) then the bytes
//	[]T (incl. []byte)     0 for a nil slice, else uvarint(len+1) then the
//	                       elements; nil and empty slices stay distinct
//	[N]T                   the N elements, no length
//	map[K]V                0 for a nil map, else uvarint(len+1) then len
//	                       (key, value) pairs in Go's iteration order, so the
//	                       bytes of one map vary between encodings; decoding
//	                       rejects duplicate keys
//	*T                     0 for nil, else 1 then the pointee
//	struct                 the fields in declaration order, exported or not;
//	                       blank (_) fields are skipped and zero-size fields
//	                       (struct{}, [0]T) take no bytes
//	BinaryMarshaler        uvarint(len) then the bytes of AppendBinary or
//	                       MarshalBinary (e.g. time.Time)
//	registered type        whatever its Codec writes, unframed
//
// Varints were chosen over fixed-width integers because record fields are
// mostly small (counts, small ids, enum-like codes) and a varint of a value
// under 128 is one byte; a full 64-bit value costs 10 bytes instead of 8.
// Floats are fixed width because their bits are rarely small.
//
// A type implementing encoding.BinaryMarshaler (or AppendBinary) on T or *T,
// with *T implementing encoding.BinaryUnmarshaler, is encoded by those
// methods rather than by its fields. Methods promoted from an embedded field
// do not count: a struct embedding time.Time is encoded field by field (the
// time by its methods) rather than as the time alone, which is what
// encoding/gob and encoding/json would do.
//
// # What cannot be encoded
//
// Channels, functions, unsafe.Pointer, uintptr (all addresses, meaningless in
// another process), interfaces (unless registered), and any type containing
// one; For and Check return an error wrapping ErrNoCodec that names the field
// path. Recursive types work (a list node with a *Node field). Recursive
// values do not: a pointer cycle makes encoding recurse until the stack
// overflows, and pointers shared within a value decode as separate copies.
//
// # Key hashing
//
// KeyHasher returns the deterministic hash that places a key in a key group
// (see its documentation for the definition per kind); HashBytes is the
// MurmurHash3 it is built on. Go's own map hash and hash/maphash are seeded
// per process and must never be used for this. Keys must compare by value,
// so pointers, interfaces and channels, and types containing them, are
// refused with ErrBadKey.
package codec
