// Package failtest holds what restart tests put into a job to make it fail
// once, mid-stream, after checkpoints were taken.
package failtest

import (
	"errors"
	"sync/atomic"

	"github.com/weir-engine/weir"
)

// ErrInjected is the failure AfterSnapshots injects.
var ErrInjected = errors.New("injected failure")

// AfterSnapshots is a weir.MapFunction[T, T] that passes elements through
// and fails the first attempt of subtask 0 once that subtask has seen After
// elements and taken Snapshots snapshots. One checkpoint is in flight at a
// time by default, so Snapshots 2 means the first checkpoint completed and
// the job restores from a checkpoint taken mid-stream; Snapshots 0 fails
// whether or not there was one. Failed, if set, reports that it failed:
// a test that never saw the failure checked nothing.
type AfterSnapshots[T any] struct {
	After, Snapshots int
	Failed           *atomic.Bool

	seen, snapshots, attempt, subtask int
}

// Open notes the attempt and subtask.
func (f *AfterSnapshots[T]) Open(rc *weir.RuntimeContext) error {
	f.attempt, f.subtask = rc.Attempt, rc.SubtaskIndex
	return nil
}

// Map passes v through, or fails once.
func (f *AfterSnapshots[T]) Map(v T) (T, error) {
	f.seen++
	if f.attempt == 0 && f.subtask == 0 && f.seen >= f.After && f.snapshots >= f.Snapshots {
		if f.Failed != nil {
			f.Failed.Store(true)
		}
		var zero T
		return zero, ErrInjected
	}
	return v, nil
}

// InitializeState has no state to restore.
func (f *AfterSnapshots[T]) InitializeState(*weir.StateInitializationContext) error { return nil }

// SnapshotState counts the snapshots.
func (f *AfterSnapshots[T]) SnapshotState(weir.StateSnapshotContext) error {
	f.snapshots++
	return nil
}
