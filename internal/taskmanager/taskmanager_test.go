package taskmanager_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// plenty is a pool no test here exhausts by accident.
const plenty = 1 << 10

// A submitted subtask reports RUNNING once its operators are open, then how
// it ended, with its counters.
func TestSubmitReportsRunningThenEnd(t *testing.T) {
	type want struct {
		state   scheduler.ExecutionState
		in, out int64
		err     error
	}
	cases := []struct {
		name string
		job  func(*testing.T) job
		want []want // by vertex
	}{
		{"source and sink finish", func(t *testing.T) job { return sourceToSink(t, sourceSpec{n: 5}) },
			[]want{{state: scheduler.ExecFinished, out: 5}, {state: scheduler.ExecFinished, in: 5}}},
		{"empty source finishes", func(t *testing.T) job { return sourceOnly(t, sourceSpec{n: 0}) },
			[]want{{state: scheduler.ExecFinished}}},
		{"failing operator fails", func(t *testing.T) job { return sourceOnly(t, sourceSpec{fail: true}) },
			[]want{{state: scheduler.ExecFailed, err: errBoom}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm, _ := newTM(t, plenty)
			j := c.job(t)
			var rs []reports
			// The consumer first, as the JobMaster deploys; either order
			// works since producer and consumer meet in the registry.
			for v := len(j.graph.Vertices) - 1; v >= 0; v-- {
				d, r := deployment(j, 0, v)
				if err := tm.Submit(d); err != nil {
					t.Fatal(err)
				}
				rs = append([]reports{r}, rs...)
			}
			for v, w := range c.want {
				rs[v].expect(t, scheduler.ExecRunning)
				end := rs[v].expect(t, w.state)
				if end.ID != (graph.SubtaskID{Vertex: v}) || end.Generation != 0 || end.Now.IsZero() {
					t.Errorf("vertex %d: report names %v generation %d at %v", v, end.ID, end.Generation, end.Now)
				}
				if end.RecordsIn != w.in || end.RecordsOut != w.out {
					t.Errorf("vertex %d: records in/out = %d/%d, want %d/%d", v, end.RecordsIn, end.RecordsOut, w.in, w.out)
				}
				if w.err == nil && end.Err != nil || w.err != nil && !errors.Is(end.Err, w.err) {
					t.Errorf("vertex %d: err = %v, want %v", v, end.Err, w.err)
				}
				var oe *op.Error
				if w.err != nil && (!errors.As(end.Err, &oe) || oe.Operator != "src") {
					t.Errorf("vertex %d: err = %v, want it attributed to operator src", v, end.Err)
				}
			}
			if n := tm.NetworkBuffersInUse(); n != 0 {
				t.Fatalf("%d buffers in use after every subtask ended", n)
			}
		})
	}
}

// Cancel ends a running subtask as CANCELED; for a subtask the
// TaskManager does not run (never submitted, or ended) it does nothing.
func TestCancel(t *testing.T) {
	tm, _ := newTM(t, plenty)
	running, rRunning := deployment(sourceOnly(t, sourceSpec{n: endless}), 0, 0)
	ended, rEnded := deployment(sourceOnly(t, sourceSpec{n: 1}), 1, 0)
	for _, d := range []taskmanager.Deployment{running, ended} {
		if err := tm.Submit(d); err != nil {
			t.Fatal(err)
		}
	}
	rRunning.expect(t, scheduler.ExecRunning)
	rEnded.expect(t, scheduler.ExecRunning)
	rEnded.expect(t, scheduler.ExecFinished)

	tm.Cancel("job", 1, ended.ID)                               // ended
	tm.Cancel("job", 0, graph.SubtaskID{Vertex: 0, Subtask: 7}) // never submitted
	tm.Cancel("other job", 0, running.ID)                       // another job's
	tm.Cancel("job", 5, running.ID)                             // another generation's
	tm.Cancel("job", 0, running.ID)                             // the running one
	rRunning.expect(t, scheduler.ExecCanceled)
	tm.Cancel("job", 0, running.ID) // again, now ended
	tm.Close()
	// Close waited for every subtask goroutine: no report can come later.
	rRunning.none(t)
	rEnded.none(t)
}

