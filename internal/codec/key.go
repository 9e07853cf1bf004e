package codec

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"unsafe"
)

// ErrBadKey is wrapped by the errors of KeyHasher and CheckKey for types
// whose values cannot serve as keys; the message names the offending
// component and why.
var ErrBadKey = errors.New("codec: type cannot be a key")

// KeyHasher returns the hash that assigns keys of type K to key groups.
// Because key groups are part of checkpoints and are agreed on by every
// TaskManager, the hash is a fixed function of the key's value: the same in
// every process, on every machine and with every Go version. Equal keys
// (==) hash equally.
//
//   - string kinds: HashBytes of the string's bytes.
//   - integer kinds and bool: the value sign- or zero-extended to 64 bits
//     (bool as 0 or 1) and mixed with MurmurHash3's fmix64, low 32 bits.
//     So int32(-1) and int64(-1) hash alike.
//   - float kinds: the same mixing of the float64 bits, with -0 hashed as
//     +0 (they are ==) and every NaN alike.
//   - anything else (structs, arrays, complex numbers): HashBytes of the
//     value's encoding by its codec, -0 and NaN fields made canonical first.
//
// The first three ignore registered codecs: they depend on the value alone.
// Keys must compare by value: interfaces, pointers, channels, unsafe.Pointer,
// uintptr and structs or arrays containing them give an error wrapping
// ErrBadKey. (Among them is time.Time, which holds a *Location.)
func KeyHasher[K comparable]() (func(K) uint32, error) {
	t := reflect.TypeFor[K]()
	if err := CheckKey(t); err != nil {
		return nil, err
	}
	switch t.Kind() {
	case reflect.String:
		return func(k K) uint32 {
			s := *(*string)(unsafe.Pointer(&k))
			return HashBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
		}, nil
	case reflect.Bool:
		return func(k K) uint32 {
			if *(*bool)(unsafe.Pointer(&k)) {
				return hash64(1)
			}
			return hash64(0)
		}, nil
	case reflect.Int:
		return func(k K) uint32 { return hash64(uint64(*(*int)(unsafe.Pointer(&k)))) }, nil
	case reflect.Int8:
		return func(k K) uint32 { return hash64(uint64(*(*int8)(unsafe.Pointer(&k)))) }, nil
	case reflect.Int16:
		return func(k K) uint32 { return hash64(uint64(*(*int16)(unsafe.Pointer(&k)))) }, nil
	case reflect.Int32:
		return func(k K) uint32 { return hash64(uint64(*(*int32)(unsafe.Pointer(&k)))) }, nil
	case reflect.Int64:
		return func(k K) uint32 { return hash64(uint64(*(*int64)(unsafe.Pointer(&k)))) }, nil
	case reflect.Uint:
		return func(k K) uint32 { return hash64(uint64(*(*uint)(unsafe.Pointer(&k)))) }, nil
	case reflect.Uint8:
		return func(k K) uint32 { return hash64(uint64(*(*uint8)(unsafe.Pointer(&k)))) }, nil
	case reflect.Uint16:
		return func(k K) uint32 { return hash64(uint64(*(*uint16)(unsafe.Pointer(&k)))) }, nil
	case reflect.Uint32:
		return func(k K) uint32 { return hash64(uint64(*(*uint32)(unsafe.Pointer(&k)))) }, nil
	case reflect.Uint64:
		return func(k K) uint32 { return hash64(*(*uint64)(unsafe.Pointer(&k))) }, nil
	case reflect.Float32:
		return func(k K) uint32 {
			return hash64(math.Float64bits(canonical64(float64(*(*float32)(unsafe.Pointer(&k))))))
		}, nil
	case reflect.Float64:
		return func(k K) uint32 {
			return hash64(math.Float64bits(canonical64(*(*float64)(unsafe.Pointer(&k)))))
		}, nil
	}
	return encodedKeyHasher[K](t)
}

// floatField locates a float inside a composite key.
type floatField struct {
	off  uintptr
	is32 bool
}

// scratchPool holds the buffers composite keys are encoded into for hashing.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 0, 128); return &b }}

