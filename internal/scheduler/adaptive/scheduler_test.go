package adaptive_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// TestScheduler runs the scripts in testdata/scripts (testdata/rapid is
// where rapid keeps failing cases). Each command steps the
// scheduler (or the clock) and prints the actions, the timeouts fired and
// the state after it:
//
//	new 0=(min,max,maxp[,group]) ... [reactive] [restarts=N backoff=D]
//	    [wait=D] [stabilization=D] [cooldown=D] [min-increase=N]
//	    [max-delay=D] [on-checkpoint] [failed-checkpoints=N]
//	start
//	slots tm-a=2 tm-b=1 [local=(tm,vertex,start,end)...]   the whole pool
//	tick 10s                          advance the clock, firing timeouts
//	created [gen=N] [err=word]        ExecutionGraphCreated (latest gen)
//	task V/S[@GEN] STATE [word]       a subtask's report
//	all STATE                         every deployed subtask reports STATE
//	cancel | stop [drain] | savepoint ok|failed | checkpoint ok|failed
//	global-failure word
//	bounds V=(min,max) ...            RequirementsChanged
//
// An error word "unrecoverable" is marked scheduler.ErrUnrecoverable,
// "released" a scheduler.Consequence.
func TestScheduler(t *testing.T) {
	datadriven.Walk(t, "testdata/scripts", func(t *testing.T, path string) {
		var h *harness
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "new" && h == nil {
				d.Fatalf(t, "%s before new", d.Cmd)
			}
			switch d.Cmd {
			case "new":
				var err error
				h, err = newFromArgs(t, d)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
			case "start":
				h.step(adaptive.Start{Now: h.now})
			case "slots":
				h.step(slotsFromArgs(t, d, h.now))
			case "tick":
				h.tick(duration(t, d, d.CmdArgs[0].Key))
			case "created":
				ev := adaptive.ExecutionGraphCreated{Generation: h.lastGen, Now: h.now}
				if d.HasArg("gen") {
					d.ScanArgs(t, "gen", &ev.Generation)
				}
				if d.HasArg("err") {
					var word string
					d.ScanArgs(t, "err", &word)
					ev.Err = errorOf(word)
				}
				h.step(ev)
			case "task":
				h.step(taskFromArgs(t, d, h))
			case "all":
				for _, id := range h.deployed {
					h.step(scheduler.TaskState{ID: id, Generation: h.lastGen, State: scheduler.ExecutionState(d.CmdArgs[0].Key), Now: h.now})
				}
			case "cancel":
				h.step(scheduler.Cancel{})
			case "stop":
				h.step(adaptive.StopWithSavepoint{Drain: d.HasArg("drain"), Now: h.now})
			case "savepoint":
				if d.CmdArgs[0].Key == "ok" {
					h.step(adaptive.SavepointCompleted{Now: h.now})
				} else {
					h.step(adaptive.SavepointFailed{Err: errorOf("declined"), Now: h.now})
				}
			case "checkpoint":
				if d.CmdArgs[0].Key == "ok" {
					h.step(adaptive.CheckpointCompleted{ID: 1, Now: h.now})
				} else {
					h.step(adaptive.CheckpointFailed{Err: errorOf("declined"), Now: h.now})
				}
			case "global-failure":
				h.step(scheduler.GlobalFailure{Err: errorOf(d.CmdArgs[0].Key), Now: h.now})
			case "bounds":
				ev := adaptive.RequirementsChanged{Bounds: make(map[int]adaptive.Bounds), Now: h.now}
				for _, a := range d.CmdArgs {
					ev.Bounds[atoi(t, d, a.Key)] = adaptive.Bounds{Min: atoi(t, d, a.Vals[0]), Max: atoi(t, d, a.Vals[1])}
				}
				h.step(ev)
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			return h.flush()
		})
	})
}

