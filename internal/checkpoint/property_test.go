package checkpoint

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/graph"
)

// model is what the test driver knows: what it told the coordinator and
// what the coordinator told it. It checks every action against that.
type model struct {
	t    *rapid.T
	top  *Topology
	opts Options
	c    *Coordinator
	now  time.Time

	all      []graph.SubtaskID
	finished map[graph.SubtaskID]bool
	lastID   int64
	out      map[int64]*outstanding // triggered, not ended
	ended    map[int64]bool
	done     map[int64]bool // completed
	// completedWaitFor keeps the tasks a completed checkpoint waited for.
	completedWaitFor map[int64]map[graph.SubtaskID]bool
	// restoring is set from Restoring to TasksRestarted.
	restoring bool
}

type outstanding struct {
	kind          Kind
	waitFor       map[graph.SubtaskID]bool
	finishedAtTrg map[graph.SubtaskID]bool
	acked         map[graph.SubtaskID]bool
	triggered     map[graph.SubtaskID]bool
	persist       bool // Persist seen
	persisted     bool // Persisted ok sent
}

func TestCoordinatorProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := newModel(rt)
		steps := rapid.IntRange(1, 120).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			m.randomStep()
		}
		m.drain()
	})
}

func newModel(t *rapid.T) *model {
	top := genTopology(t)
	opts := Options{
		Enabled:                    rapid.IntRange(0, 5).Draw(t, "enabled") > 0,
		Interval:                   time.Duration(rapid.IntRange(10, 100).Draw(t, "interval")) * time.Millisecond,
		Timeout:                    time.Duration(rapid.IntRange(50, 400).Draw(t, "timeout")) * time.Millisecond,
		MinPauseBetween:            time.Duration(rapid.IntRange(0, 100).Draw(t, "minpause")) * time.Millisecond,
		MaxConcurrent:              rapid.IntRange(1, 3).Draw(t, "maxconcurrent"),
		TolerableFailures:          rapid.IntRange(-1, 2).Draw(t, "tolerable"),
		Retained:                   rapid.IntRange(1, 3).Draw(t, "retained"),
		FinalCheckpointOnEndOfData: rapid.Bool().Draw(t, "final"),
	}
	c, err := New(top, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := &model{
		t: t, top: top, opts: opts, c: c, now: epoch,
		finished: map[graph.SubtaskID]bool{},
		out:      map[int64]*outstanding{},
		ended:    map[int64]bool{},
		done:     map[int64]bool{},

		completedWaitFor: map[int64]map[graph.SubtaskID]bool{},
	}
	for _, v := range top.Vertices {
		for s := 0; s < v.Parallelism; s++ {
			m.all = append(m.all, graph.SubtaskID{Vertex: v.ID, Subtask: s})
		}
	}
	m.step(Tick{Now: m.now})
	return m
}

func (m *model) randomStep() {
	t := m.t
	switch rapid.IntRange(0, 12).Draw(t, "event") {
	case 0, 1:
		m.now = m.now.Add(time.Duration(rapid.IntRange(0, 150).Draw(t, "advance")) * time.Millisecond)
		m.step(Tick{Now: m.now})
	case 2:
		m.step(TriggerRequest{Now: m.now, Kind: Kind(rapid.IntRange(0, 3).Draw(t, "kind"))})
	case 3, 4, 5:
		id := m.pickID("ack-id")
		m.step(Ack{ID: id, Task: m.pickTask("ack-task", id), State: fmt.Sprint(id)})
	case 6:
		id := m.pickID("decline-id")
		m.step(Decline{ID: id, Task: m.pickTask("decline-task", id), Reason: errors.New("no")})
	case 7:
		m.step(TaskEndOfData{Task: rapid.SampledFrom(m.all).Draw(t, "eod"), Now: m.now})
	case 8:
		task := rapid.SampledFrom(m.all).Draw(t, "finish")
		m.finished[task] = true
		m.step(TaskFinished{Task: task, Now: m.now})
	case 9, 10:
		var ids []int64
		for id, o := range m.out {
			if o.persist && !o.persisted {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return
		}
		slices.Sort(ids)
		id := rapid.SampledFrom(ids).Draw(t, "persisted")
		if rapid.IntRange(0, 4).Draw(t, "persist-fails") == 0 {
			m.step(Persisted{ID: id, Err: errors.New("disk")})
			return
		}
		m.out[id].persisted = true
		m.step(Persisted{ID: id, Location: fmt.Sprintf("/cp/%d", id)})
	case 11:
		if rapid.IntRange(0, 3).Draw(t, "restart") > 0 {
			return
		}
		// Restore with the fully finished vertices finished.
		var fin []graph.SubtaskID
		m.finished = map[graph.SubtaskID]bool{}
		for _, v := range m.top.Vertices {
			if rapid.IntRange(0, 3).Draw(t, "restored-finished") == 0 {
				for s := 0; s < v.Parallelism; s++ {
					fin = append(fin, graph.SubtaskID{Vertex: v.ID, Subtask: s})
					m.finished[graph.SubtaskID{Vertex: v.ID, Subtask: s}] = true
				}
			}
		}
		m.restoring = false
		m.step(TasksRestarted{Now: m.now, Finished: fin})
	case 12:
		if rapid.IntRange(0, 2).Draw(t, "restoring") > 0 {
			return
		}
		m.restoring = true
		m.step(Restoring{Now: m.now})
	}
}

// pickID draws mostly an outstanding checkpoint, sometimes any id.
func (m *model) pickID(label string) int64 {
	ids := slices.Sorted(maps.Keys(m.out))
	if len(ids) > 0 && rapid.IntRange(0, 5).Draw(m.t, label+"-known") > 0 {
		return rapid.SampledFrom(ids).Draw(m.t, label)
	}
	return int64(rapid.IntRange(0, int(m.lastID)+2).Draw(m.t, label))
}

// pickTask draws mostly a task the checkpoint waits for.
func (m *model) pickTask(label string, id int64) graph.SubtaskID {
	if o, ok := m.out[id]; ok && len(o.waitFor) > 0 && rapid.IntRange(0, 5).Draw(m.t, label+"-waited") > 0 {
		ts := slices.SortedFunc(maps.Keys(o.waitFor), cmpTask)
		return rapid.SampledFrom(ts).Draw(m.t, label)
	}
	return rapid.SampledFrom(m.all).Draw(m.t, label)
}

func cmpTask(a, b graph.SubtaskID) int {
	if a.Vertex != b.Vertex {
		return a.Vertex - b.Vertex
	}
	return a.Subtask - b.Subtask
}

func (m *model) step(ev Event) {
	if err := m.c.Step(ev); err != nil {
		m.t.Fatalf("Step(%#v): %v", ev, err)
	}
	if a, ok := ev.(Ack); ok {
		if o := m.out[a.ID]; o != nil && !o.persist {
			o.acked[a.Task] = true
		}
	}
	switch ev.(type) {
	case TasksRestarted, Restoring:
		// Every checkpoint pending before a failover ends with it.
		before := slices.Sorted(maps.Keys(m.out))
		defer func() {
			for _, id := range before {
				if !m.ended[id] {
					m.t.Fatalf("checkpoint %d survived a failover", id)
				}
			}
		}()
	}
	for _, a := range m.c.Ready() {
		m.check(a)
	}
	nonSavepoints := 0
	for _, o := range m.out {
		if !o.kind.IsSavepoint() {
			nonSavepoints++
		}
	}
	if nonSavepoints > m.opts.MaxConcurrent {
		m.t.Fatalf("%d checkpoints pending, MaxConcurrent %d", nonSavepoints, m.opts.MaxConcurrent)
	}
}

func (m *model) check(a Action) {
	t := m.t
	switch a := a.(type) {
	case Trigger:
		if m.restoring {
			t.Fatalf("trigger %d while the tasks are being restored", a.ID)
		}
		if a.Again {
			m.checkRetrigger(a)
			return
		}
		if a.ID <= m.lastID {
			t.Fatalf("trigger id %d after %d", a.ID, m.lastID)
		}
		m.lastID = a.ID
		o := &outstanding{kind: a.Kind, waitFor: map[graph.SubtaskID]bool{}, finishedAtTrg: map[graph.SubtaskID]bool{}, acked: map[graph.SubtaskID]bool{}, triggered: map[graph.SubtaskID]bool{}}
		for _, task := range m.all {
			if m.finished[task] {
				o.finishedAtTrg[task] = true
			} else {
				o.waitFor[task] = true
			}
		}
		if len(o.waitFor) == 0 {
			t.Fatalf("trigger %d with no running task", a.ID)
		}
		want := naivePlan(m.top, func(id graph.SubtaskID) bool { return m.finished[id] }).TasksToTrigger
		if !slices.Equal(a.Tasks, want) {
			t.Fatalf("trigger %d tasks %v, want roots %v", a.ID, a.Tasks, want)
		}
		for _, task := range a.Tasks {
			o.triggered[task] = true
		}
		m.out[a.ID] = o
	case Persist:
		o := m.out[a.ID]
		if o == nil || o.persist {
			t.Fatalf("persist %d: not pending or twice", a.ID)
		}
		o.persist = true
		// A task the checkpoint waited for either acknowledged it or, having
		// reached the end of its data before the trigger, finished without
		// it and is listed among the finished tasks.
		late := map[graph.SubtaskID]bool{}
		for task := range o.waitFor {
			_, hasState := a.States[task]
			switch {
			case hasState && o.acked[task]:
			case !hasState && m.finished[task] && slices.Contains(a.Finished, task):
				late[task] = true
			default:
				t.Fatalf("persist %d misses the ack of %v", a.ID, task)
			}
		}
		if len(a.States) != len(o.waitFor)-len(late) {
			t.Fatalf("persist %d: %d states for %d waited tasks", a.ID, len(a.States), len(o.waitFor)-len(late))
		}
		var fin []graph.SubtaskID
		for task := range o.finishedAtTrg {
			fin = append(fin, task)
		}
		for task := range late {
			fin = append(fin, task)
		}
		slices.SortFunc(fin, cmpTask)
		got := slices.Clone(a.Finished)
		slices.SortFunc(got, cmpTask)
		if !slices.Equal(fin, got) {
			t.Fatalf("persist %d: finished %v, want %v", a.ID, a.Finished, fin)
		}
		// A vertex is fully finished exactly when every subtask is listed
		// as finished.
		var fully []int
		for _, v := range m.top.Vertices {
			n := 0
			for _, task := range fin {
				if task.Vertex == v.ID {
					n++
				}
			}
			if n == v.Parallelism {
				fully = append(fully, v.ID)
			}
		}
		gotFully := slices.Sorted(slices.Values(a.FullyFinishedVertices))
		slices.Sort(fully)
		if !slices.Equal(fully, gotFully) {
			t.Fatalf("persist %d: fully finished %v, want %v", a.ID, a.FullyFinishedVertices, fully)
		}
	case Completed:
		if m.restoring {
			t.Fatalf("checkpoint %d completed while the tasks are being restored", a.ID)
		}
		o := m.out[a.ID]
		if o == nil || !o.persist || !o.persisted {
			t.Fatalf("completed %d without Persist and Persisted", a.ID)
		}
		delete(m.out, a.ID)
		m.ended[a.ID], m.done[a.ID] = true, true
		m.completedWaitFor[a.ID] = o.waitFor
	case Failed:
		if a.ID == 0 {
			return // a refused request
		}
		if m.out[a.ID] == nil {
			t.Fatalf("failed %d: not pending", a.ID)
		}
		delete(m.out, a.ID)
		m.ended[a.ID] = true
	case NotifyComplete:
		if !m.done[a.ID] {
			t.Fatalf("notify-complete %d before Completed", a.ID)
		}
		for _, task := range a.Tasks {
			if m.finished[task] {
				t.Fatalf("notify-complete %d to finished %v", a.ID, task)
			}
		}
		for _, task := range a.Tasks {
			if !m.completedWaitFor[a.ID][task] {
				t.Fatalf("notify-complete %d to %v, which it did not wait for", a.ID, task)
			}
		}
	case NotifyAborted:
		for _, task := range a.Tasks {
			if m.finished[task] {
				t.Fatalf("notify-aborted %d to finished %v", a.ID, task)
			}
		}
	case Subsumed:
		for _, id := range a.IDs {
			if !m.done[id] {
				t.Fatalf("subsumed %d, which never completed", id)
			}
		}
	case ScheduleTick:
		if !a.At.IsZero() && !a.At.After(m.now) {
			t.Fatalf("schedule-tick at %v, not after now %v", a.At, m.now)
		}
	case JobFailure, Discard:
	default:
		t.Fatalf("unknown action %T", a)
	}
}

// checkRetrigger checks a Trigger of a pending checkpoint: it goes to
// roots of the current plan that the checkpoint waits for, and that it did
// not reach before.
func (m *model) checkRetrigger(a Trigger) {
	t := m.t
	o := m.out[a.ID]
	if o == nil || o.persist {
		t.Fatalf("trigger %d again: not pending, or persisting", a.ID)
	}
	roots := naivePlan(m.top, func(id graph.SubtaskID) bool { return m.finished[id] }).TasksToTrigger
	for _, task := range a.Tasks {
		if !slices.Contains(roots, task) || !o.waitFor[task] || o.acked[task] || o.triggered[task] {
			t.Fatalf("trigger %d again to %v: not a root %v it waits for and did not trigger", a.ID, task, roots)
		}
		o.triggered[task] = true
	}
	if len(a.Tasks) == 0 {
		t.Fatalf("trigger %d again to no task", a.ID)
	}
}

// drain delivers every ack the outstanding checkpoints wait for and
// answers every Persist, then lets the timeout pass: every checkpoint
// triggered so far must have ended.
func (m *model) drain() {
	before := slices.Sorted(maps.Keys(m.out))
	for round := 0; round < 3; round++ {
		for _, id := range slices.Sorted(maps.Keys(m.out)) {
			o := m.out[id]
			if o == nil {
				continue
			}
			for _, task := range slices.SortedFunc(maps.Keys(o.waitFor), cmpTask) {
				if m.out[id] != nil && !o.acked[task] {
					m.step(Ack{ID: id, Task: task})
				}
			}
			if m.out[id] != nil && o.persist && !o.persisted {
				o.persisted = true
				m.step(Persisted{ID: id, Location: "/x"})
			}
		}
	}
	m.now = m.now.Add(m.opts.Timeout)
	m.step(Tick{Now: m.now})
	for _, id := range before {
		if !m.ended[id] {
			m.t.Fatalf("checkpoint %d never ended", id)
		}
	}
}
