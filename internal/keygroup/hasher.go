package keygroup

import (
	"math"
	"math/bits"
	"reflect"
	"unsafe"

	"github.com/weir-engine/weir/internal/codec"
)

// kind says how a Hasher hashes its keys: inline for the common key types,
// through the codec's func value for the others.
type kind uint8

const (
	kindFunc kind = iota
	kindString
	kindInt
	kindInt32
	kindInt64
	kindUint32
	kindUint64
)

// Hasher computes the hash of keys of type K that key groups are taken
// of. One built by KeyHasher hashes strings and the common integer kinds
// inline, as codec.KeyHasher does, so the record path makes no indirect
// call; other keys, and every key of a Hasher built by NewHasher, go
// through a hash function.
type Hasher[K comparable] struct {
	kind kind
	fn   func(K) uint32
}

// NewHasher returns the Hasher that hashes keys with fn.
func NewHasher[K comparable](fn func(K) uint32) Hasher[K] { return Hasher[K]{fn: fn} }

// KeyHasher returns the Hasher of codec.KeyHasher[K], or its error.
func KeyHasher[K comparable]() (Hasher[K], error) {
	fn, err := codec.KeyHasher[K]()
	if err != nil {
		return Hasher[K]{}, err
	}
	h := Hasher[K]{fn: fn}
	switch reflect.TypeFor[K]().Kind() {
	case reflect.String:
		h.kind = kindString
	case reflect.Int:
		h.kind = kindInt
	case reflect.Int32:
		h.kind = kindInt32
	case reflect.Int64:
		h.kind = kindInt64
	case reflect.Uint32:
		h.kind = kindUint32
	case reflect.Uint64:
		h.kind = kindUint64
	}
	return h, nil
}

// Func returns the hash as a function value.
func (h *Hasher[K]) Func() func(K) uint32 { return h.fn }

// Hash returns the hash of k.
func (h *Hasher[K]) Hash(k K) uint32 {
	p := unsafe.Pointer(&k)
	switch h.kind {
	case kindString:
		s := *(*string)(p)
		return codec.HashBytes(unsafe.Slice(unsafe.StringData(s), len(s)))
	case kindInt:
		return codec.Hash64(uint64(*(*int)(p)))
	case kindInt32:
		return codec.Hash64(uint64(*(*int32)(p)))
	case kindInt64:
		return codec.Hash64(uint64(*(*int64)(p)))
	case kindUint32:
		return codec.Hash64(uint64(*(*uint32)(p)))
	case kindUint64:
		return codec.Hash64(*(*uint64)(p))
	}
	return h.fn(k)
}

// Assigner maps key hashes to the key groups of one max parallelism, as Of
// does, with the modulo done by multiplications (Lemire's fastmod) instead
// of a division.
type Assigner struct {
	n uint64 // the max parallelism
	m uint64 // ceil(2^64 / n)
}

// NewAssigner returns the Assigner of maxParallelism, which must be at
// least 1 (see Validate).
func NewAssigner(maxParallelism int) Assigner {
	n := uint64(max(maxParallelism, 1))
	return Assigner{n: n, m: math.MaxUint64/n + 1}
}

// Of returns the key group of a key whose hash is h: Of(h, maxParallelism).
func (a Assigner) Of(h uint32) int {
	hi, _ := bits.Mul64(a.m*uint64(codec.Fmix32(h)), a.n)
	return int(hi)
}
