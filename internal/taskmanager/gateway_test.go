package taskmanager_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// jobMaster is a JobMasterGateway that hands the state updates it receives
// to the test as the runtime's reports, and the checkpoint messages as they
// arrived.
type jobMaster struct {
	rpc.JobMasterGateway // calls these tests do not make
	updates              chan taskmanager.Report
	acks                 chan *rpcpb.AcknowledgeCheckpoint
	declines             chan *rpcpb.DeclineCheckpoint
	endOfData            chan *rpcpb.EndOfData
}

func (j *jobMaster) AcknowledgeCheckpoint(_ context.Context, m *rpcpb.AcknowledgeCheckpoint) *rpc.Future[*rpcpb.Ack] {
	j.acks <- m
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (j *jobMaster) DeclineCheckpoint(_ context.Context, m *rpcpb.DeclineCheckpoint) *rpc.Future[*rpcpb.Ack] {
	j.declines <- m
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (j *jobMaster) EndOfData(_ context.Context, m *rpcpb.EndOfData) *rpc.Future[*rpcpb.Ack] {
	j.endOfData <- m
	return rpc.Completed(&rpcpb.Ack{}, nil)
}

func (j *jobMaster) UpdateTaskExecutionState(_ context.Context, m *rpcpb.TaskExecutionState) *rpc.Future[*rpcpb.UpdateTaskExecutionStateResponse] {
	_, ts, err := rpc.FromTaskState(m)
	if err != nil {
		return rpc.Failed[*rpcpb.UpdateTaskExecutionStateResponse](err)
	}
	mt := m.GetMetrics()
	j.updates <- taskmanager.Report{TaskState: ts, RecordsIn: mt.GetRecordsIn(), RecordsOut: mt.GetRecordsOut(), LastSnapshot: mt.GetLastSnapshot()}
	return rpc.Completed(&rpcpb.UpdateTaskExecutionStateResponse{}, nil)
}

// gatewayRig is a real TaskManager served over an encoding transport, with
// a recording JobMaster and the job embedded in the function table.
type gatewayRig struct {
	tm      *taskmanager.TaskManager
	te      rpc.TaskExecutorGateway
	jm      *jobMaster
	updates reports
	spec    *rpcpb.FunctionSpec
}

func newGatewayRig(t *testing.T, j job) gatewayRig {
	t.Helper()
	tm, _ := newTM(t, plenty)
	transport := rpc.NewLocalEncoding(true)
	functions := funcspec.NewTable(nil)
	spec, release, err := functions.Embed("job", j.graph)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	jm := &jobMaster{updates: make(chan taskmanager.Report, 8), acks: make(chan *rpcpb.AcknowledgeCheckpoint, 4),
		declines: make(chan *rpcpb.DeclineCheckpoint, 4), endOfData: make(chan *rpcpb.EndOfData, 4)}
	for _, serve := range []func() (func(), error){
		func() (func(), error) { return transport.ServeJobMaster("jm", jm) },
		func() (func(), error) {
			return transport.ServeTaskExecutor(tmID, taskmanager.NewGateway(tm, functions, transport))
		},
	} {
		stop, err := serve()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
	}
	return gatewayRig{tm: tm, te: transport.TaskExecutor(tmID), jm: jm, updates: jm.updates, spec: spec}
}

func (r gatewayRig) descriptor(gen int, spec *rpcpb.FunctionSpec) *rpcpb.TaskDeploymentDescriptor {
	return r.descriptorOf(gen, 0, spec)
}

func (r gatewayRig) descriptorOf(gen, vertex int, spec *rpcpb.FunctionSpec) *rpcpb.TaskDeploymentDescriptor {
	return &rpcpb.TaskDeploymentDescriptor{
		Task: rpc.TaskKey("job", gen, graph.SubtaskID{Vertex: vertex}), Slot: &rpcpb.SlotId{TaskManagerId: tmID, Index: int32(vertex)},
		Function: spec, JobMasterAddress: "jm",
	}
}

func (r gatewayRig) submit(t *testing.T, d *rpcpb.TaskDeploymentDescriptor) error {
	t.Helper()
	resp, err := r.te.SubmitTask(context.Background(), d).Wait(context.Background())
	if err != nil {
		t.Fatalf("SubmitTask: %v", err)
	}
	return rpc.DecodeError(resp.GetError())
}

// A deployment that crosses as bytes runs the vertex its function spec
// names; its state changes reach the JobMaster as messages, with their
// counters and, for a failure, the task's own error (errors.Is and
// errors.As still work in one process).
func TestGatewayDeploysAndReports(t *testing.T) {
	cases := []struct {
		name    string
		spec    sourceSpec
		end     scheduler.ExecutionState
		out     int64
		wantErr error
	}{
		{"finishes", sourceSpec{n: 3}, scheduler.ExecFinished, 3, nil},
		{"fails", sourceSpec{fail: true}, scheduler.ExecFailed, 0, errBoom},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rig := newGatewayRig(t, sourceToSink(t, c.spec))
			// The sink first, then the source, whose reports the test
			// follows: the sink's come on the same channel, so the test
			// picks the source's by their vertex. (A failed source leaves
			// the sink running until the TaskManager closes.)
			for _, v := range []int{1, 0} {
				if err := rig.submit(t, rig.descriptorOf(0, v, rig.spec)); err != nil {
					t.Fatal(err)
				}
			}
			var end taskmanager.Report
			states := map[int][]scheduler.ExecutionState{}
			for len(states[0]) < 2 {
				r := rig.updates.next(t)
				states[r.ID.Vertex] = append(states[r.ID.Vertex], r.State)
				if r.ID.Vertex == 0 {
					end = r
				}
			}
			if states[0][0] != scheduler.ExecRunning || states[0][1] != c.end {
				t.Fatalf("source reported %v; want RUNNING then %s", states[0], c.end)
			}
			if end.RecordsOut != c.out || end.Now.IsZero() {
				t.Fatalf("end report: %d records out at %v; want %d", end.RecordsOut, end.Now, c.out)
			}
			var oe *op.Error
			if c.wantErr != nil && (!errors.Is(end.Err, c.wantErr) || !errors.As(end.Err, &oe)) {
				t.Fatalf("err = %v; want the operator's %v", end.Err, c.wantErr)
			}
			if n := rpc.PendingLocal(); n != 0 {
				t.Fatalf("%d embedded references left in the process", n)
			}
		})
	}
}

