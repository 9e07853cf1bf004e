package weir

import (
	"errors"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
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
	// workDir is the Pebble backend's working directory (nil on the heap).
	workDir *workDir
	// confirmed maps the SST files of the last completed checkpoint to
	// their handles; inflight holds the snapshots of pending checkpoints
	// (Pebble only; see keyedsnapshot.go).
	confirmed map[string]storage.SharedFile
	inflight  map[int64]*keyedSnapshot[K]
}

// open creates state and timers and restores them when the task starts
// from a checkpoint.
func (b *keyedBase[K, N]) open(ctx *op.Context) error {
	b.ctx = ctx
	b.timers = timer.NewService[K, N]()
	err := b.openBackend(ctx)
	if err == nil {
		err = b.restore(ctx.Restored)
	}
	if err != nil {
		// Close is not called after a failed Open.
		return errors.Join(err, b.closeBackend())
	}
	return nil
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

// Every keyed operator hears of completed checkpoints (incremental state)
// and releases its backend when closed.
var (
	_ op.CheckpointListener = (*reduceOp[int, int])(nil)
	_ op.CheckpointListener = (*processInput[int, int, int])(nil)
	_ op.CheckpointListener = (*windowOp[int, int, int, int])(nil)
	_ op.CheckpointListener = (*coProcessOp[int, int, int, int])(nil)
)
