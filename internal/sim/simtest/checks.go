package simtest

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/sim"
	"google.golang.org/protobuf/proto"
)

// The properties every run checks:
//
//   - the job ends in the expected state within the virtual-time limit
//     (Run);
//   - no checkpoint completes without the acknowledgement of every
//     subtask of the generation that did not finish (delivered to the
//     JobMaster's gateway);
//   - completed checkpoint ids increase;
//   - every deployment restores the latest completed checkpoint (none
//     before the first);
//   - nothing is deployed to a TaskManager after the JobMaster was told it
//     is lost.
//
// The test checks the last one: a seed's trace is the same on a second run.

// ackKey is an acknowledgement delivered to the JobMaster.
type ackKey struct {
	task string // v/s@g
	id   int64
}

// Restore is a deployment as the JobMaster sent it.
type Restore struct {
	Generation int
	Checkpoint int64
	TM         string
	At         time.Duration
}

type checks struct {
	Violations []string
	acked      map[ackKey]bool
	finished   map[string]bool // v/s@g
	// lost are the TaskManagers the JobMaster was told are lost; told
	// those it is told in the current event, until its loop handled it.
	lost, telling map[string]bool
	state         scheduler.JobStatus
	completed     int
	// Completed are the completed checkpoint ids in order; Restores the
	// deployments.
	Completed []int64
	Restores  []Restore
	turn      []Restore
}

func (k *checks) init() {
	k.acked, k.finished, k.lost, k.telling = map[ackKey]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
}

func (c *Cluster) violate(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.Violations = append(c.Violations, msg)
	c.W.Tracef("VIOLATION: %s", msg)
}

// told records that the JobMaster was told tm is lost; it counts once its
// loop handled that.
func (c *Cluster) told(tm string) { c.telling[tm] = true }

// sent sees a request as its caller sends it.
func (c *Cluster) sent(from, addr, method string, req proto.Message) {
	if from != jobManagerNode {
		return
	}
	switch m := req.(type) {
	case *rpcpb.TaskDeploymentDescriptor:
		if c.lost[addr] {
			c.violate("%s deployed to %s, which the JobMaster was told is lost", taskName(m.GetTask()), addr)
		}
		r := Restore{Generation: int(m.GetTask().GetGeneration()), Checkpoint: m.GetRestore().GetCheckpointId(), TM: addr,
			At: c.W.Now().Sub(sim.Epoch)}
		c.turn = append(c.turn, r)
		c.Restores = append(c.Restores, r)
		if m.GetRestore().GetFinishedOnRestore() {
			c.finished[taskName(m.GetTask())] = true
		}
		if c.OnSubmit != nil {
			c.OnSubmit(addr, m)
		}
	case *rpcpb.TriggerCheckpointRequest:
		if c.OnTrigger != nil {
			c.OnTrigger(m.GetBarrier().GetId())
		}
	}
}

// delivered sees a request as the callee's gateway gets it.
func (c *Cluster) delivered(_, _, method string, req proto.Message) {
	switch m := req.(type) {
	case *rpcpb.AcknowledgeCheckpoint:
		c.acked[ackKey{taskName(m.GetTask()), m.GetCheckpointId()}] = true
	case *rpcpb.TaskExecutionState:
		if m.GetState() == rpcpb.ExecutionState_EXECUTION_STATE_FINISHED {
			c.finished[taskName(m.GetTask())] = true
		}
	}
}

// observe checks the JobMaster after a turn of its loop.
func (c *Cluster) observe() {
	for tm := range c.telling {
		c.lost[tm] = true
	}
	clear(c.telling)
	st := c.JM.Status()
	if st.State != c.state {
		c.W.Tracef("job %s, generation %d", st.State, st.Generation)
		c.state = st.State
	}
	cs := st.Checkpoints
	if cs.Completed > c.completed {
		id := cs.LatestID
		c.W.Tracef("checkpoint %d completed", id)
		if n := len(c.Completed); n > 0 && id <= c.Completed[n-1] {
			c.violate("checkpoint %d completed after checkpoint %d", id, c.Completed[n-1])
		}
		c.Completed = append(c.Completed, id)
		c.completed = cs.Completed
		c.checkAcks(id, st.Generation)
		if c.OnCompleted != nil {
			c.OnCompleted(id)
		}
	}
	for _, r := range c.turn {
		if r.Checkpoint != cs.LatestID {
			c.violate("generation %d deployed to %s restores checkpoint %d, the latest completed is %d", r.Generation, r.TM, r.Checkpoint, cs.LatestID)
		}
	}
	c.turn = c.turn[:0]
}

// checkAcks checks that every subtask of generation gen acknowledged
// checkpoint id or had finished.
func (c *Cluster) checkAcks(id int64, gen int) {
	for _, v := range c.graph.Vertices {
		for s := range v.Parallelism {
			name := fmt.Sprintf("v%d/s%d@g%d", v.ID, s, gen)
			if !c.acked[ackKey{name, id}] && !c.finished[name] {
				c.violate("checkpoint %d completed without the acknowledgement of %s", id, name)
			}
		}
	}
}

// checkEnd checks how the job ended.
func (c *Cluster) checkEnd() {
	want := c.cfg.Want
	if want == "" {
		want = scheduler.Finished
	}
	if c.Result.Status != want {
		c.violate("the job ended %s (%v), want %s", c.Result.Status, c.Result.Err, want)
	}
}
