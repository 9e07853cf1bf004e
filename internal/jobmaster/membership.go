package jobmaster

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// The TaskManagers of a job change while it runs. The ResourceManager
// offers the job slots of a TaskManager (rpc.JobMasterGateway.OfferSlots,
// or RegisterTaskManager in process), at its start or later, and tells it
// when a TaskManager on which it holds slots is lost
// (JobMasterGateway.DisconnectTaskManager, or DisconnectTaskManager).
// Both are events of the loop:
//
//   - slots offered go to the scheduler, so a job that waits for slots
//     (Options.SlotWait) deploys once it has enough;
//   - a lost TaskManager fails the executions it ran at once, without
//     waiting for reports it may never send, and the restart places the
//     next generation in the slots left (scheduler.TaskManagerLost).
//
// TaskManagers given to New count as registered with all their slots.

// taskManagerRegistered offers a TaskManager's slots to the job.
type taskManagerRegistered struct{ tm TaskManager }

// taskManagerLost takes a TaskManager away.
type taskManagerLost struct{ id, reason string }

// slotWaitTimer ends the wait of a generation for its slots.
type slotWaitTimer struct{ generation int }

// RegisterTaskManager offers the job tm.Slots (slots of tm only). It may
// be called from any goroutine, before Run or while it runs; a
// TaskManager offers more slots by registering again.
func (jm *JobMaster) RegisterTaskManager(tm TaskManager) {
	jm.events.Push(taskManagerRegistered{tm: tm})
}

// SlotOffer is the message that offers the job tm's slots (the
// ResourceManager's side of RegisterTaskManager).
func SlotOffer(job string, tm TaskManager) *rpcpb.OfferSlotsRequest {
	m := &rpcpb.OfferSlotsRequest{TaskManagerId: tm.ID, JobId: job, Address: tm.Address, Network: rpc.Capacity(tm.Network),
		DataAddress: tm.DataAddress}
	for _, s := range tm.Slots {
		m.Offers = append(m.Offers, &rpcpb.SlotOffer{Slot: rpc.SlotID(s)})
	}
	return m
}

// fromSlotOffer is the TaskManager an offer describes, or an error when
// it offers slots of another TaskManager or none.
func fromSlotOffer(m *rpcpb.OfferSlotsRequest) (TaskManager, error) {
	tm := TaskManager{ID: m.GetTaskManagerId(), Address: m.GetAddress(), Network: rpc.FromCapacity(m.GetNetwork()),
		DataAddress: m.GetDataAddress()}
	if tm.ID == "" || len(m.GetOffers()) == 0 {
		return tm, fmt.Errorf("jobmaster: an offer of %d slots of TaskManager %q", len(m.GetOffers()), tm.ID)
	}
	for _, o := range m.GetOffers() {
		s := rpc.FromSlotID(o.GetSlot())
		if s.TaskManager != tm.ID {
			return tm, fmt.Errorf("jobmaster: TaskManager %s offered slot %v of another", tm.ID, s)
		}
		tm.Slots = append(tm.Slots, s)
	}
	return tm, nil
}

// DisconnectTaskManager tells the job that a TaskManager is lost for the
// given reason. It may be called from any goroutine.
func (jm *JobMaster) DisconnectTaskManager(id, reason string) {
	jm.events.Push(taskManagerLost{id: id, reason: reason})
}

// admitEarlyTaskManagers handles the TaskManagers registered or lost
// before Run, so that the job starts with their slots; other events stay
// queued in their order.
func (jm *JobMaster) admitEarlyTaskManagers() {
	var rest []any
	for _, ev := range jm.events.PopAll() {
		switch ev.(type) {
		case taskManagerRegistered, taskManagerLost:
			jm.handleMembership(ev)
		default:
			rest = append(rest, ev)
		}
	}
	for _, ev := range rest {
		jm.events.Push(ev)
	}
}

// handleMembership applies a TaskManager's registration or loss.
func (jm *JobMaster) handleMembership(ev any) {
	switch e := ev.(type) {
	case taskManagerRegistered:
		jm.log.Info("TaskManager registered", "taskmanager", e.tm.ID, "slots", len(e.tm.Slots))
		jm.tms[e.tm.ID] = e.tm
		jm.sched.Step(scheduler.SlotsOffered{Slots: e.tm.Slots})
	case taskManagerLost:
		if _, ok := jm.tms[e.id]; !ok {
			return
		}
		jm.log.Warn("TaskManager lost", "taskmanager", e.id, "reason", e.reason)
		// Should the TaskManager still run, its executions of this job
		// end too; the scheduler counts them failed already.
		gen := jm.sched.Generation()
		for id, on := range jm.placed {
			if on == e.id && !jm.sched.ExecutionState(id).Terminal() {
				jm.taskExecutor(e.id).CancelTask(context.Background(), &rpcpb.CancelTaskRequest{Task: rpc.TaskKey(jm.jobID, gen, id)})
				if jm.ada != nil {
					// The adaptive scheduler restarts at the slot loss and
					// waits for the generation to end: these reports may
					// never come from the TaskManager.
					jm.reportEnded(id, gen, scheduler.ExecFailed, fmt.Errorf("%w: %s", scheduler.ErrTaskManagerLost, e.id))
				}
			}
		}
		delete(jm.tms, e.id)
		jm.sched.Step(scheduler.TaskManagerLost{TaskManager: e.id, Reason: e.reason, Now: jm.clock.Now()})
	}
}
