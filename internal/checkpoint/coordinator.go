package checkpoint

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/graph"
)

// Coordinator is the checkpoint coordinator of one job as a pure state
// machine: feed it events with Step, perform what Ready returns. It is not
// safe for concurrent use; the JobMaster's loop owns it.
type Coordinator struct {
	opts  Options
	ix    *index
	tasks *taskTable

	// now is the latest time seen; started is false until the first event
	// with a Now, which starts the periodic schedule.
	now     time.Time
	started bool

	nextID  int64      // the id of the next checkpoint; ids start at 1
	pending []*pending // by increasing id

	retained       []int64 // completed checkpoints, oldest first
	lastCompletion time.Time
	anyCompleted   bool
	// completedCover is the highest id of a completed checkpoint that
	// counts as a final checkpoint for tasks at end of data.
	completedCover int64
	// orphans are checkpoints aborted while the caller persisted them: a
	// successful Persisted for one of them becomes a Discard.
	orphans map[int64]struct{}
	// restoring is set from Restoring to TasksRestarted: nothing is
	// triggered while the tasks are being replaced.
	restoring bool

	failures failureCounter
	decider  decider

	out         []Action
	scheduledAt time.Time // the At of the last ScheduleTick emitted
}

// New returns a coordinator for the topology, with every task running and
// no checkpoint. The options are completed with EnsureDefaults and
// validated; so is the topology.
func New(t *Topology, opts Options) (*Coordinator, error) {
	opts.EnsureDefaults()
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ix, err := compile(t)
	if err != nil {
		return nil, err
	}
	return &Coordinator{
		opts:     opts,
		ix:       ix,
		tasks:    newTaskTable(ix),
		nextID:   1,
		orphans:  make(map[int64]struct{}),
		failures: failureCounter{tolerable: opts.TolerableFailures},
	}, nil
}

// RestoredFrom makes checkpoint ids continue after id, the checkpoint or
// savepoint the job was restored from, as Flink's checkpoint id counter
// does: tasks ignore barriers of ids at or below the one they restored.
// Call it before the first Step.
func (c *Coordinator) RestoredFrom(id int64) {
	if id >= c.nextID {
		c.nextID = id + 1
	}
}

// Step applies one event. It returns an error, and changes nothing, when
// the event is malformed: a task the topology does not have, an unknown
// Kind, or a Persisted for a checkpoint that was never handed out with
// Persist. Acks, declines and Persisted answers for checkpoints that are
// unknown or already ended are not errors: they are late, and ignored.
func (c *Coordinator) Step(ev Event) error {
	if err := c.check(ev); err != nil {
		return err
	}
	if t := eventTime(ev); !t.IsZero() {
		c.advance(t)
	}
	switch ev := ev.(type) {
	case Tick:
	case TriggerRequest:
		c.request(ev.Kind)
	case Ack:
		c.onAck(ev)
	case Decline:
		c.onDecline(ev)
	case TaskEndOfData:
		f, _ := c.ix.flat(ev.Task)
		if c.tasks.endOfData(f, c.nextID) {
			c.decider.endOfDataReported()
		}
	case TaskFinished:
		c.onFinished(ev.Task, ev.LastSnapshot)
	case TasksRestarted:
		c.onRestart(ev)
	case Restoring:
		c.onRestoring()
	case Persisted:
		c.onPersisted(ev)
	}
	c.expire()
	c.maybeTrigger()
	c.reschedule()
	return nil
}

// Ready returns the actions decided since the last call, in order, and
// forgets them. The caller performs them in that order.
func (c *Coordinator) Ready() []Action {
	out := c.out
	c.out = nil
	return out
}

// PendingStatus describes a pending checkpoint, for monitoring and tests.
type PendingStatus struct {
	ID        int64
	Kind      Kind
	Cause     Cause
	Timestamp time.Time
	// NotAcked are the tasks that have yet to acknowledge.
	NotAcked []graph.SubtaskID
	// Persisting is true once every task acknowledged and the coordinator
	// waits for Persisted.
	Persisting bool
}

// Pending describes the pending checkpoints by increasing id.
func (c *Coordinator) Pending() []PendingStatus {
	out := make([]PendingStatus, 0, len(c.pending))
	for _, p := range c.pending {
		s := PendingStatus{ID: p.id, Kind: p.kind, Cause: p.cause, Timestamp: p.timestamp, Persisting: p.persisting}
		for _, t := range p.plan.TasksToWaitFor {
			if f, _ := c.ix.flat(t); p.awaits(f) {
				s.NotAcked = append(s.NotAcked, t)
			}
		}
		out = append(out, s)
	}
	return out
}

// Retained returns the ids of the retained completed checkpoints, oldest
// first.
func (c *Coordinator) Retained() []int64 { return append([]int64(nil), c.retained...) }

func (c *Coordinator) emit(a Action) { c.out = append(c.out, a) }

// advance moves the clock to t; the first time starts the periodic
// schedule.
func (c *Coordinator) advance(t time.Time) {
	if !c.started {
		c.started, c.now = true, t
		c.decider.start(t, c.opts.Interval)
		return
	}
	if t.After(c.now) {
		c.now = t
	}
}

// check validates an event before anything changes.
func (c *Coordinator) check(ev Event) error {
	task := func(t graph.SubtaskID) error {
		if _, ok := c.ix.flat(t); !ok {
			return fmt.Errorf("checkpoint: no task %v in the topology", t)
		}
		return nil
	}
	switch ev := ev.(type) {
	case TriggerRequest:
		if ev.Kind < Checkpoint || ev.Kind > SavepointDrain {
			return fmt.Errorf("checkpoint: unknown %v", ev.Kind)
		}
	case Ack:
		return task(ev.Task)
	case Decline:
		return task(ev.Task)
	case TaskEndOfData:
		return task(ev.Task)
	case TaskFinished:
		return task(ev.Task)
	case TasksRestarted:
		ix := c.ix
		if ev.Topology != nil {
			var err error
			if ix, err = compile(ev.Topology); err != nil {
				return err
			}
		}
		for _, t := range ev.Finished {
			if _, ok := ix.flat(t); !ok {
				return fmt.Errorf("checkpoint: no task %v in the topology", t)
			}
		}
	case Persisted:
		if p := c.find(ev.ID); p != nil && !p.persisting {
			return fmt.Errorf("checkpoint: Persisted for checkpoint %d, which still waits for acks (no Persist was emitted)", ev.ID)
		}
	case Tick, Restoring:
	default:
		return fmt.Errorf("checkpoint: unknown event %T", ev)
	}
	return nil
}

// find returns the pending checkpoint id, or nil.
func (c *Coordinator) find(id int64) *pending {
	for _, p := range c.pending {
		if p.id == id {
			return p
		}
	}
	return nil
}

// remove drops p from the pending checkpoints.
func (c *Coordinator) remove(p *pending) {
	for i, q := range c.pending {
		if q == p {
			c.pending = append(c.pending[:i], c.pending[i+1:]...)
			return
		}
	}
}

// stillRunning filters tasks down to those that have not finished.
func (c *Coordinator) stillRunning(tasks []graph.SubtaskID) []graph.SubtaskID {
	var out []graph.SubtaskID
	for _, t := range tasks {
		if f, _ := c.ix.flat(t); !c.tasks.finished[f] {
			out = append(out, t)
		}
	}
	return out
}
