// Package keyed is the keyed runtime of a keyed operator subtask: its
// keyed state backend (the heap, or Pebble in a working directory of its
// own), its timer service, and the snapshots of both that checkpoints
// write and restores read.
//
// A keyed operator embeds a Runtime and calls OpenState when it opens and
// CloseState when it closes; before each element or timer it makes the
// element's key current (SetKey), and it hands watermarks to
// AdvanceWatermark, which fires the event-time timers. Runtime implements
// op.Snapshotter and op.CheckpointListener for the operator: at a barrier
// it captures the backend and encodes the timers on the task's goroutine
// (SnapshotState), and the runtime writes the capture to checkpoint
// storage later, off that goroutine (keyedSnapshot.Write). Everything but
// that write runs on the task's goroutine.
//
// Files: keyedbase.go (the Runtime and its timers), keyedstate.go (opening
// the backend and downloading Pebble files on restore), keyedsnapshot.go
// (the snapshot format, its write and its restore), statedir.go (Pebble
// working directories and the cleanup of those of dead processes),
// localrecovery.go (the local copies of the latest completed checkpoint a
// TaskManager keeps to restore from).
package keyed