func newFromArgs(t *testing.T, d *datadriven.TestData) (*harness, error) {
	var vs []allocator.Vertex
	var opts adaptive.Options
	var restart scheduler.RestartStrategy
	backoff := time.Second
	restarts := -1
	for _, a := range d.CmdArgs {
		if id, err := strconv.Atoi(a.Key); err == nil {
			v := allocator.Vertex{ID: id, Min: atoi(t, d, a.Vals[0]), Max: atoi(t, d, a.Vals[1]), MaxParallelism: atoi(t, d, a.Vals[2])}
			if len(a.Vals) > 3 {
				v.Group = atoi(t, d, a.Vals[3])
			}
			vs = append(vs, v)
			continue
		}
		switch a.Key {
		case "reactive":
			opts.Mode = adaptive.Reactive
		case "restarts":
			restarts = atoi(t, d, a.Vals[0])
		case "backoff":
			backoff = duration(t, d, a.Vals[0])
		case "wait":
			opts.ResourceWaitTimeout = duration(t, d, a.Vals[0])
		case "stabilization":
			opts.ResourceStabilizationTimeout = duration(t, d, a.Vals[0])
		case "cooldown":
			opts.Rescale.Cooldown = duration(t, d, a.Vals[0])
		case "min-increase":
			opts.Rescale.MinParallelismIncrease = atoi(t, d, a.Vals[0])
		case "max-delay":
			opts.Rescale.MaxDelay = duration(t, d, a.Vals[0])
		case "on-checkpoint":
			opts.Rescale.OnCheckpoint = true
		case "failed-checkpoints":
			opts.Rescale.FailedCheckpoints = atoi(t, d, a.Vals[0])
		default:
			d.Fatalf(t, "unknown argument %s", a.Key)
		}
	}
	if restarts >= 0 {
		restart = &scheduler.FixedDelay{Attempts: restarts, Delay: backoff}
	}
	return newHarness(vs, restart, opts)
}

func slotsFromArgs(t *testing.T, d *datadriven.TestData, now time.Time) adaptive.ResourcesChanged {
	ev := adaptive.ResourcesChanged{Now: now}
	for _, a := range d.CmdArgs {
		if a.Key == "local" {
			// local=(tm,vertex,start,end)
			for i := 0; i+3 < len(a.Vals); i += 4 {
				ev.Local = append(ev.Local, allocator.Local{
					TaskManager: a.Vals[i], Vertex: atoi(t, d, a.Vals[i+1]),
					KeyGroups: keygroup.Range{Start: atoi(t, d, a.Vals[i+2]), End: atoi(t, d, a.Vals[i+3])},
				})
			}
			continue
		}
		for i := range atoi(t, d, a.Vals[0]) {
			ev.Slots = append(ev.Slots, slots.ID{TaskManager: a.Key, Index: i})
		}
	}
	return ev
}

// taskFromArgs parses "task V/S[@GEN] STATE [word]".
func taskFromArgs(t *testing.T, d *datadriven.TestData, h *harness) scheduler.TaskState {
	spec, gen := d.CmdArgs[0].Key, h.lastGen
	if i := strings.IndexByte(spec, '@'); i >= 0 {
		gen = atoi(t, d, spec[i+1:])
		spec = spec[:i]
	}
	vs, ss, _ := strings.Cut(spec, "/")
	ev := scheduler.TaskState{
		ID:         graph.SubtaskID{Vertex: atoi(t, d, vs), Subtask: atoi(t, d, ss)},
		Generation: gen, State: scheduler.ExecutionState(d.CmdArgs[1].Key), Now: h.now,
	}
	if len(d.CmdArgs) > 2 {
		ev.Err = errorOf(d.CmdArgs[2].Key)
	}
	return ev
}

func atoi(t *testing.T, d *datadriven.TestData, s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		d.Fatalf(t, "not a number: %q", s)
	}
	return n
}

func duration(t *testing.T, d *datadriven.TestData, s string) time.Duration {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		d.Fatalf(t, "not a duration: %q", s)
	}
	return v
}
