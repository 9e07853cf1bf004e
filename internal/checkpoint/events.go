package checkpoint

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
)

// Event is an input of [Coordinator.Step]. Every event carries a Now, the
// caller's clock when it happened; it is optional (zero) on Ack, Decline
// and Persisted, which then happen at the latest Now seen. The
// coordinator's clock never goes backwards: an earlier Now counts as the
// latest one seen.
type Event interface{ isEvent() }

// Kind is what a checkpoint is for.
type Kind int

const (
	// Checkpoint is a periodic, end-of-data or requested checkpoint.
	Checkpoint Kind = iota
	// Savepoint is a user's savepoint; the job goes on.
	Savepoint
	// SavepointTerminate is stop-with-savepoint without drain: tasks stop
	// after it without flushing (the job will be resumed from it).
	SavepointTerminate
	// SavepointDrain is stop-with-savepoint --drain: sources emit
	// MAX_WATERMARK and end of data, every task flushes, then snapshots.
	SavepointDrain
)

// IsSavepoint reports whether k is one of the savepoint kinds.
func (k Kind) IsSavepoint() bool { return k != Checkpoint }

// terminates reports whether the job ends after this kind.
func (k Kind) terminates() bool { return k == SavepointTerminate || k == SavepointDrain }

// String returns the name used in logs and test scripts.
func (k Kind) String() string {
	switch k {
	case Checkpoint:
		return "checkpoint"
	case Savepoint:
		return "savepoint"
	case SavepointTerminate:
		return "savepoint-terminate"
	case SavepointDrain:
		return "savepoint-drain"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Tick tells the coordinator the time. Send one when the job starts
// running (it starts the periodic schedule) and whenever a [ScheduleTick]
// falls due; extra ticks are harmless.
type Tick struct{ Now time.Time }

// TriggerRequest asks for a checkpoint or savepoint now. A savepoint is
// triggered at once whatever MaxConcurrent and MinPauseBetween say; a
// Checkpoint request waits (queued, in order) only for MaxConcurrent. The
// answer is in the next Ready: a [Trigger] with Cause CauseRequest, or a
// [Failed] with ID 0 when the request was refused.
type TriggerRequest struct {
	Now  time.Time
	Kind Kind
}

// Ack is a task's acknowledgement of checkpoint ID with its state handle,
// which the coordinator passes on, untouched, in [Persist].
type Ack struct {
	ID    int64
	Task  graph.SubtaskID
	State any
	Now   time.Time
}

// Decline is a task's refusal of checkpoint ID; it fails the checkpoint.
// A decline from a task the checkpoint does not include, or one that comes
// after every task acknowledged, changes nothing.
type Decline struct {
	ID     int64
	Task   graph.SubtaskID
	Reason error
	Now    time.Time
}

// TaskEndOfData reports that a task emitted EndOfData: it consumed all its
// input and ran finish(), and now waits for a checkpoint triggered after
// this point to complete before it exits (FLIP-147's final checkpoint).
type TaskEndOfData struct {
	Task graph.SubtaskID
	Now  time.Time
}

// TaskFinished reports that a task reached FINISHED. LastSnapshot is the
// id of the last checkpoint the task took its snapshot for (0: none): its
// acknowledgement may still be on its way, so the coordinator keeps waiting
// for it; for later checkpoints the task will never acknowledge.
type TaskFinished struct {
	Task         graph.SubtaskID
	Now          time.Time
	LastSnapshot int64
}

// TasksRestarted reports a failover that restarted the tasks: every
// pending checkpoint is aborted and the finished and end-of-data marks are
// reset. Finished lists the tasks that are finished after the restore
// (FLIP-147: the subtasks of vertices the restored checkpoint records as
// fully finished); the periodic schedule restarts from Now. Topology, when
// set, is the topology of the restarted tasks (a rescale changed the
// parallelism); Finished then names tasks of it.
type TasksRestarted struct {
	Now      time.Time
	Finished []graph.SubtaskID
	Topology *Topology
}

// Restoring reports that a failover (or a rescale) is about to pick the
// checkpoint it restores the tasks from: the latest completed one. Every
// pending checkpoint is aborted, one being persisted too (its metadata
// becomes a [Discard] once written), and none is triggered until
// [TasksRestarted]. Without it, a checkpoint whose metadata was being
// written when the restore picked its predecessor could still complete:
// the restored tasks would redo what its sinks commit, and a later restart
// would start from a checkpoint whose pending output the restored tasks
// had discarded as unreferenced.
type Restoring struct {
	Now time.Time
}

// Persisted answers a [Persist]: the caller wrote the checkpoint's
// metadata to Location, or failed to (Err). Now, when given, is the
// completion time the min pause counts from.
type Persisted struct {
	ID       int64
	Location string
	Err      error
	Now      time.Time
}

func (Tick) isEvent()           {}
func (TriggerRequest) isEvent() {}
func (Ack) isEvent()            {}
func (Decline) isEvent()        {}
func (TaskEndOfData) isEvent()  {}
func (TaskFinished) isEvent()   {}
func (TasksRestarted) isEvent() {}
func (Restoring) isEvent()      {}
func (Persisted) isEvent()      {}

// eventTime is the Now an event carries, zero for those without one.
func eventTime(ev Event) time.Time {
	switch ev := ev.(type) {
	case Tick:
		return ev.Now
	case TriggerRequest:
		return ev.Now
	case TaskEndOfData:
		return ev.Now
	case TaskFinished:
		return ev.Now
	case TasksRestarted:
		return ev.Now
	case Restoring:
		return ev.Now
	case Ack:
		return ev.Now
	case Decline:
		return ev.Now
	case Persisted:
		return ev.Now
	}
	return time.Time{}
}
