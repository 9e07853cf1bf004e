package weir

import (
	"time"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/timer"
)

// keyedBase is what every keyed operator shares: the keyed state backend,
// the timer service with namespace N, and the wiring of processing-time
// timers to the task's clock. It lives on the task's goroutine.
type keyedBase[K comparable, N comparable] struct {
	ctx     *op.Context
	hash    func(K) uint32
	backend *state.KeyedBackend[K]
	timers  *timer.Service[K, N]
	// onTimer is called with the timer's key set as current key.
	onTimer func(t timer.Timer[K, N], domain TimeDomain) error
	// wake cancels the pending processing-time wake-up; wakeAt is its time.
	wake   func()
	wakeAt int64
}

// open creates state and timers and restores them when the task starts
// from a checkpoint.
func (b *keyedBase[K, N]) open(ctx *op.Context) error {
	b.ctx = ctx
	b.backend = state.NewKeyedBackend[K](ctx.KeyGroups.Start, ctx.KeyGroups.End)
	b.timers = timer.NewService[K, N]()
	return b.restore(ctx.Restored)
}

// setKey makes k the current key of state and timers.
func (b *keyedBase[K, N]) setKey(k K) {
	b.backend.SetCurrentKey(k, keygroup.Of(b.hash(k), b.ctx.MaxParallelism))
}

// advanceWatermark fires the event-time timers up to wm.
func (b *keyedBase[K, N]) advanceWatermark(wm int64) error {
	err := b.timers.AdvanceWatermark(wm, func(t timer.Timer[K, N]) error {
		b.setKey(t.Key)
		return b.onTimer(t, EventTime)
	})
	if err != nil {
		return err
	}
	return b.backend.Err()
}

func (b *keyedBase[K, N]) registerProcessingTimer(ns N, ts int64) {
	if b.timers.RegisterProcessingTimeTimer(b.backend.CurrentKey(), ns, ts) {
		b.scheduleWake()
	}
}

// scheduleWake arranges a mailbox call at the earliest processing-time
// timer.
func (b *keyedBase[K, N]) scheduleWake() {
	next, ok := b.timers.NextProcessingTime()
	if !ok || (b.wake != nil && b.wakeAt <= next) {
		return
	}
	if b.wake != nil {
		b.wake()
	}
	b.wakeAt = next
	b.wake = b.ctx.Timers.Schedule(time.UnixMilli(next), b.fireProcessingTimers)
}

func (b *keyedBase[K, N]) fireProcessingTimers() error {
	b.wake = nil
	err := b.timers.AdvanceProcessingTime(b.ctx.ProcessingTime(), func(t timer.Timer[K, N]) error {
		b.setKey(t.Key)
		return b.onTimer(t, ProcessingTime)
	})
	if err != nil {
		return err
	}
	b.scheduleWake()
	return b.backend.Err()
}

// TimeDomain says which clock fired a timer.
type TimeDomain int

const (
	// EventTime timers fire when the watermark passes them.
	EventTime TimeDomain = iota
	// ProcessingTime timers fire when the wall clock passes them.
	ProcessingTime
)

func (d TimeDomain) String() string {
	if d == ProcessingTime {
		return "processing time"
	}
	return "event time"
}
