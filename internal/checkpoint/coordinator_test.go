package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/weir-engine/weir/internal/graph"
)

// TestCoordinator runs the scripts in testdata. Each command steps the
// coordinator and prints what Ready returned, one action a line; times are
// offsets from the start of the script's virtual clock.
//
//	topology v0=2 v1=2:all v2=1:pointwise   vertex vID=parallelism[:inputs];
//	                                       an input is all|pointwise (from
//	                                       the previous vertex) or all@ID,
//	                                       pointwise@ID; no inputs: a source
//	start interval=100ms timeout=1s min-pause=0s max-concurrent=1
//	      tolerable=0 retained=1 final=true enabled=true
//	                                       New, then Tick at 0 (the job runs)
//	tick [DURATION]                        advance the clock, then Tick
//	advance DURATION                       advance the clock only
//	trigger checkpoint|savepoint|terminate|drain
//	ack ID task=0/1[,1/0] | ack ID all     (all: every task not yet acked)
//	decline ID task=1/0 [reason=WORD]
//	finish task=0/0[,...] [last=N]         TaskFinished (N: its last snapshot)
//	eod task=0/1[,...]                     TaskEndOfData
//	persisted ID path=/x | persisted ID err=WORD
//	restoring                              Restoring
//	restart [finished=0/0,...]             TasksRestarted
//	rescale v0=3 v1=2:all                  TasksRestarted with a new
//	                                       topology (as topology)
//	pending                                print Pending()
//
// Every event carries the current virtual time as Now.
func TestCoordinator(t *testing.T) {
	// Only the files directly in testdata: rapid keeps its failure files in
	// testdata/rapid.
	paths, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if fi, err := os.Stat(path); err != nil || fi.IsDir() {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			h := &harness{}
			datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
				return h.run(t, d)
			})
		})
	}
}

var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

type harness struct {
	top   *Topology
	c     *Coordinator
	clock time.Duration
}

func (h *harness) now() time.Time { return epoch.Add(h.clock) }

func (h *harness) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "topology":
		h.top = parseTopology(t, d)
		ix, err := compile(h.top)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		region, sizes := regionsOf(ix)
		var b strings.Builder
		for r := range sizes {
			var ts []graph.SubtaskID
			for f := range region {
				if int(region[f]) == r {
					ts = append(ts, ix.taskOf(f))
				}
			}
			fmt.Fprintf(&b, "region %d: %v\n", r, ts)
		}
		return b.String()
	case "start":
		opts := DefaultOptions()
		opts.Enabled = true
		opts.Interval = 100 * time.Millisecond
		opts.Timeout = time.Second
		for _, a := range d.CmdArgs {
			v := a.SingleVal(t)
			switch a.Key {
			case "interval":
				opts.Interval = mustDuration(t, v)
			case "timeout":
				opts.Timeout = mustDuration(t, v)
			case "min-pause":
				opts.MinPauseBetween = mustDuration(t, v)
			case "max-concurrent":
				opts.MaxConcurrent = mustInt(t, v)
			case "tolerable":
				opts.TolerableFailures = mustInt(t, v)
			case "retained":
				opts.Retained = mustInt(t, v)
			case "final":
				opts.FinalCheckpointOnEndOfData = v == "true"
			case "enabled":
				opts.Enabled = v == "true"
			default:
				t.Fatalf("unknown option %s", a.Key)
			}
		}
		c, err := New(h.top, opts)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		h.c, h.clock = c, 0
		return h.step(Tick{Now: h.now()})
	case "tick":
		if len(d.CmdArgs) > 0 {
			h.clock += mustDuration(t, d.CmdArgs[0].Key)
		}
		return h.step(Tick{Now: h.now()})
	case "advance":
		h.clock += mustDuration(t, d.CmdArgs[0].Key)
		return ""
	case "trigger":
		kinds := map[string]Kind{"checkpoint": Checkpoint, "savepoint": Savepoint, "terminate": SavepointTerminate, "drain": SavepointDrain}
		k, ok := kinds[d.CmdArgs[0].Key]
		if !ok {
			t.Fatalf("unknown kind %s", d.CmdArgs[0].Key)
		}
		return h.step(TriggerRequest{Now: h.now(), Kind: k})
	case "ack":
		id := int64(mustInt(t, d.CmdArgs[0].Key))
		var tasks []graph.SubtaskID
		if d.HasArg("all") {
			for _, p := range h.c.Pending() {
				if p.ID == id {
					tasks = p.NotAcked
				}
			}
		} else {
			tasks = taskArgs(t, d, "task")
		}
		var b strings.Builder
		for _, task := range tasks {
			b.WriteString(h.step(Ack{ID: id, Task: task, State: fmt.Sprintf("state-%d-%v", id, task), Now: h.now()}))
		}
		return b.String()
	case "decline":
		id := int64(mustInt(t, d.CmdArgs[0].Key))
		var reason error
		if d.HasArg("reason") {
			var r string
			d.ScanArgs(t, "reason", &r)
			reason = errors.New(r)
		}
		return h.step(Decline{ID: id, Task: taskArgs(t, d, "task")[0], Reason: reason, Now: h.now()})
	case "finish", "eod":
		var b strings.Builder
		var last int
		if d.HasArg("last") {
			d.ScanArgs(t, "last", &last)
		}
		for _, task := range taskArgs(t, d, "task") {
			if d.Cmd == "finish" {
				b.WriteString(h.step(TaskFinished{Task: task, Now: h.now(), LastSnapshot: int64(last)}))
			} else {
				b.WriteString(h.step(TaskEndOfData{Task: task, Now: h.now()}))
			}
		}
		return b.String()
	case "persisted":
		ev := Persisted{ID: int64(mustInt(t, d.CmdArgs[0].Key)), Now: h.now()}
		if d.HasArg("path") {
			d.ScanArgs(t, "path", &ev.Location)
		}
		if d.HasArg("err") {
			var e string
			d.ScanArgs(t, "err", &e)
			ev.Err = errors.New(e)
		}
		if d.HasArg("not-ready") {
			ev.Err = fmt.Errorf("%w: union list state with finished subtasks", ErrNotReady)
		}
		return h.step(ev)
	case "restart":
		var fin []graph.SubtaskID
		if d.HasArg("finished") {
			fin = taskArgs(t, d, "finished")
		}
		return h.step(TasksRestarted{Now: h.now(), Finished: fin})
	case "rescale":
		return h.step(TasksRestarted{Now: h.now(), Topology: parseTopology(t, d)})
	case "restoring":
		return h.step(Restoring{Now: h.now()})
	case "pending":
		var b strings.Builder
		for _, p := range h.c.Pending() {
			fmt.Fprintf(&b, "%d %v %v at=%v persisting=%v not-acked=%v\n", p.ID, p.Kind, p.Cause, p.Timestamp.Sub(epoch), p.Persisting, p.NotAcked)
		}
		fmt.Fprintf(&b, "retained %v\n", h.c.Retained())
		return b.String()
	}
	t.Fatalf("unknown command %s", d.Cmd)
	return ""
}

