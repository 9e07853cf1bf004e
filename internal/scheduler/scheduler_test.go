package scheduler_test

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// TestScheduler runs the scripts in testdata: each command steps the state
// machine and prints the actions it decided and the job status.
//
//	new 0=2 1=1             vertices with their parallelism
//	start tm-a=2 tm-b=1 [wait]  free slots per TaskManager; wait: WaitForSlots
//	offer tm-c=1            slots offered later
//	lost tm-a [reason]      a TaskManager lost
//	timeout gen=1           the wait for a generation's slots timed out
//	task 0/1 RUNNING [err]  a subtask's state report; the error words
//	                        unrecoverable (scheduler.ErrUnrecoverable) and
//	                        released (a scheduler.Consequence, as a sender
//	                        whose channel was released fails) are marked
//	cancel
func TestScheduler(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var s *scheduler.Scheduler
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "new":
				var reqs []slots.Request
				for _, a := range d.CmdArgs {
					if a.Key == "restarts" {
						continue
					}
					v, _ := strconv.Atoi(a.Key)
					p, _ := strconv.Atoi(a.Vals[0])
					reqs = append(reqs, slots.Request{Vertex: v, Parallelism: p})
				}
				var restart scheduler.RestartStrategy
				if d.HasArg("restarts") {
					var n int
					d.ScanArgs(t, "restarts", &n)
					restart = &scheduler.FixedDelay{Attempts: n, Delay: time.Second}
				}
				s = scheduler.New(reqs, restart)
			case "start":
				s.Step(scheduler.Start{Free: slotsOf(d.CmdArgs), WaitForSlots: d.HasArg("wait")})
			case "offer":
				s.Step(scheduler.SlotsOffered{Slots: slotsOf(d.CmdArgs)})
			case "lost":
				ev := scheduler.TaskManagerLost{TaskManager: d.CmdArgs[0].Key}
				if len(d.CmdArgs) > 1 {
					ev.Reason = d.CmdArgs[1].Key
				}
				s.Step(ev)
			case "timeout":
				var gen int
				d.ScanArgs(t, "gen", &gen)
				s.Step(scheduler.ResourceTimeout{Generation: gen})
			case "task":
				// task V/S[@GEN] STATE [error]
				var v, st, gen int
				if _, err := fmt.Sscanf(d.CmdArgs[0].Key, "%d/%d@%d", &v, &st, &gen); err != nil {
					gen = s.Generation()
				}
				ev := scheduler.TaskState{ID: graph.SubtaskID{Vertex: v, Subtask: st}, Generation: gen, State: scheduler.ExecutionState(d.CmdArgs[1].Key)}
				if len(d.CmdArgs) > 2 {
					ev.Err = errors.New(d.CmdArgs[2].Key)
					switch d.CmdArgs[2].Key {
					case "unrecoverable":
						ev.Err = scheduler.ErrUnrecoverable
					case "released":
						ev.Err = scheduler.Consequence(ev.Err)
					}
				}
				s.Step(ev)
			case "restart":
				s.Step(scheduler.Restart{})
			case "stop":
				s.Step(scheduler.Stop{})
			case "cancel":
				s.Step(scheduler.Cancel{})
			default:
				d.Fatalf(t, "unknown command %s", d.Cmd)
			}
			return render(s)
		})
	})
}

// slotsOf makes the slots of args such as tm-a=2: slots 0 and 1 of tm-a.
func slotsOf(args []datadriven.CmdArg) []slots.ID {
	var free []slots.ID
	for _, a := range args {
		if len(a.Vals) == 0 {
			continue
		}
		n, _ := strconv.Atoi(a.Vals[0])
		for i := 0; i < n; i++ {
			free = append(free, slots.ID{TaskManager: a.Key, Index: i})
		}
	}
	return free
}

func render(s *scheduler.Scheduler) string {
	var b strings.Builder
	for _, a := range s.Ready() {
		switch a := a.(type) {
		case scheduler.Deploy:
			var parts []string
			for _, as := range a.Plan.Assignments {
				parts = append(parts, fmt.Sprintf("%d/%d@%v", as.Vertex, as.Subtask, as.Slot))
			}
			fmt.Fprintf(&b, "deploy gen=%d %s\n", a.Generation, strings.Join(parts, " "))
		case scheduler.ScheduleRestart:
			fmt.Fprintf(&b, "schedule restart gen=%d after %v cause=%v\n", a.Generation, a.Delay, a.Cause)
		case scheduler.AwaitResources:
			fmt.Fprintf(&b, "await gen=%d: %v\n", a.Generation, a.Err)
		case scheduler.CancelTasks:
			fmt.Fprintf(&b, "cancel %v\n", a.IDs)
		case scheduler.Terminated:
			fmt.Fprintf(&b, "terminated %s err=%v\n", a.Status, a.Err)
		}
	}
	fmt.Fprintf(&b, "status %s\n", s.Status())
	return b.String()
}
