package resourcemanager_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/resourcemanager"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// step is one event and what the ResourceManager must decide for it: the
// rendered decisions (see render), or an error that contains err.
type step struct {
	ev   any
	want string
	err  string
}

type (
	reg   = resourcemanager.TaskManagerRegistered
	lost  = resourcemanager.TaskManagerLost
	decl  = resourcemanager.DeclareResources
	freed = resourcemanager.SlotsFreed
	ended = resourcemanager.JobEnded
)

func slot(tm string, i int) slots.ID { return slots.ID{TaskManager: tm, Index: i} }

// render prints decisions one per line: "offer J tm/0 tm/1" and
// "lost J tm reason".
func render(ds []any) string {
	var b strings.Builder
	for _, d := range ds {
		switch d := d.(type) {
		case resourcemanager.OfferSlots:
			fmt.Fprintf(&b, "offer %s", d.Job)
			for _, s := range d.Slots {
				fmt.Fprintf(&b, " %v", s)
			}
			b.WriteString("\n")
		case resourcemanager.NotifyLost:
			fmt.Fprintf(&b, "lost %s %s %s\n", d.Job, d.TaskManager, d.Reason)
		default:
			fmt.Fprintf(&b, "unexpected %T\n", d)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestResourceManager(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"a declaration is matched against the free slots, spread over TaskManagers", []step{
			{ev: reg{ID: "tm-0", Slots: 2}},
			{ev: reg{ID: "tm-1", Slots: 2}},
			{ev: decl{Job: "a", Min: 3, Max: 3}, want: "offer a tm-0/0 tm-1/0 tm-0/1"},
		}},
		{"a job declared before any TaskManager gets slots as TaskManagers register", []step{
			{ev: decl{Job: "a", Min: 2, Max: 2}},
			{ev: reg{ID: "tm-0", Slots: 1}, want: "offer a tm-0/0"},
			{ev: reg{ID: "tm-1", Slots: 3}, want: "offer a tm-1/0"},
			{ev: reg{ID: "tm-2", Slots: 1}},
		}},
		{"jobs are served in the order they declared, minimums before maximums", []step{
			{ev: reg{ID: "tm-0", Slots: 2}},
			{ev: decl{Job: "a", Min: 1, Max: 3}, want: "offer a tm-0/0 tm-0/1"},
			{ev: decl{Job: "b", Min: 2, Max: 2}},
			{ev: reg{ID: "tm-1", Slots: 3}, want: "offer a tm-1/2\noffer b tm-1/0 tm-1/1"},
		}},
		{"a later job's minimum comes before an earlier job's extra slots", []step{
			{ev: decl{Job: "a", Min: 1, Max: 4}},
			{ev: decl{Job: "b", Min: 2, Max: 2}},
			{ev: reg{ID: "tm-0", Slots: 4}, want: "offer a tm-0/0 tm-0/3\noffer b tm-0/1 tm-0/2"},
		}},
		{"the slots of an ended job go to the job that waits", []step{
			{ev: reg{ID: "tm-0", Slots: 3}},
			{ev: decl{Job: "a", Min: 2, Max: 2}, want: "offer a tm-0/0 tm-0/1"},
			{ev: decl{Job: "b", Min: 2, Max: 2}, want: "offer b tm-0/2"},
			{ev: ended{Job: "a"}, want: "offer b tm-0/0"},
			{ev: ended{Job: "b"}},
			{ev: decl{Job: "c", Min: 3, Max: 3}, want: "offer c tm-0/0 tm-0/1 tm-0/2"},
		}},
		{"a lost TaskManager is reported to the jobs with slots there, which get free slots elsewhere", []step{
			{ev: reg{ID: "tm-0", Slots: 1}},
			{ev: reg{ID: "tm-1", Slots: 1}},
			{ev: decl{Job: "a", Min: 1, Max: 1}, want: "offer a tm-0/0"},
			{ev: decl{Job: "b", Min: 1, Max: 1}, want: "offer b tm-1/0"},
			{ev: reg{ID: "tm-2", Slots: 1}},
			{ev: lost{ID: "tm-0", Reason: "removed"}, want: "lost a tm-0 removed\noffer a tm-2/0"},
			{ev: lost{ID: "tm-1", Reason: "crashed"}, want: "lost b tm-1 crashed"},
			{ev: reg{ID: "tm-3", Slots: 1}, want: "offer b tm-3/0"},
		}},
		{"a lost TaskManager without slots of a job tells no job", []step{
			{ev: reg{ID: "tm-0", Slots: 1}},
			{ev: reg{ID: "tm-1", Slots: 1}},
			{ev: decl{Job: "a", Min: 1, Max: 1}, want: "offer a tm-0/0"},
			{ev: lost{ID: "tm-1", Reason: "removed"}},
		}},
		{"freed slots are offered to the next job; a job that lowers its maximum first is not offered them again", []step{
			{ev: reg{ID: "tm-0", Slots: 2}},
			{ev: decl{Job: "a", Min: 1, Max: 2}, want: "offer a tm-0/0 tm-0/1"},
			{ev: decl{Job: "b", Min: 1, Max: 1}},
			{ev: decl{Job: "a", Min: 1, Max: 1}},
			{ev: freed{Job: "a", Slots: []slots.ID{slot("tm-0", 1)}}, want: "offer b tm-0/1"},
		}},
		{"a raised maximum gets free slots at once", []step{
			{ev: reg{ID: "tm-0", Slots: 3}},
			{ev: decl{Job: "a", Min: 1, Max: 1}, want: "offer a tm-0/0"},
			{ev: decl{Job: "a", Min: 1, Max: 3}, want: "offer a tm-0/1 tm-0/2"},
		}},
		{"bad input is refused and changes nothing", []step{
			{ev: reg{ID: "tm-0", Slots: 1}},
			{ev: reg{ID: "tm-0", Slots: 1}, err: "TaskManager tm-0 registered twice"},
			{ev: reg{ID: "tm-1", Slots: 0}, err: "TaskManager tm-1 registered with 0 slots, want at least 1"},
			{ev: reg{Slots: 1}, err: "a TaskManager without id registered"},
			{ev: lost{ID: "tm-9"}, err: "unknown TaskManager tm-9 lost"},
			{ev: decl{Job: "a", Min: 2, Max: 1}, err: "job a declared min 2 and max 1 slots"},
			{ev: decl{Job: "a", Min: 0, Max: 0}, err: "job a declared min 0 and max 0 slots"},
			{ev: decl{Min: 1, Max: 1}, err: "a declaration without job"},
			{ev: freed{Job: "a"}, err: "unknown job a freed slots"},
			{ev: ended{Job: "a"}, err: "unknown job a ended"},
			{ev: decl{Job: "a", Min: 1, Max: 1}, want: "offer a tm-0/0"},
			{ev: freed{Job: "a", Slots: []slots.ID{slot("tm-0", 0), slot("tm-1", 0)}}, err: "job a freed slot tm-1/0, which it does not hold"},
			{ev: "hello", err: "unknown event string"},
			// The refused SlotsFreed kept tm-0/0 with a.
			{ev: decl{Job: "b", Min: 1, Max: 1}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rm := resourcemanager.New()
			for i, s := range c.steps {
				err := rm.Step(s.ev)
				switch {
				case s.err == "" && err != nil:
					t.Fatalf("step %d %+v: %v", i, s.ev, err)
				case s.err != "" && (!errors.Is(err, resourcemanager.ErrInvalid) || !strings.Contains(err.Error(), s.err)):
					t.Fatalf("step %d %+v: err %v, want ErrInvalid saying %q", i, s.ev, err, s.err)
				}
				if got := render(rm.Ready()); got != s.want {
					t.Fatalf("step %d %+v decided\n%s\nwant\n%s", i, s.ev, got, s.want)
				}
			}
		})
	}
}

// The queries describe the TaskManagers in their registration order and
// the slots a job holds.
func TestQueries(t *testing.T) {
	rm := resourcemanager.New()
	capacity := network.CapacityOf(1<<20, network.DefaultBufferSize)
	for _, ev := range []any{
		reg{ID: "tm-1", Slots: 2, Network: capacity},
		reg{ID: "tm-0", Slots: 1},
		decl{Job: "a", Min: 2, Max: 2},
	} {
		if err := rm.Step(ev); err != nil {
			t.Fatal(err)
		}
	}
	// tm-1 has the most free slots, then as many as tm-0 and registered
	// first.
	want := []resourcemanager.TaskManagerInfo{{ID: "tm-1", Slots: 2, Free: 0, Network: capacity}, {ID: "tm-0", Slots: 1, Free: 1}}
	if got := rm.TaskManagers(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("TaskManagers() = %v, want %v", got, want)
	}
	if got, want := rm.Held("a"), []slots.ID{slot("tm-1", 0), slot("tm-1", 1)}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Held(a) = %v, want %v", got, want)
	}
	if got := rm.Held("nobody"); got != nil {
		t.Errorf("Held of an unknown job = %v, want nil", got)
	}
}
