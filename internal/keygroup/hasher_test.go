package keygroup

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
)

// checkHasher compares KeyHasher[K] and Assigner with codec.KeyHasher and
// Of on keys.
func checkHasher[K comparable](t *testing.T, keys []K) {
	t.Helper()
	fn, err := codec.KeyHasher[K]()
	if err != nil {
		t.Fatal(err)
	}
	h, err := KeyHasher[K]()
	if err != nil {
		t.Fatal(err)
	}
	for _, maxP := range []int{1, 3, 128, 1000, UpperBoundMaxParallelism} {
		a := NewAssigner(maxP)
		for _, k := range keys {
			if got, want := h.Hash(k), fn(k); got != want {
				t.Fatalf("%T %v: Hash = %d, codec.KeyHasher = %d", k, k, got, want)
			}
			if got, want := a.Of(h.Hash(k)), Of(fn(k), maxP); got != want {
				t.Fatalf("%T %v, max parallelism %d: Assigner.Of = %d, Of = %d", k, k, maxP, got, want)
			}
		}
	}
}

type namedInt int64

type pair struct {
	A int32
	B string
}

func TestHasherMatchesKeyHasher(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 1000
	ints := func(f func(uint64) uint64) []uint64 {
		out := []uint64{0, 1, math.MaxUint64, math.MaxInt64, 1 << 63}
		for range n {
			out = append(out, f(r.Uint64()))
		}
		return out
	}
	tests := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"string", func(t *testing.T) {
			keys := []string{"", "a", "abcd", "abcde", "héllo wörld"}
			for i := range n {
				keys = append(keys, string(rune('a'+i%26))+string(make([]byte, i%13)))
			}
			checkHasher(t, keys)
		}},
		{"int", func(t *testing.T) { checkHasher(t, mapSlice(ints(id), func(v uint64) int { return int(v) })) }},
		{"int32", func(t *testing.T) { checkHasher(t, mapSlice(ints(id), func(v uint64) int32 { return int32(v) })) }},
		{"int64", func(t *testing.T) { checkHasher(t, mapSlice(ints(id), func(v uint64) int64 { return int64(v) })) }},
		{"uint32", func(t *testing.T) { checkHasher(t, mapSlice(ints(id), func(v uint64) uint32 { return uint32(v) })) }},
		{"uint64", func(t *testing.T) { checkHasher(t, ints(id)) }},
		{"uint", func(t *testing.T) { checkHasher(t, mapSlice(ints(id), func(v uint64) uint { return uint(v) })) }},
		{"named int64", func(t *testing.T) { checkHasher(t, mapSlice(ints(id), func(v uint64) namedInt { return namedInt(v) })) }},
		{"small ints", func(t *testing.T) {
			checkHasher(t, mapSlice(ints(func(v uint64) uint64 { return v % 100 }), func(v uint64) int64 { return int64(v) - 50 }))
		}},
		{"struct", func(t *testing.T) {
			checkHasher(t, mapSlice(ints(id), func(v uint64) pair { return pair{int32(v), string(rune('a' + v%26))} }))
		}},
		{"bool", func(t *testing.T) { checkHasher(t, []bool{false, true}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.run)
	}
}

func id(v uint64) uint64 { return v }

func mapSlice[A, B any](in []A, f func(A) B) []B {
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// TestAssignerAllHashes checks the fastmod against % for hashes spread
// over the whole uint32 range, for every max parallelism up to 1024 and
// the upper bound.
func TestAssignerAllHashes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	hashes := []uint32{0, 1, 2, math.MaxUint32, math.MaxUint32 - 1, 1 << 31}
	for range 2000 {
		hashes = append(hashes, r.Uint32())
	}
	for maxP := 1; maxP <= 1024; maxP++ {
		checkAssigner(t, maxP, hashes)
	}
	checkAssigner(t, UpperBoundMaxParallelism, hashes)
	checkAssigner(t, UpperBoundMaxParallelism-1, hashes)
}

func checkAssigner(t *testing.T, maxP int, hashes []uint32) {
	t.Helper()
	a := NewAssigner(maxP)
	for _, h := range hashes {
		if got, want := a.Of(h), Of(h, maxP); got != want {
			t.Fatalf("max parallelism %d, hash %d: Assigner.Of = %d, Of = %d", maxP, h, got, want)
		}
	}
}

// TestNewHasherUsesFunc checks that a Hasher built from a hash function
// hashes with it, whatever the key type.
func TestNewHasherUsesFunc(t *testing.T) {
	h := NewHasher(func(k int64) uint32 { return uint32(k) * 3 })
	for _, k := range []int64{0, 1, 7, -1} {
		if got, want := h.Hash(k), uint32(k)*3; got != want {
			t.Errorf("Hash(%d) = %d, want %d", k, got, want)
		}
	}
}
