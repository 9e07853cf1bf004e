package codec

import (
	"encoding/binary"
	"math/bits"
)

// HashBytes returns the 32-bit MurmurHash3 (x86_32 variant) of b with seed 0.
// It is the hash KeyHasher applies to strings and encoded keys, so it decides
// key groups: it must give the same value in every process, on every
// machine and with every Go version, which is why it is written out here
// rather than taken from the runtime.
func HashBytes(b []byte) uint32 {
	const (
		c1 = 0xcc9e2d51
		c2 = 0x1b873593
	)
	h := uint32(0)
	n := len(b)
	for ; len(b) >= 4; b = b[4:] {
		k := binary.LittleEndian.Uint32(b)
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(b) {
	case 3:
		k ^= uint32(b[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(b[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(b[0])
		k *= c1
		k = bits.RotateLeft32(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(n)
	return Fmix32(h)
}

// Fmix32 is MurmurHash3's 32-bit finalizer; key groups apply it again on
// top of a key's hash, as Flink applies murmurHash to hashCode().
func Fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// hash64 mixes a 64-bit value with MurmurHash3's 64-bit finalizer (fmix64)
// and keeps the low 32 bits, which the final shift has mixed with the high
// ones.
func hash64(k uint64) uint32 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return uint32(k)
}

// Hash64 is the hash KeyHasher gives a 64-bit integer key (fmix64, low 32
// bits); internal/keygroup calls it to hash such keys without a func value.
func Hash64(k uint64) uint32 { return hash64(k) }
