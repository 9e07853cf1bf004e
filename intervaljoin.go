package weir

import (
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/keyedop"
)

// IntervalJoinOption configures IntervalJoin.
type IntervalJoinOption func(*keyedop.IntervalBounds)

// LowerBoundExclusive excludes the lower bound: b.ts > a.ts + lower.
func LowerBoundExclusive() IntervalJoinOption {
	return func(b *keyedop.IntervalBounds) { b.LowerExclusive = true }
}

// UpperBoundExclusive excludes the upper bound: b.ts < a.ts + upper.
func UpperBoundExclusive() IntervalJoinOption {
	return func(b *keyedop.IntervalBounds) { b.UpperExclusive = true }
}

// IntervalJoin joins, through f, each element a of the keyed stream a with
// each element b of the keyed stream b with the same key whose timestamp
// lies in [a.ts + lower, a.ts + upper], both bounds included unless an
// option excludes them (Flink's intervalJoin(...).between(lower, upper)).
// The result has the larger of the two timestamps. Both streams need event
// timestamps; each element is kept in keyed state until the watermark
// passes the last time an element of the other stream could join it, and
// an element at or behind the watermark when it arrives is dropped.
// Bounds are whole milliseconds.
func IntervalJoin[K comparable, A, B, R any](a KeyedStream[K, A], b KeyedStream[K, B], lower, upper time.Duration, f func(A, B) (R, error), opts ...IntervalJoinOption) DataStream[R] {
	if f == nil {
		return invalid[R](a.env, errors.New("weir: IntervalJoin: nil function"))
	}
	bounds := keyedop.IntervalBounds{Lower: lower.Milliseconds(), Upper: upper.Milliseconds()}
	for _, o := range opts {
		o(&bounds)
	}
	if err := bounds.Validate(); err != nil {
		return invalid[R](a.env, fmt.Errorf("weir: IntervalJoin: %w", err))
	}
	return coOperator(Connect(a, b), "IntervalJoin", f, func(out op.Output[R]) any {
		j, _ := keyedop.NewIntervalJoin(f, bounds, a.key, b.key, a.hash, out) // validated above
		return j
	})
}