// Submit refuses what it cannot run, and then holds no buffers for it.
func TestSubmitErrors(t *testing.T) {
	one := func(t *testing.T) job { return sourceOnly(t, sourceSpec{n: endless}) }
	two := func(t *testing.T) job { return sourceToSink(t, sourceSpec{n: endless}) }
	cases := []struct {
		name    string
		job     func(*testing.T) job
		pool    func(job) int
		vertex  int
		twice   bool
		wantErr string
		wantIs  error
	}{
		{name: "negative vertex", job: one, vertex: -1, wantErr: "unknown vertex -1"},
		{name: "vertex past the graph", job: one, vertex: 1, wantErr: "unknown vertex 1"},
		{name: "same subtask twice", job: one, twice: true, wantErr: "subtask 0/0 already runs"},
		{name: "same subtask with channels twice", job: two, vertex: 1, twice: true, wantErr: "subtask 1/0 already runs"},
		{name: "pool too small", job: two, vertex: 1, pool: func(j job) int { return buffersOf(j.graph, 1) - 1 },
			wantErr: "insufficient network buffers", wantIs: network.ErrInsufficientBuffers},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := c.job(t)
			pool := plenty
			if c.pool != nil {
				pool = c.pool(j)
			}
			tm, _ := newTM(t, pool)
			d, r := deployment(j, 0, c.vertex)
			if c.twice {
				if err := tm.Submit(d); err != nil {
					t.Fatal(err)
				}
				r.expect(t, scheduler.ExecRunning)
			}
			inUse := tm.NetworkBuffersInUse()
			err := tm.Submit(d)
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), tmID) {
				t.Fatalf("err = %v, want one naming %s and saying %q", err, tmID, c.wantErr)
			}
			if c.wantIs != nil && !errors.Is(err, c.wantIs) {
				t.Fatalf("err = %v, want errors.Is %v", err, c.wantIs)
			}
			if n := tm.NetworkBuffersInUse(); n != inUse {
				t.Fatalf("a refused subtask left %d buffers in use, %d before", n, inUse)
			}
			if c.twice {
				// The first one still runs, and only it ends.
				tm.Close()
				r.expect(t, scheduler.ExecCanceled)
				r.none(t)
			}
		})
	}
}

// TriggerCheckpoint and NotifyCheckpoint reach a running subtask; for one
// that does not run the trigger reports false and the notification is
// dropped.
func TestCheckpointMessages(t *testing.T) {
	tm, _ := newTM(t, plenty)
	j := sourceOnly(t, sourceSpec{n: endless})
	d, r := deployment(j, 0, 0)
	a := newAcks()
	st := newStorage(t)
	d.Init = taskmanager.Init{Checkpointing: true, Checkpoints: a, CheckpointStorage: st.Root()}
	if err := tm.Submit(d); err != nil {
		t.Fatal(err)
	}
	r.expect(t, scheduler.ExecRunning)

	for _, c := range []struct {
		id       int64
		complete bool
		want     string
	}{{1, true, "complete(1)"}, {2, false, "aborted(2)"}} {
		b := checkpointAt(t, st, c.id)
		if !tm.TriggerCheckpoint("job", 0, d.ID, b) {
			t.Fatalf("trigger %d refused by a running subtask", c.id)
		}
		if id := <-a.acked; id != c.id {
			t.Fatalf("acknowledged %d, want %d", id, c.id)
		}
		if s := <-a.states; s.Location != b.Location {
			t.Fatalf("acknowledged state at %q, want the barrier's %q", s.Location, b.Location)
		}
		tm.NotifyCheckpoint("job", 0, d.ID, c.id, c.complete)
		if got := <-j.notified; got != c.want {
			t.Fatalf("source notified %s, want %s", got, c.want)
		}
	}
	if tm.TriggerCheckpoint("job", 1, d.ID, network.CheckpointBarrier{ID: 3}) {
		t.Fatal("trigger of another generation's subtask accepted")
	}
	tm.NotifyCheckpoint("job", 1, d.ID, 2, true)

	tm.Cancel("job", 0, d.ID)
	r.expect(t, scheduler.ExecCanceled)
	if tm.TriggerCheckpoint("job", 0, d.ID, network.CheckpointBarrier{ID: 3}) {
		t.Fatal("trigger of an ended subtask accepted")
	}
	tm.NotifyCheckpoint("job", 0, d.ID, 3, true)
	// The subtask's goroutine has ended (it reported CANCELED last): no
	// acknowledgement or notification can still come.
	for name, ch := range map[string]<-chan int64{"acked": a.acked, "declined": a.declined} {
		if len(ch) != 0 {
			t.Errorf("%s: %d more", name, len(ch))
		}
	}
	if len(j.notified) != 0 {
		t.Errorf("source notified once more: %s", <-j.notified)
	}
}

