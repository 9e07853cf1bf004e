package jobmaster

import (
	"context"
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// Savepoints and stop-with-savepoint. A request enters the loop's queue;
// the coordinator triggers it (or refuses it at once). The savepoint goes
// into its own directory under the requested target. A savepoint that
// terminates is synchronous, as in Flink: each task, once it took the
// snapshot, emits nothing more and waits for the savepoint's outcome.
// When it completes, the notifications go out, the tasks commit (two-phase
// commit sinks) and end by themselves, and the job ends FINISHED: without
// drain the operators close without finishing; with drain the sources
// ended their input before the snapshot, so the savepoint is the tasks'
// final checkpoint. When it fails, the tasks go on and so does the job.

// SavepointRequest asks for a savepoint of kind Savepoint,
// SavepointTerminate or SavepointDrain into Dir.
type SavepointRequest struct {
	Kind checkpoint.Kind
	Dir  string
	// Reply receives the savepoint's location or the reason it failed,
	// exactly once; it must have room for one value.
	Reply chan SavepointReply
}

// SavepointReply is the outcome of a SavepointRequest.
type SavepointReply struct {
	Location string
	Err      error
}

// ErrNoCheckpointing refuses savepoints of a job without checkpoint
// storage.
var ErrNoCheckpointing = errors.New("jobmaster: savepoints need checkpointing enabled")

// TriggerSavepoint queues a savepoint request; it may be called from any
// goroutine.
func (jm *JobMaster) TriggerSavepoint(r SavepointRequest) { jm.events.Push(r) }

// savepoints tracks requests by the loop.
type savepoints struct {
	// queued holds requests not yet triggered, in order.
	queued []SavepointRequest
	// byID holds triggered requests.
	byID map[int64]SavepointRequest
}

func (jm *JobMaster) requestSavepoint(ctx context.Context, r SavepointRequest) {
	if jm.cp == nil {
		r.Reply <- SavepointReply{Err: ErrNoCheckpointing}
		return
	}
	if jm.sched.Status() != scheduler.Running {
		r.Reply <- SavepointReply{Err: fmt.Errorf("jobmaster: the job is %s, not RUNNING", jm.sched.Status())}
		return
	}
	if jm.ada != nil && (r.Kind == checkpoint.SavepointTerminate || r.Kind == checkpoint.SavepointDrain) {
		if st := jm.ada.s.State(); st != "Executing" {
			r.Reply <- SavepointReply{Err: fmt.Errorf("jobmaster: cannot stop with a savepoint while %s", st)}
			return
		}
		jm.sched.Step(adaptive.StopWithSavepoint{Drain: r.Kind == checkpoint.SavepointDrain, Now: jm.now()})
	}
	jm.cp.savepoints.queued = append(jm.cp.savepoints.queued, r)
	jm.stepCheckpoint(ctx, checkpoint.TriggerRequest{Now: jm.now(), Kind: r.Kind})
}

// savepointTriggered binds the oldest queued request of that kind to the
// triggered id and returns its target directory.
func (cp *checkpointing) savepointTriggered(id int64, kind checkpoint.Kind) (string, bool) {
	for i, r := range cp.savepoints.queued {
		if r.Kind == kind {
			cp.savepoints.queued = append(cp.savepoints.queued[:i], cp.savepoints.queued[i+1:]...)
			cp.savepoints.byID[id] = r
			return r.Dir, true
		}
	}
	return "", false
}

// savepointEnded answers the request of id, if any.
func (cp *checkpointing) savepointEnded(id int64, kind checkpoint.Kind, location string, err error) {
	if id == 0 {
		// A refused request: answer the oldest queued one of that kind.
		for i, r := range cp.savepoints.queued {
			if r.Kind == kind {
				cp.savepoints.queued = append(cp.savepoints.queued[:i], cp.savepoints.queued[i+1:]...)
				r.Reply <- SavepointReply{Err: err}
				return
			}
		}
		return
	}
	if r, ok := cp.savepoints.byID[id]; ok {
		delete(cp.savepoints.byID, id)
		r.Reply <- SavepointReply{Location: location, Err: err}
	}
}

// failSavepoints answers every open request when the job ends.
func (cp *checkpointing) failSavepoints(err error) {
	for _, r := range cp.savepoints.queued {
		r.Reply <- SavepointReply{Err: err}
	}
	for id, r := range cp.savepoints.byID {
		delete(cp.savepoints.byID, id)
		r.Reply <- SavepointReply{Err: err}
	}
	cp.savepoints.queued = nil
}