func (h *harness) step(ev Event) string {
	if err := h.c.Step(ev); err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	for _, a := range h.c.Ready() {
		b.WriteString(formatAction(a))
		b.WriteByte('\n')
	}
	return b.String()
}

func formatAction(a Action) string {
	switch a := a.(type) {
	case Trigger:
		again := ""
		if a.Again {
			again = " again"
		}
		return fmt.Sprintf("trigger %d %v %v at=%v tasks=%v%s", a.ID, a.Kind, a.Cause, a.Timestamp.Sub(epoch), a.Tasks, again)
	case Persist:
		var keys []graph.SubtaskID
		for k := range a.States {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y graph.SubtaskID) int {
			if x.Vertex != y.Vertex {
				return x.Vertex - y.Vertex
			}
			return x.Subtask - y.Subtask
		})
		return fmt.Sprintf("persist %d %v at=%v states=%v finished=%v fully-finished=%v", a.ID, a.Kind, a.Timestamp.Sub(epoch), keys, a.Finished, a.FullyFinishedVertices)
	case NotifyComplete:
		return fmt.Sprintf("notify-complete %d %v", a.ID, a.Tasks)
	case NotifyAborted:
		return fmt.Sprintf("notify-aborted %d %v", a.ID, a.Tasks)
	case Completed:
		return fmt.Sprintf("completed %d %v %s", a.ID, a.Kind, a.Location)
	case Failed:
		return fmt.Sprintf("failed %d %v: %v", a.ID, a.Kind, a.Reason)
	case JobFailure:
		return fmt.Sprintf("job-failure: %v", a.Reason)
	case Subsumed:
		return fmt.Sprintf("subsumed %v", a.IDs)
	case Discard:
		return fmt.Sprintf("discard %d %s", a.ID, a.Location)
	case ScheduleTick:
		if a.At.IsZero() {
			return "schedule-tick none"
		}
		return fmt.Sprintf("schedule-tick %v", a.At.Sub(epoch))
	}
	return fmt.Sprintf("unknown action %T", a)
}

func parseTopology(t *testing.T, d *datadriven.TestData) *Topology {
	top := &Topology{}
	for _, a := range d.CmdArgs {
		id := mustInt(t, strings.TrimPrefix(a.Key, "v"))
		spec := strings.Join(a.Vals, ",")
		par, inputs, _ := strings.Cut(spec, ":")
		v := Vertex{ID: id, Parallelism: mustInt(t, par)}
		if inputs != "" {
			for _, in := range strings.Split(inputs, ",") {
				pat, src, hasSrc := strings.Cut(in, "@")
				e := Edge{Source: top.Vertices[len(top.Vertices)-1].ID}
				if hasSrc {
					e.Source = mustInt(t, src)
				}
				switch pat {
				case "all":
					e.Pattern = AllToAll
				case "pointwise":
					e.Pattern = Pointwise
				default:
					t.Fatalf("unknown pattern %q", pat)
				}
				v.Inputs = append(v.Inputs, e)
			}
		}
		v.IsSource = len(v.Inputs) == 0
		top.Vertices = append(top.Vertices, v)
	}
	return top
}

func taskArgs(t *testing.T, d *datadriven.TestData, key string) []graph.SubtaskID {
	var out []graph.SubtaskID
	for _, a := range d.CmdArgs {
		if a.Key != key {
			continue
		}
		for _, v := range a.Vals {
			for _, s := range strings.Split(v, ",") {
				vs, ss, ok := strings.Cut(s, "/")
				if !ok {
					t.Fatalf("bad task %q", s)
				}
				out = append(out, graph.SubtaskID{Vertex: mustInt(t, vs), Subtask: mustInt(t, ss)})
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no %s= argument", d.Cmd, key)
	}
	return out
}

func mustInt(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustDuration(t *testing.T, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
