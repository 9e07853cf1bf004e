// Package keygroup owns the mapping from keys to key groups and from key
// groups to the subtasks of a keyed operator.
//
// A key is hashed (the caller supplies a deterministic 32-bit hash, see
// internal/codec.KeyHasher) and the hash is scrambled again with murmur3's
// finalizer before the modulo, so that weak hashes such as small integers
// still spread evenly. The number of key groups is the operator's max
// parallelism; it is fixed for the life of a job (state is snapshotted per
// key group), while the parallelism can change: each subtask owns one
// contiguous range of key groups, computed exactly as Flink's
// KeyGroupRangeAssignment does so that the same key lands on the same
// subtask index in Weir and in Flink for the same hash.
package keygroup

import (
	"fmt"

	"github.com/weir-engine/weir/internal/codec"
)

// Limits of the max parallelism, as in Flink.
const (
	// LowerBoundMaxParallelism is the smallest default max parallelism.
	LowerBoundMaxParallelism = 1 << 7
	// UpperBoundMaxParallelism is the largest allowed max parallelism.
	UpperBoundMaxParallelism = 1 << 15
)

// Range is an inclusive range of key groups [Start, End]. An empty range
// has End < Start.
type Range struct {
	Start, End int
}

// Contains reports whether key group kg is in r.
func (r Range) Contains(kg int) bool { return kg >= r.Start && kg <= r.End }

// Len is the number of key groups in r.
func (r Range) Len() int {
	if r.End < r.Start {
		return 0
	}
	return r.End - r.Start + 1
}

func (r Range) String() string { return fmt.Sprintf("[%d, %d]", r.Start, r.End) }

// Of returns the key group of a key whose hash is h: murmur3's finalizer
// is applied on top of the key's own hash, the way Flink applies
// MathUtils.murmurHash to hashCode().
func Of(h uint32, maxParallelism int) int {
	return int(codec.Fmix32(h) % uint32(maxParallelism))
}

// RangeFor returns the key groups owned by subtask index of an operator with
// the given parallelism.
func RangeFor(maxParallelism, parallelism, index int) Range {
	start := (index*maxParallelism + parallelism - 1) / parallelism
	end := ((index+1)*maxParallelism - 1) / parallelism
	return Range{Start: start, End: end}
}

// OperatorIndex returns the subtask index that owns key group kg.
func OperatorIndex(maxParallelism, parallelism, kg int) int {
	return kg * parallelism / maxParallelism
}

// DefaultMaxParallelism is the max parallelism used when the user sets none:
// 1.5 times the parallelism rounded up to a power of two, within
// [LowerBoundMaxParallelism, UpperBoundMaxParallelism].
func DefaultMaxParallelism(parallelism int) int {
	p := parallelism + parallelism/2
	n := 1
	for n < p {
		n <<= 1
	}
	return min(max(n, LowerBoundMaxParallelism), UpperBoundMaxParallelism)
}

// Validate checks that a parallelism fits a max parallelism.
func Validate(parallelism, maxParallelism int) error {
	switch {
	case parallelism < 1:
		return fmt.Errorf("keygroup: parallelism %d must be at least 1", parallelism)
	case maxParallelism < 1 || maxParallelism > UpperBoundMaxParallelism:
		return fmt.Errorf("keygroup: max parallelism %d must be in [1, %d]", maxParallelism, UpperBoundMaxParallelism)
	case parallelism > maxParallelism:
		return fmt.Errorf("keygroup: parallelism %d is greater than max parallelism %d", parallelism, maxParallelism)
	}
	return nil
}