// Close cancels every running subtask and returns once all of them ended:
// their last reports are already there, and their buffers are back.
func TestCloseCancelsAndWaits(t *testing.T) {
	tm, _ := newTM(t, plenty)
	var rs []reports
	for gen := range 2 {
		j := sourceToSink(t, sourceSpec{n: endless})
		for v := range j.graph.Vertices {
			d, r := deployment(j, gen, v)
			if err := tm.Submit(d); err != nil {
				t.Fatal(err)
			}
			r.expect(t, scheduler.ExecRunning)
			rs = append(rs, r)
		}
	}
	tm.Close()
	for i, r := range rs {
		select {
		case rep := <-r:
			if rep.State != scheduler.ExecCanceled {
				t.Errorf("subtask %d ended %s (err %v), want CANCELED", i, rep.State, rep.Err)
			}
		default:
			t.Errorf("subtask %d had not reported its end when Close returned", i)
		}
	}
	if n := tm.NetworkBuffersInUse(); n != 0 {
		t.Fatalf("%d buffers in use after Close", n)
	}
}

// Slots are the TaskManager's own, numbered from zero.
func TestSlots(t *testing.T) {
	for _, n := range []int{0, 1, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tm := taskmanager.New("tm-7", n, network.NewRegistry(), network.NewBufferPool(0, network.DefaultBufferSize), task.Config{}, nil)
			defer tm.Close()
			want := []slots.ID{}
			for i := range n {
				want = append(want, slots.ID{TaskManager: "tm-7", Index: i})
			}
			if got := tm.Slots(); !slices.Equal(got, want) || len(got) != n {
				t.Fatalf("slots = %v, want %v", got, want)
			}
			if tm.ID() != "tm-7" {
				t.Fatalf("id = %q", tm.ID())
			}
		})
	}
}

// A subtask gives its buffers back however it ends, so that a pool that
// holds exactly one deployment of a job runs it again and again.
func TestBuffersReturnedWhenSubtasksEnd(t *testing.T) {
	const src, sink = 0, 1
	cases := []struct {
		name   string
		spec   sourceSpec
		cancel []int // vertices to cancel once both run
		want   []scheduler.ExecutionState
	}{
		{"cancelled", sourceSpec{n: endless}, []int{sink, src}, []scheduler.ExecutionState{scheduler.ExecCanceled, scheduler.ExecCanceled}},
		{"finished", sourceSpec{n: 3}, nil, []scheduler.ExecutionState{scheduler.ExecFinished, scheduler.ExecFinished}},
		{"failed", sourceSpec{fail: true}, []int{sink}, []scheduler.ExecutionState{scheduler.ExecFailed, scheduler.ExecCanceled}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := sourceToSink(t, c.spec)
			need := buffersOf(j.graph, src, sink)
			if need == 0 {
				t.Fatal("the job takes no buffers: the test proves nothing")
			}
			tm, net := newTM(t, need)
			if tm.NetworkCapacity().Buffers != need {
				t.Fatalf("pool of %v, want %d buffers", tm.NetworkCapacity(), need)
			}
			for gen := range 5 {
				rs := make([]reports, 2)
				var ds [2]taskmanager.Deployment
				for _, v := range []int{sink, src} {
					ds[v], rs[v] = deployment(j, gen, v)
					if err := tm.Submit(ds[v]); err != nil {
						t.Fatalf("generation %d: %v", gen, err)
					}
				}
				rs[sink].expect(t, scheduler.ExecRunning)
				rs[src].expect(t, scheduler.ExecRunning)
				if c.spec.n == endless {
					if n := tm.NetworkBuffersInUse(); n != need {
						t.Fatalf("generation %d: %d buffers in use while it runs, want %d", gen, n, need)
					}
					// The pool is full: one more subtask cannot have buffers.
					extra, _ := deployment(j, gen+100, sink)
					if err := tm.Submit(extra); !errors.Is(err, network.ErrInsufficientBuffers) {
						t.Fatalf("generation %d: submit beyond the pool: err = %v", gen, err)
					}
				}
				for _, v := range c.cancel {
					tm.Cancel("job", gen, ds[v].ID)
				}
				for v, want := range c.want {
					rs[v].expect(t, want)
				}
				// Buffers go back before the end is reported.
				if n := tm.NetworkBuffersInUse(); n != 0 {
					t.Fatalf("generation %d: %d buffers in use after both ended", gen, n)
				}
				net.ReleaseJob("job", gen)
			}
		})
	}
}

// A TaskManager that was closed refuses new subtasks, and gives their
// buffers back.
func TestSubmitAfterCloseIsRefused(t *testing.T) {
	tm, _ := newTM(t, plenty)
	tm.Close()
	d, r := deployment(sourceOnly(t, sourceSpec{n: endless}), 0, 0)
	if err := tm.Submit(d); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("submit after close: err = %v, want it refused", err)
	}
	if n := tm.NetworkBuffersInUse(); n != 0 {
		t.Errorf("a refused subtask left %d buffers in use", n)
	}
	r.none(t)
}
