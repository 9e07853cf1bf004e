package adaptive_test

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// cluster plays the JobMaster and the TaskManagers for a Scheduler: it
// answers every CreateExecutionGraph at once, runs deployed subtasks,
// cancels them when asked, fails those whose TaskManager left, and fires
// timeouts on a virtual clock. It records when the scheduler entered
// Executing and when it decided to rescale.
type cluster struct {
	s        *adaptive.Scheduler
	now      time.Time
	tms      map[string]int // slots per TaskManager present
	timers   []adaptive.ScheduleTimeout
	running  map[graph.SubtaskID]slots.ID
	gen      int
	queue    []any
	entered  []time.Time // Executing
	rescales []adaptive.Rescaling
	failures int
	deploys  int
	ended    *scheduler.Terminated
}

func (c *cluster) step(ev any) {
	c.queue = append(c.queue, ev)
	for len(c.queue) > 0 {
		ev := c.queue[0]
		c.queue = c.queue[1:]
		c.s.Step(ev)
		for _, a := range c.s.Ready() {
			c.act(a)
		}
	}
}

func (c *cluster) act(a any) {
	switch a := a.(type) {
	case adaptive.Transitioned:
		if a.To == "Executing" {
			c.entered = append(c.entered, c.now)
		}
	case adaptive.ScheduleTimeout:
		c.timers = append(c.timers, a)
	case adaptive.CreateExecutionGraph:
		c.gen = a.Generation
		c.queue = append(c.queue, adaptive.ExecutionGraphCreated{Generation: a.Generation, Now: c.now})
	case scheduler.Deploy:
		c.deploys++
		c.running = make(map[graph.SubtaskID]slots.ID)
		lost := false
		for _, as := range a.Plan.Assignments {
			id := as.SubtaskID
			c.running[id] = as.Slot
			state := scheduler.ExecRunning
			if c.tms[as.Slot.TaskManager] <= as.Slot.Index {
				state, lost = scheduler.ExecFailed, true // deployed to a slot that just left
			}
			c.queue = append(c.queue, c.report(id, state))
		}
		if lost {
			c.failures++
		}
	case scheduler.CancelTasks:
		for _, id := range a.IDs {
			c.queue = append(c.queue, c.report(id, scheduler.ExecCanceled))
		}
	case adaptive.Rescaling:
		c.rescales = append(c.rescales, a)
	case scheduler.Terminated:
		c.ended = &a
	}
}

func (c *cluster) report(id graph.SubtaskID, st scheduler.ExecutionState) scheduler.TaskState {
	ev := scheduler.TaskState{ID: id, Generation: c.gen, State: st, Now: c.now}
	if st == scheduler.ExecFailed {
		ev.Err = fmt.Errorf("%v lost", c.running[id].TaskManager)
	}
	return ev
}

// setTM makes a TaskManager offer n slots (0: it left): the subtasks in
// slots it no longer offers fail, which counts as one failure.
func (c *cluster) setTM(tm string, n int) {
	var lost []graph.SubtaskID
	for id, slot := range c.running {
		if slot.TaskManager == tm && slot.Index >= n {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		c.failures++
	}
	c.tms[tm] = n
	ev := adaptive.ResourcesChanged{Now: c.now}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range c.tms {
			if !yield(k) {
				return
			}
		}
	}) {
		for i := range c.tms[name] {
			ev.Slots = append(ev.Slots, slots.ID{TaskManager: name, Index: i})
		}
	}
	c.step(ev)
	slices.SortFunc(lost, func(a, b graph.SubtaskID) int { return cmp.Or(a.Vertex-b.Vertex, a.Subtask-b.Subtask) })
	for _, id := range lost {
		c.step(c.report(id, scheduler.ExecFailed))
	}
}

// advance moves the clock, firing due timeouts in order.
func (c *cluster) advance(d time.Duration) {
	end := c.now.Add(d)
	for {
		slices.SortStableFunc(c.timers, func(a, b adaptive.ScheduleTimeout) int { return a.At.Compare(b.At) })
		if len(c.timers) == 0 || c.timers[0].At.After(end) {
			break
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		c.now = t.At
		ev := t.Timeout
		ev.Now = c.now
		c.step(ev)
	}
	c.now = end
}

// TestFlappingNoRestartStorm flaps TaskManagers at random for a virtual
// hour and checks that the cooldown holds: the scheduler decides a
// rescale only a full cooldown after it last started executing, and every
// other new generation follows a subtask failure (whose restarts the
// strategy's backoff spaces). The job never ends.
func TestFlappingNoRestartStorm(t *testing.T) {
	const cooldown = 30 * time.Second
	rapid.Check(t, func(rt *rapid.T) {
		s, err := adaptive.New([]allocator.Vertex{{ID: 0, Max: 8, MaxParallelism: 128}, {ID: 1, MaxParallelism: 1}},
			&scheduler.FixedDelay{Attempts: 1 << 30, Delay: time.Second},
			adaptive.Options{Mode: rapid.SampledFrom([]adaptive.Mode{adaptive.Default, adaptive.Reactive}).Draw(rt, "mode")})
		if err != nil {
			rt.Fatal(err)
		}
		c := &cluster{s: s, now: t0, tms: map[string]int{}}
		c.setTM("stable", 1)
		c.step(adaptive.Start{Now: c.now})
		for range rapid.IntRange(1, 200).Draw(rt, "flaps") {
			c.advance(time.Duration(rapid.IntRange(0, 20_000).Draw(rt, "gapMillis")) * time.Millisecond)
			tm := rapid.SampledFrom([]string{"flappy-1", "flappy-2"}).Draw(rt, "tm")
			c.setTM(tm, rapid.IntRange(0, 3).Draw(rt, "slots"))
		}
		c.advance(time.Hour)
		if c.ended != nil {
			rt.Fatalf("the job ended: %+v", *c.ended)
		}
		for _, r := range c.rescales {
			i, _ := slices.BinarySearchFunc(c.entered, r.Now, func(a, b time.Time) int { return a.Compare(b) })
			if i == 0 {
				rt.Fatalf("rescale at %v before the job executed", r.Now.Sub(t0))
			}
			if since := r.Now.Sub(c.entered[i-1]); since < cooldown {
				rt.Fatalf("rescale at %v only %v after the job started executing", r.Now.Sub(t0), since)
			}
		}
		if c.deploys > 1+len(c.rescales)+c.failures {
			rt.Fatalf("%d generations for %d rescales and %d failures", c.deploys, len(c.rescales), c.failures)
		}
		// The job ends up running at every slot it can use.
		if got, want := s.Parallelism()[0], min(8, 1+c.tms["flappy-1"]+c.tms["flappy-2"]); s.State() != "Executing" || got != want {
			rt.Fatalf("after the flapping: %s at %v, want Executing at %d", s.State(), s.Parallelism(), want)
		}
	})
}