// encodedKeyHasher hashes the codec encoding of a composite key.
func encodedKeyHasher[K comparable](t reflect.Type) (func(K) uint32, error) {
	c, err := For[K]()
	if err != nil {
		return nil, fmt.Errorf("%w %v: %w", ErrBadKey, t, err)
	}
	floats := floatFields(t, 0, nil)
	canonical := func(p unsafe.Pointer) {
		for _, f := range floats {
			if f.is32 {
				fp := (*float32)(unsafe.Add(p, f.off))
				*fp = float32(canonical64(float64(*fp)))
			} else {
				fp := (*float64)(unsafe.Add(p, f.off))
				*fp = canonical64(*fp)
			}
		}
	}
	pc, ok := c.(PointerCodec[K])
	if !ok { // a registered codec: it takes the key by value
		return func(k K) uint32 {
			canonical(unsafe.Pointer(&k)) // k is this call's copy
			return hashScratch(func(b []byte) []byte { return c.Append(b, k) })
		}, nil
	}
	// slots holds the heap copies of keys the pointer codec encodes from:
	// encoding from the key's own stack copy would allocate it every call.
	slots := sync.Pool{New: func() any { return new(K) }}
	return func(k K) uint32 {
		kp := slots.Get().(*K)
		*kp = k
		canonical(unsafe.Pointer(kp))
		h := hashScratch(func(b []byte) []byte { return pc.AppendFrom(b, kp) })
		var zero K
		*kp = zero
		slots.Put(kp)
		return h
	}, nil
}

// hashScratch hashes what encode appends to a pooled scratch buffer.
func hashScratch(encode func([]byte) []byte) uint32 {
	bp := scratchPool.Get().(*[]byte)
	b := encode((*bp)[:0])
	h := HashBytes(b)
	if cap(b) <= 64<<10 { // do not pin the scratch of a huge key
		*bp = b
		scratchPool.Put(bp)
	}
	return h
}

// canonical64 maps -0 to +0 and every NaN to one NaN, so that keys that are
// == (or, for NaN, equally unequal) hash alike.
func canonical64(f float64) float64 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return math.NaN()
	}
	return f
}

// floatFields appends the offsets of the floats in a key of type t stored at
// off (complex numbers are two floats).
func floatFields(t reflect.Type, off uintptr, out []floatField) []floatField {
	switch t.Kind() {
	case reflect.Float32:
		return append(out, floatField{off, true})
	case reflect.Float64:
		return append(out, floatField{off, false})
	case reflect.Complex64:
		return append(out, floatField{off, true}, floatField{off + 4, true})
	case reflect.Complex128:
		return append(out, floatField{off, false}, floatField{off + 8, false})
	case reflect.Array:
		for i := range t.Len() {
			out = floatFields(t.Elem(), off+uintptr(i)*t.Elem().Size(), out)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.Name != "_" {
				out = floatFields(f.Type, off+f.Offset, out)
			}
		}
	}
	return out
}

// CheckKey reports whether values of t can be keys (see KeyHasher), without
// building a hasher; the graph builder calls it for every KeyBy. The error
// wraps ErrBadKey.
func CheckKey(t reflect.Type) error {
	if t == nil {
		return fmt.Errorf("%w <nil>: no type given", ErrBadKey)
	}
	if path, bad, reason := badKey(t, nil); bad != nil {
		if len(path) == 0 {
			return fmt.Errorf("%w %v: %s", ErrBadKey, t, reason)
		}
		return fmt.Errorf("%w %v: %s: %v: %s", ErrBadKey, t, describePath(t, path), bad, reason)
	}
	if !t.Comparable() {
		return fmt.Errorf("%w %v: values of the type are not comparable", ErrBadKey, t)
	}
	return nil
}

// badKey finds the first component of t that cannot be part of a key and
// returns its path, its type and the reason.
func badKey(t reflect.Type, path []string) ([]string, reflect.Type, string) {
	switch t.Kind() {
	case reflect.Interface:
		return path, t, "an interface value has no fixed encoding to hash"
	case reflect.Pointer, reflect.UnsafePointer:
		return path, t, "a pointer's identity is an address, not a value"
	case reflect.Chan:
		return path, t, "a channel's identity is an address, not a value"
	case reflect.Uintptr:
		return path, t, "a uintptr holds an address, not a value"
	case reflect.Func, reflect.Map, reflect.Slice:
		return path, t, "values of the type are not comparable"
	case reflect.Array:
		return badKey(t.Elem(), append(path, "[]"))
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name == "_" { // == ignores blank fields, and so does the codec
				continue
			}
			if p, bad, reason := badKey(f.Type, append(path, "."+f.Name)); bad != nil {
				return p, bad, reason
			}
		}
	}
	return nil, nil, ""
}
