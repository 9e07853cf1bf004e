package simtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// TaskManager is a simulated TaskManager: a node that serves the real
// TaskExecutorGateway and reports through the JobMasterGateway, with tasks
// that follow a script (see the package doc).
type TaskManager struct {
	c     *Cluster
	cfg   TaskManagerConfig
	ep    *Endpoint
	tasks map[string]*simTask
}

// start starts the process: it serves its gateway and registers with the
// ResourceManager until it is accepted.
func (tm *TaskManager) start() {
	tm.ep = tm.c.T.Endpoint(tm.cfg.ID)
	tm.ep.OnData = tm.onData
	tm.ep.OnLost = tm.onLost
	if _, err := tm.ep.ServeTaskExecutor(tm.cfg.ID, tm); err != nil {
		tm.c.violate("%s: %v", tm.cfg.ID, err)
		return
	}
	tm.register()
}

func (tm *TaskManager) alive() bool { return tm.ep != nil && !tm.ep.Dead() }

func (tm *TaskManager) register() {
	capacity := network.CapacityOf(network.DefaultNetworkMemory, network.DefaultBufferSize)
	req := &rpcpb.RegisterTaskManagerRequest{TaskManagerId: tm.cfg.ID, Address: tm.cfg.ID, Slots: int32(tm.cfg.Slots), Network: rpc.Capacity(capacity)}
	tm.ep.ResourceManager(resourceManager).RegisterTaskManager(context.Background(), req).OnComplete(
		func(r *rpcpb.RegisterTaskManagerResponse, err error) {
			if (err != nil || !r.GetAccepted()) && tm.alive() {
				tm.c.W.Tracef("%s: registration failed (%v %s), retrying", tm.cfg.ID, err, r.GetReason())
				tm.c.W.After(time.Second, tm.register)
			}
		})
}

// after runs f after d unless the process died meanwhile.
func (tm *TaskManager) after(d time.Duration, f func()) {
	tm.c.W.After(d, func() {
		if tm.alive() {
			f()
		}
	})
}

// Task states of a simulated task.
const (
	deploying = "DEPLOYING"
	running   = "RUNNING"
	// waiting: its input ended; it waits for a checkpoint it took after
	// that to complete (FLIP-147's final checkpoint).
	waiting  = "WAITING"
	finished = "FINISHED"
	failed   = "FAILED"
	canceled = "CANCELED"
)

// simTask is a subtask attempt on a simulated TaskManager.
type simTask struct {
	tm        *TaskManager
	key       *rpcpb.TaskKey
	name      string
	gen       int
	vertex    *graph.JobVertex
	subtask   int
	jm        string
	state     string
	restoreID int64
	finishOn  bool
	producers []string // names of the producing subtasks
	consumers []string
	// barriers holds the producers whose barrier of a checkpoint arrived;
	// ended the producers whose partition ended, eod those whose data
	// ended; acked the checkpoints acknowledged.
	barriers map[int64]map[string]bool
	ended    map[string]bool
	eod      map[string]bool
	acked    map[int64]bool
	// finalID is the first checkpoint taken after end of data: its
	// completion ends the task.
	finalID      int64
	committed    bool // the final checkpoint completed
	lastSnapshot int64
	early        [][]string // data messages that came before RUNNING
}

func (t *simTask) terminal() bool {
	return t.state == finished || t.state == failed || t.state == canceled
}

func (tm *TaskManager) SubmitTask(_ context.Context, d *rpcpb.TaskDeploymentDescriptor) *rpc.Future[*rpcpb.SubmitTaskResponse] {
	if idx := int(d.GetSlot().GetIndex()); idx < 0 || idx >= tm.cfg.Slots || d.GetSlot().GetTaskManagerId() != tm.cfg.ID {
		return rpc.Completed(&rpcpb.SubmitTaskResponse{Error: &rpcpb.Error{Message: fmt.Sprintf("%s has no slot %v", tm.cfg.ID, d.GetSlot())}}, nil)
	}
	k := d.GetTask()
	v := tm.c.graph.Vertices[k.GetExecution().GetVertex()]
	t := &simTask{tm: tm, key: k, name: taskName(k), gen: int(k.GetGeneration()), vertex: v, subtask: int(k.GetExecution().GetSubtask()),
		jm: d.GetJobMasterAddress(), state: deploying, restoreID: d.GetRestore().GetCheckpointId(), finishOn: d.GetRestore().GetFinishedOnRestore(),
		barriers: map[int64]map[string]bool{}, ended: map[string]bool{}, eod: map[string]bool{}, acked: map[int64]bool{}}
	for _, in := range d.GetInputs() {
		for _, p := range in.GetProducerSubtasks() {
			t.producers = append(t.producers, fmt.Sprintf("v%d/s%d@g%d", in.GetProducerVertex(), p, t.gen))
		}
	}
	for _, e := range v.Outputs {
		for _, s := range graph.ConsumersOf(e.Pattern, v.Parallelism, e.Target.Parallelism, t.subtask) {
			t.consumers = append(t.consumers, fmt.Sprintf("v%d/s%d@g%d", e.Target.ID, s, t.gen))
		}
	}
	tm.tasks[t.name] = t
	tm.c.data.locate(t.name, tm.cfg.ID)
	tm.after(tm.cfg.Deploy.draw(tm.c.W), t.deployed)
	return rpc.Completed(&rpcpb.SubmitTaskResponse{}, nil)
}