// Cancel, trigger and notify reach the running subtask through the
// gateway; a trigger of a subtask that does not run is not accepted.
func TestGatewayControlsTheSubtask(t *testing.T) {
	rig := newGatewayRig(t, sourceOnly(t, sourceSpec{n: endless}))
	if err := rig.submit(t, rig.descriptor(0, rig.spec)); err != nil {
		t.Fatal(err)
	}
	rig.updates.expect(t, scheduler.ExecRunning)
	ctx := context.Background()
	accepted := func(gen int) bool {
		resp, err := rig.te.TriggerCheckpoint(ctx, &rpcpb.TriggerCheckpointRequest{
			Task: rpc.TaskKey("job", gen, graph.SubtaskID{}), Barrier: &rpcpb.CheckpointBarrier{Id: 1}}).Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return resp.GetAccepted()
	}
	if accepted(1) {
		t.Fatal("a trigger of another generation was accepted")
	}
	if _, err := rig.te.CancelTask(ctx, &rpcpb.CancelTaskRequest{Task: rpc.TaskKey("job", 0, graph.SubtaskID{})}).Wait(ctx); err != nil {
		t.Fatal(err)
	}
	rig.updates.expect(t, scheduler.ExecCanceled)
	if accepted(0) {
		t.Fatal("a trigger of a cancelled subtask was accepted")
	}
}

// A deployment whose spec names another graph, or no graph of this
// process, is refused with an error that says so; nothing runs and
// nothing is left behind.
func TestGatewayRefusesBadDeployments(t *testing.T) {
	rig := newGatewayRig(t, sourceOnly(t, sourceSpec{n: 1}))
	other := sourceToSink(t, sourceSpec{n: 1})
	wrongGraph := rig.descriptor(0, rig.spec)
	wrongGraph.Function.GraphFingerprint = other.graph.Fingerprint()
	cases := []struct {
		name string
		d    *rpcpb.TaskDeploymentDescriptor
		want error
		text string
	}{
		{"fingerprint mismatch", wrongGraph, funcspec.ErrFingerprintMismatch, "graph fingerprint mismatch"},
		{"unknown spec", rig.descriptor(0, &rpcpb.FunctionSpec{}), funcspec.ErrUnknown, "unknown function spec"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := rig.submit(t, c.d)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("err = %v; want %v", err, c.want)
			}
			if !scheduler.Unrecoverable(err) {
				t.Fatalf("err = %v; want it unrecoverable (a restart deploys the same spec)", err)
			}
			if n := rpc.PendingLocal(); n != 0 {
				t.Fatalf("%d embedded references left in the process", n)
			}
		})
	}
	rig.updates.none(t)
}
