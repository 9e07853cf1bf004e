package keyedop

import (
	"errors"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
)

// IntervalBounds are the bounds of an interval join: an element a of the
// first input joins an element b of the second with the same key when
// a.ts + Lower <= b.ts <= a.ts + Upper, each bound excluded when its flag
// says so (Flink's lowerBoundExclusive and upperBoundExclusive).
type IntervalBounds struct {
	Lower, Upper                   int64
	LowerExclusive, UpperExclusive bool
}

// inclusive returns the bounds with both ends included (timestamps are
// whole milliseconds), or an error when no pair can join.
func (b IntervalBounds) inclusive() (lower, upper int64, err error) {
	lower, upper = b.Lower, b.Upper
	if b.LowerExclusive {
		lower++
	}
	if b.UpperExclusive {
		upper--
	}
	if lower > upper {
		return 0, 0, fmt.Errorf("interval join: lower bound %d is above upper bound %d (exclusive bounds move inwards by 1 ms)", lower, upper)
	}
	return lower, upper, nil
}

// Validate reports bounds that no pair of elements can meet.
func (b IntervalBounds) Validate() error {
	_, _, err := b.inclusive()
	return err
}

// NewIntervalJoin returns the operator of the interval join of two keyed
// inputs through f (Flink's IntervalJoinOperator): each element is kept in
// keyed state, by timestamp, until the watermark passes the last time an
// element of the other input could still join it; elements at or behind
// the watermark are dropped. A pair is emitted with the larger of its two
// timestamps.
func NewIntervalJoin[K comparable, A, B, R any](f func(A, B) (R, error), bounds IntervalBounds, keyA func(A) K, keyB func(B) K, hash func(K) uint32, out op.Output[R]) (any, error) {
	lower, upper, err := bounds.inclusive()
	if err != nil {
		return nil, err
	}
	j := &intervalJoinFn[K, A, B, R]{f: f, lower: lower, upper: upper}
	return NewCoProcess[K, A, B, R](j, keyA, keyB, hash, j, out), nil
}

type intervalJoinFn[K comparable, A, B, R any] struct {
	noLifecycle
	f            func(A, B) (R, error)
	lower, upper int64
	left         *state.MapState[K, int64, []A]
	right        *state.MapState[K, int64, []B]
	expired      []int64
}

func (j *intervalJoinFn[K, A, B, R]) Open(_ *op.Context, b *state.KeyedBackend[K]) error {
	var err error
	if j.left, err = state.Map[K, int64, []A](b, "interval-join-left"); err != nil {
		return err
	}
	j.right, err = state.Map[K, int64, []B](b, "interval-join-right")
	return err
}

var errNoTimestamp = errors.New("element has no event timestamp: assign timestamps and watermarks before an interval join")

// timestampOf returns the element's timestamp, and false for a late one:
// one at or behind the watermark, which promises no more such elements.
func timestampOf[K comparable, R any](ctx *Context[K, R]) (int64, bool, error) {
	ts, ok := ctx.Timestamp()
	if !ok {
		return 0, false, errNoTimestamp
	}
	wm := ctx.TimerService().CurrentWatermark()
	return ts, wm == op.MinWatermark || ts > wm, nil
}

func (j *intervalJoinFn[K, A, B, R]) ProcessElement1(ctx *Context[K, R], a A) error {
	ts, live, err := timestampOf(ctx)
	if err != nil || !live {
		return err
	}
	prev, _ := j.left.Get(ts)
	j.left.Put(ts, append(slices.Clip(prev), a))
	for bt, bs := range j.right.All() {
		if bt < ts+j.lower || bt > ts+j.upper {
			continue
		}
		for _, b := range bs {
			if err := j.emit(ctx, a, b, max(ts, bt)); err != nil {
				return err
			}
		}
	}
	// The last b that can join a has timestamp ts+upper.
	ctx.TimerService().RegisterEventTimeTimer(ts + max(j.upper, 0))
	return nil
}

func (j *intervalJoinFn[K, A, B, R]) ProcessElement2(ctx *Context[K, R], b B) error {
	ts, live, err := timestampOf(ctx)
	if err != nil || !live {
		return err
	}
	prev, _ := j.right.Get(ts)
	j.right.Put(ts, append(slices.Clip(prev), b))
	for at, as := range j.left.All() {
		if ts < at+j.lower || ts > at+j.upper {
			continue
		}
		for _, a := range as {
			if err := j.emit(ctx, a, b, max(ts, at)); err != nil {
				return err
			}
		}
	}
	// The last a that can join b has timestamp ts-lower.
	ctx.TimerService().RegisterEventTimeTimer(ts + max(-j.lower, 0))
	return nil
}

func (j *intervalJoinFn[K, A, B, R]) emit(ctx *Context[K, R], a A, b B, ts int64) error {
	r, err := j.f(a, b)
	if err != nil {
		return err
	}
	ctx.CollectWithTimestamp(r, ts)
	return nil
}

// OnTimer drops the elements no element to come can join: those the
// watermark (now at least at) has passed the cleanup time of.
func (j *intervalJoinFn[K, A, B, R]) OnTimer(_ *Context[K, R], at int64) error {
	j.expired = j.expired[:0]
	for ts := range j.left.Keys() {
		if ts+max(j.upper, 0) <= at {
			j.expired = append(j.expired, ts)
		}
	}
	for _, ts := range j.expired {
		j.left.Remove(ts)
	}
	j.expired = j.expired[:0]
	for ts := range j.right.Keys() {
		if ts+max(-j.lower, 0) <= at {
			j.expired = append(j.expired, ts)
		}
	}
	for _, ts := range j.expired {
		j.right.Remove(ts)
	}
	return nil
}