// deployed ends the task's deployment: it restored its state and runs,
// or its restore failed (as many as the scenario injects).
func (t *simTask) deployed() {
	if t.state != deploying {
		return
	}
	c := t.tm.c
	if t.restoreID > 0 && c.cfg.RestoreFailures > c.restores {
		c.restores++
		t.fail(fmt.Errorf("injected: the restore of checkpoint %d failed", t.restoreID))
		return
	}
	t.setState(running, nil)
	for _, m := range t.early {
		t.data(m)
	}
	t.early = nil
	switch {
	case t.finishOn:
		t.endOfData()
		t.finish()
	case len(t.producers) == 0:
		t.tm.after(c.cfg.SourceRuns.draw(c.W), func() {
			if t.state == running {
				t.endOfData()
			}
		})
	}
}

// setState changes the task's state and reports it. A report the
// JobMaster does not take fails the task, as in Flink.
func (t *simTask) setState(state string, cause error) {
	t.state = state
	st := map[string]rpcpb.ExecutionState{
		running: rpcpb.ExecutionState_EXECUTION_STATE_RUNNING, finished: rpcpb.ExecutionState_EXECUTION_STATE_FINISHED,
		failed: rpcpb.ExecutionState_EXECUTION_STATE_FAILED, canceled: rpcpb.ExecutionState_EXECUTION_STATE_CANCELED,
	}[state]
	m := &rpcpb.TaskExecutionState{Task: t.key, State: st, TimeUnixNanos: t.tm.c.W.Now().UnixNano(),
		Metrics: &rpcpb.TaskMetrics{LastSnapshot: t.lastSnapshot}}
	if cause != nil {
		m.Error = &rpcpb.Error{Message: cause.Error()}
	}
	t.report(m)
}

// report sends a state report. A report of RUNNING that the JobMaster
// does not take fails the task, as in Flink; a final state is reported
// again until the JobMaster takes it or is unreachable (Flink reconciles
// the final states through its heartbeats).
func (t *simTask) report(m *rpcpb.TaskExecutionState) {
	t.tm.ep.JobMaster(t.jm).UpdateTaskExecutionState(context.Background(), m).OnComplete(
		func(_ *rpcpb.UpdateTaskExecutionStateResponse, err error) {
			switch {
			case err == nil || !t.tm.alive() || errors.Is(err, rpc.ErrUnreachable):
			case m.GetState() != rpcpb.ExecutionState_EXECUTION_STATE_RUNNING:
				t.tm.after(time.Second, func() { t.report(m) })
			case !t.terminal():
				t.fail(fmt.Errorf("report %s: %w", m.GetState(), err))
			}
		})
}

func (t *simTask) fail(err error) {
	if t.terminal() {
		return
	}
	t.tm.c.W.Tracef("%s: %s fails: %v", t.tm.cfg.ID, t.name, err)
	t.setState(failed, err)
}

// endOfData: the task's input ended. It tells its consumers and the
// JobMaster and waits for its final checkpoint.
func (t *simTask) endOfData() {
	t.state = waiting
	t.send("eod", 0)
	t.tm.ep.JobMaster(t.jm).EndOfData(context.Background(), &rpcpb.EndOfData{Task: t.key})
}

// maybeFinish finishes the task once its final checkpoint completed and
// every producer's partition ended: a task ends only after its inputs did.
func (t *simTask) maybeFinish() {
	if t.state == waiting && t.committed && t.all(t.ended) {
		t.finish()
	}
}

// finish ends the task and its partitions.
func (t *simTask) finish() {
	t.setState(finished, nil)
	t.send("eop", 0)
}

// send sends a data message to every consumer.
func (t *simTask) send(kind string, id int64) {
	for _, to := range t.consumers {
		t.tm.c.data.send(t.tm.cfg.ID, to, []string{kind, t.name, to, fmt.Sprint(id)})
	}
}

// snapshot takes the task's snapshot of checkpoint id after the TaskManager's
// snapshot delay, forwards the barrier and acknowledges.
func (t *simTask) snapshot(id int64) {
	if t.acked[id] {
		return
	}
	t.acked[id] = true
	t.tm.after(t.tm.cfg.Ack.draw(t.tm.c.W), func() {
		if t.state != running && t.state != waiting {
			return
		}
		t.send("barrier", id)
		t.lastSnapshot = max(t.lastSnapshot, id)
		if t.state == waiting && t.finalID == 0 {
			t.finalID = id
		}
		t.tm.ep.JobMaster(t.jm).AcknowledgeCheckpoint(context.Background(), &rpcpb.AcknowledgeCheckpoint{Task: t.key, CheckpointId: id})
	})
}

