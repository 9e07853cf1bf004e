package adaptive_test

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

// t0 is the virtual clock's origin; times print as offsets from it.
var t0 = time.Unix(0, 0)

// harness plays the JobMaster around a Scheduler: a virtual clock, the
// timeouts asked for (fired by tick), the latest generation asked for and
// the output of every step.
type harness struct {
	s        *adaptive.Scheduler
	now      time.Time
	timers   []adaptive.ScheduleTimeout
	lastGen  int
	deployed []graph.SubtaskID
	out      strings.Builder
}

func newHarness(vs []allocator.Vertex, restart scheduler.RestartStrategy, opts adaptive.Options) (*harness, error) {
	s, err := adaptive.New(vs, restart, opts)
	if err != nil {
		return nil, err
	}
	return &harness{s: s, now: t0, lastGen: -1}, nil
}

// step applies an event and records the actions it led to.
func (h *harness) step(ev any) {
	h.s.Step(ev)
	for _, a := range h.s.Ready() {
		h.record(a)
	}
}

// tick advances the clock by d, firing every timeout due on the way at
// its own time, in order.
func (h *harness) tick(d time.Duration) {
	end := h.now.Add(d)
	for {
		slices.SortStableFunc(h.timers, func(a, b adaptive.ScheduleTimeout) int {
			return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Timeout.Seq, b.Timeout.Seq))
		})
		if len(h.timers) == 0 || h.timers[0].At.After(end) {
			break
		}
		t := h.timers[0]
		h.timers = h.timers[1:]
		h.now = t.At
		fmt.Fprintf(&h.out, "fire %s#%d at %v\n", t.Timeout.Kind, t.Timeout.Seq, h.at())
		ev := t.Timeout
		ev.Now = h.now
		h.step(ev)
	}
	h.now = end
}

func (h *harness) at() time.Duration { return h.now.Sub(t0) }

func (h *harness) record(a any) {
	w := &h.out
	switch a := a.(type) {
	case adaptive.Transitioned:
		fmt.Fprintf(w, "-> %s\n", a.To)
	case adaptive.ScheduleTimeout:
		h.timers = append(h.timers, a)
		fmt.Fprintf(w, "timeout %s#%d at %v\n", a.Timeout.Kind, a.Timeout.Seq, a.At.Sub(t0))
	case adaptive.CreateExecutionGraph:
		h.lastGen = a.Generation
		fmt.Fprintf(w, "create gen=%d %s\n", a.Generation, parallelism(a.Plan.Parallelism))
	case scheduler.Deploy:
		h.deployed = h.deployed[:0]
		var parts []string
		for _, as := range a.Plan.Assignments {
			h.deployed = append(h.deployed, as.SubtaskID)
			parts = append(parts, fmt.Sprintf("%d/%d@%v", as.Vertex, as.Subtask, as.Slot))
		}
		fmt.Fprintf(w, "deploy gen=%d %s\n", a.Generation, strings.Join(parts, " "))
	case scheduler.CancelTasks:
		fmt.Fprintf(w, "cancel %v\n", a.IDs)
	case adaptive.TriggerCheckpoint:
		fmt.Fprintf(w, "trigger checkpoint (%s)\n", a.Reason)
	case adaptive.TriggerSavepoint:
		fmt.Fprintf(w, "trigger savepoint drain=%v\n", a.Drain)
	case adaptive.Rescaling:
		fmt.Fprintf(w, "rescaling %s -> %s (%s)\n", parallelism(a.From), parallelism(a.To), a.Reason)
	case adaptive.Rejected:
		fmt.Fprintf(w, "rejected: %v\n", a.Err)
	case scheduler.Terminated:
		fmt.Fprintf(w, "terminated %s err=%v\n", a.Status, a.Err)
	default:
		fmt.Fprintf(w, "unknown action %T\n", a)
	}
}

// parallelism prints "0=2 1=1".
func parallelism(p map[int]int) string {
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, fmt.Sprintf("%d=%d", v, p[v]))
	}
	return strings.Join(parts, " ")
}

// flush returns the output since the last flush, with the state.
func (h *harness) flush() string {
	fmt.Fprintf(&h.out, "state %s status %s", h.s.State(), h.s.Status())
	if h.s.State() == "Restarting" && h.s.LastFailure() != nil {
		// The cause the restart is logged with once it proceeds.
		fmt.Fprintf(&h.out, " cause=%v", h.s.LastFailure())
	}
	h.out.WriteByte('\n')
	s := h.out.String()
	h.out.Reset()
	return s
}

// errorOf turns a script's error word into an error: "unrecoverable"
// is marked scheduler.ErrUnrecoverable, "released" a
// scheduler.Consequence (a sender whose channel was released).
func errorOf(word string) error {
	switch word {
	case "unrecoverable":
		return fmt.Errorf("restore: %w", scheduler.ErrUnrecoverable)
	case "released":
		return scheduler.Consequence(errors.New(word))
	}
	return errors.New(word)
}
