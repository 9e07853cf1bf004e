package keyed

import (
	"errors"
	"math"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/state"
	"github.com/weir-engine/weir/internal/timer"
)

// Runtime is what every keyed operator shares: the keyed state backend, the
// timer service with namespace N, and the wiring of processing-time timers
// to the task's clock. Operators embed it; it lives on the task's
// goroutine. SetHash must be called before OpenState, and SetOnTimer
// before the first timer can fire.
type Runtime[K comparable, N comparable] = keyedBase[K, N]

// keyedBase is Runtime (the name the snapshot code uses).
type keyedBase[K comparable, N comparable] struct {
	ctx  *op.Context
	hash func(K) uint32
	// hasher is hash without a func value for the common key types, and
	// groups maps its hashes to key groups (set by SetHash and OpenState).
	hasher  keygroup.Hasher[K]
	groups  keygroup.Assigner
	backend *state.KeyedBackend[K]
	timers  *timer.Service[K, N]
	// onTimer is called with the timer's key set as current key.
	onTimer func(t timer.Timer[K, N], domain TimeDomain) error
	// wake is the pending processing-time wake-up, if waking; wakeAt is
	// its time. fire is fireProcessingTimers as a value, made once.
	wake   op.TimerID
	waking bool
	wakeAt int64
	fire   func() error
	// workDir is the Pebble backend's working directory (nil on the heap).
	workDir *workDir
	// confirmed maps the SST files of the last completed checkpoint to
	// their handles; inflight holds the snapshots of pending checkpoints
	// (Pebble only; see keyedsnapshot.go).
	confirmed map[string]storage.SharedFile
	inflight  map[int64]*keyedSnapshot[K]
	// local is the directory of this subtask's local state copies (see
	// localrecovery.go), "" when local recovery is off.
	local string
	// batch is set by SetBatch (see there).
	batch bool
}

// SetBatch puts the runtime in batch mode, before OpenState: the input
// arrives sorted by key, state lives on the heap whatever the backend
// configuration and holds one key at a time (EndKey drops it), and timers
// fire at the end of their key instead of by watermark or wall clock.
func (b *keyedBase[K, N]) SetBatch() { b.batch = true }

// Batch reports whether SetBatch was called.
func (b *keyedBase[K, N]) Batch() bool { return b.batch }

// EndKey ends the current key in batch mode: its event-time timers fire
// (the key's watermark jumps to the end of time), then its processing-time
// timers, until none is left (a timer may register another); then the
// key's state is dropped and the timer service starts afresh for the next
// key.
func (b *keyedBase[K, N]) EndKey() error {
	fire := func(d TimeDomain) func(t timer.Timer[K, N]) error {
		return func(t timer.Timer[K, N]) error {
			b.SetKey(t.Key)
			return b.onTimer(t, d)
		}
	}
	for b.timers.NumEventTimeTimers()+b.timers.NumProcessingTimeTimers() > 0 {
		if err := b.timers.AdvanceWatermark(op.MaxWatermark, fire(EventTime)); err != nil {
			return err
		}
		if err := b.timers.AdvanceProcessingTime(math.MaxInt64, fire(ProcessingTime)); err != nil {
			return err
		}
	}
	b.backend.ClearCurrentKey()
	b.timers = timer.NewService[K, N]()
	return b.backend.Err()
}

// SetHash sets the key hash that maps keys to key groups.
func (b *keyedBase[K, N]) SetHash(hash func(K) uint32) {
	b.hash = hash
	b.hasher = keygroup.NewHasher(hash)
}

// SetHasher is SetHash with a Hasher, which may hash the common key types
// without calling a function value (see keygroup.KeyHasher).
func (b *keyedBase[K, N]) SetHasher(h keygroup.Hasher[K]) {
	b.hash = h.Func()
	b.hasher = h
}

// SetOnTimer sets what a firing timer calls, with its key current.
func (b *keyedBase[K, N]) SetOnTimer(fn func(t timer.Timer[K, N], domain TimeDomain) error) {
	b.onTimer = fn
}

// Backend is the keyed state backend (set by OpenState).
func (b *keyedBase[K, N]) Backend() *state.KeyedBackend[K] { return b.backend }

// Timers is the timer service (set by OpenState).
func (b *keyedBase[K, N]) Timers() *timer.Service[K, N] { return b.timers }

// Context is the context the operator was opened with.
func (b *keyedBase[K, N]) Context() *op.Context { return b.ctx }

// OpenState creates state and timers and restores them when the task
// starts from a checkpoint.
func (b *keyedBase[K, N]) OpenState(ctx *op.Context) error {
	b.ctx = ctx
	b.groups = keygroup.NewAssigner(ctx.MaxParallelism)
	b.timers = timer.NewService[K, N]()
	err := b.openBackend(ctx)
	if err == nil && ctx.Timers != nil {
		// State TTL reads the task's processing-time clock.
		b.backend.SetClock(ctx.Timers.Now)
	}
	if err == nil {
		err = b.restore(ctx.Restored)
	}
	if err != nil {
		// Close is not called after a failed Open.
		return errors.Join(err, b.CloseState())
	}
	return nil
}

// SetKey makes k the current key of state and timers.
func (b *keyedBase[K, N]) SetKey(k K) {
	b.backend.SetCurrentKey(k, b.groups.Of(b.hasher.Hash(k)))
}

// SetKeyInGroup is SetKey for a key whose key group the sender of its
// record computed and its frame carried (op.KeyedBatchInput), which is
// not hashed again; a negative group is computed as SetKey does. The
// backend still checks that the group is in this subtask's range.
func (b *keyedBase[K, N]) SetKeyInGroup(k K, group int) {
	if group < 0 {
		b.SetKey(k)
		return
	}
	b.backend.SetCurrentKey(k, group)
}

// AdvanceWatermark fires the event-time timers up to wm.
func (b *keyedBase[K, N]) AdvanceWatermark(wm int64) error {
	err := b.timers.AdvanceWatermark(wm, func(t timer.Timer[K, N]) error {
		b.SetKey(t.Key)
		return b.onTimer(t, EventTime)
	})
	if err != nil {
		return err
	}
	return b.backend.Err()
}

// RegisterProcessingTimer registers a processing-time timer of the
// current key and arranges for the task to wake when it is due.
func (b *keyedBase[K, N]) RegisterProcessingTimer(ns N, ts int64) {
	if b.timers.RegisterProcessingTimeTimer(b.backend.CurrentKey(), ns, ts) && !b.batch {
		b.scheduleWake()
	}
}

// scheduleWake arranges a mailbox call once the processing time is past
// the earliest processing-time timer: at the millisecond after it, as
// Flink's timer service does. A timer of time t fires when the clock reads
// t+1, so every element whose processing time is t was seen before it; a
// window's timer (at its end - 1) firing within its last millisecond would
// let that millisecond's later elements open and fire the window again.
func (b *keyedBase[K, N]) scheduleWake() {
	next, ok := b.timers.NextProcessingTime()
	if !ok || (b.waking && b.wakeAt <= next) {
		return
	}
	if b.waking {
		b.ctx.Timers.Cancel(b.wake)
	}
	if b.fire == nil {
		b.fire = b.fireProcessingTimers
	}
	b.waking, b.wakeAt = true, next
	b.wake = b.ctx.Timers.Schedule(time.UnixMilli(next+1), b.fire)
}

func (b *keyedBase[K, N]) fireProcessingTimers() error {
	b.waking = false
	err := b.timers.AdvanceProcessingTime(b.ctx.ProcessingTime(), func(t timer.Timer[K, N]) error {
		b.SetKey(t.Key)
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