// data handles a data message from a producer: kind, producer, consumer,
// checkpoint id.
func (t *simTask) data(m []string) {
	if t.state == deploying {
		t.early = append(t.early, m)
		return
	}
	if t.state != running && t.state != waiting {
		return
	}
	from := m[1]
	switch m[0] {
	case "barrier":
		var id int64
		fmt.Sscan(m[3], &id)
		if t.barriers[id] == nil {
			t.barriers[id] = map[string]bool{}
		}
		t.barriers[id][from] = true
	case "eod":
		t.eod[from] = true
		if t.state == running && t.all(t.eod) {
			t.endOfData()
		}
	case "eop":
		t.ended[from] = true
		t.maybeFinish()
	}
	t.align()
}

// all reports whether every producer is in set.
func (t *simTask) all(set map[string]bool) bool {
	for _, p := range t.producers {
		if !set[p] {
			return false
		}
	}
	return true
}

// align takes the snapshot of every checkpoint whose barriers came from
// every producer whose partition has not ended.
func (t *simTask) align() {
	for _, id := range sortedKeys(t.barriers) {
		got := t.barriers[id]
		aligned := true
		for _, p := range t.producers {
			aligned = aligned && (got[p] || t.ended[p])
		}
		if aligned {
			delete(t.barriers, id)
			t.snapshot(id)
		}
	}
}

func (tm *TaskManager) task(k *rpcpb.TaskKey) *simTask { return tm.tasks[taskName(k)] }

func (tm *TaskManager) CancelTask(_ context.Context, m *rpcpb.CancelTaskRequest) *rpc.Future[*rpcpb.CancelTaskResponse] {
	if t := tm.task(m.GetTask()); t != nil && !t.terminal() {
		t.state = canceled // at once: nothing more goes out
		tm.after(tm.cfg.Deploy.draw(tm.c.W), func() { t.setState(canceled, nil) })
	}
	return rpc.Completed(&rpcpb.CancelTaskResponse{}, nil)
}

func (tm *TaskManager) TriggerCheckpoint(_ context.Context, m *rpcpb.TriggerCheckpointRequest) *rpc.Future[*rpcpb.TriggerCheckpointResponse] {
	t := tm.task(m.GetTask())
	if t == nil || (t.state != running && t.state != waiting) {
		return rpc.Completed(&rpcpb.TriggerCheckpointResponse{}, nil)
	}
	t.snapshot(m.GetBarrier().GetId())
	return rpc.Completed(&rpcpb.TriggerCheckpointResponse{Accepted: true}, nil)
}

func (tm *TaskManager) NotifyCheckpointComplete(_ context.Context, m *rpcpb.NotifyCheckpointComplete) *rpc.Future[*rpcpb.Ack] {
	if t := tm.task(m.GetTask()); t != nil && t.state == waiting && t.finalID != 0 && m.GetCheckpointId() >= t.finalID {
		t.committed = true
		t.maybeFinish()
	}
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (tm *TaskManager) NotifyCheckpointAborted(context.Context, *rpcpb.NotifyCheckpointAborted) *rpc.Future[*rpcpb.Ack] {
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (tm *TaskManager) RequestSlot(context.Context, *rpcpb.RequestSlotRequest) *rpc.Future[*rpcpb.RequestSlotResponse] {
	return rpc.Completed(&rpcpb.RequestSlotResponse{}, nil)
}

func (tm *TaskManager) Heartbeat(_ context.Context, m *rpcpb.Heartbeat) *rpc.Future[*rpcpb.Heartbeat] {
	return rpc.Completed(m, nil)
}

// onData delivers a data message to its task.
func (tm *TaskManager) onData(_ string, msg []byte) {
	m, err := decodeData(msg)
	if err != nil {
		tm.c.violate("%s: %v", tm.cfg.ID, err)
		return
	}
	if t := tm.tasks[m[2]]; t != nil {
		t.data(m)
	}
}

// onLost: without the JobManager the TaskManager's tasks are gone (their
// JobMaster will not hear of them); without a peer TaskManager the tasks
// that exchange data with it fail.
func (tm *TaskManager) onLost(peer string) {
	for _, name := range sortedKeys(tm.tasks) {
		t := tm.tasks[name]
		if t.terminal() {
			continue
		}
		if peer == jobManagerNode {
			t.state = canceled
			continue
		}
		for _, p := range append(append([]string(nil), t.producers...), t.consumers...) {
			if tm.c.data.where[p] == peer {
				t.fail(fmt.Errorf("the connection to %s closed", peer))
				break
			}
		}
	}
}
