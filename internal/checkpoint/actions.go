package checkpoint

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
)

// Action is an output of [Coordinator.Ready], for the caller to perform in
// the order given.
type Action interface{ isAction() }

// Cause says why a checkpoint was triggered.
type Cause int

const (
	// CausePeriodic: the interval elapsed.
	CausePeriodic Cause = iota
	// CauseRequest: a TriggerRequest (a savepoint or a manual checkpoint).
	CauseRequest
	// CauseEndOfData: every task reached end of data (the final checkpoint
	// of a bounded job).
	CauseEndOfData
	// CauseRegionEndOfData: every task of a pipelined region reached end of
	// data while other regions run on.
	CauseRegionEndOfData
)

// String returns the name used in logs and test scripts.
func (c Cause) String() string {
	switch c {
	case CausePeriodic:
		return "periodic"
	case CauseRequest:
		return "request"
	case CauseEndOfData:
		return "end-of-data"
	case CauseRegionEndOfData:
		return "region-end-of-data"
	}
	return fmt.Sprintf("Cause(%d)", int(c))
}

// Trigger starts checkpoint ID: send the trigger RPC, with ID, Timestamp
// and Kind, to every task in Tasks (the plan's roots). The other running
// tasks get it as barriers.
//
// With Again set, checkpoint ID is already pending and only the trigger
// RPC goes out, to the tasks that became its roots after it was triggered:
// every producer they read finished without taking it (FLIP-147: the
// trigger reached a task that had just ended after its final checkpoint),
// so no barrier of ID will come to them. A task that took ID from a barrier
// meanwhile treats the RPC as the same checkpoint.
type Trigger struct {
	ID        int64
	Timestamp time.Time
	Kind      Kind
	Cause     Cause
	Tasks     []graph.SubtaskID
	Again     bool
}

// Persist asks the caller to write the metadata of checkpoint ID, every
// task it waited for having acknowledged: the state handles, the tasks that
// had finished before the trigger and the fully finished vertices. Answer
// with Persisted; the checkpoint completes only then.
type Persist struct {
	ID                    int64
	Kind                  Kind
	Timestamp             time.Time
	States                map[graph.SubtaskID]any
	Finished              []graph.SubtaskID
	FullyFinishedVertices []int
}

// NotifyComplete tells Tasks that checkpoint ID completed: every task that
// was running at the trigger and has not finished since, including those
// waiting for their final checkpoint (which may now exit).
type NotifyComplete struct {
	ID    int64
	Tasks []graph.SubtaskID
}

// NotifyAborted tells Tasks (those running at the trigger and still not
// finished) that checkpoint ID was aborted, so they can release what they
// hold for it. Not sent after a failover: the attempts it would go to are
// gone.
type NotifyAborted struct {
	ID     int64
	Tasks  []graph.SubtaskID
	Reason error
}

// Completed reports that checkpoint ID is durable at Location; it is the
// latest completed one. Record it for restores and the REST API.
type Completed struct {
	ID       int64
	Location string
	Kind     Kind
}

// Failed reports that checkpoint ID failed, or, with ID 0, that a
// TriggerRequest was refused. Reason wraps one of the package's Err
// values.
type Failed struct {
	ID     int64
	Kind   Kind
	Reason error
}

// JobFailure asks the caller to fail the job (and restart it according to
// its restart strategy): more consecutive checkpoints failed than
// Options.TolerableFailures allows. Reason wraps ErrTolerableExceeded and
// the last failure.
type JobFailure struct{ Reason error }

// Subsumed lists completed checkpoints that fell out of the Retained most
// recent ones; the caller may discard their metadata and state.
type Subsumed struct{ IDs []int64 }

// Discard says that metadata written for checkpoint ID at Location belongs
// to no checkpoint: the checkpoint was aborted (a failover, or a later one
// completed first) while the caller was persisting it. Delete it.
type Discard struct {
	ID       int64
	Location string
}

// ScheduleTick asks for a Tick at At (or soon after). Each ScheduleTick
// replaces the previous one; a zero At cancels it. It is emitted only when
// the wanted time changes.
type ScheduleTick struct{ At time.Time }

func (Trigger) isAction()        {}
func (Persist) isAction()        {}
func (NotifyComplete) isAction() {}
func (NotifyAborted) isAction()  {}
func (Completed) isAction()      {}
func (Failed) isAction()         {}
func (JobFailure) isAction()     {}
func (Subsumed) isAction()       {}
func (Discard) isAction()        {}
func (ScheduleTick) isAction()   {}
