package checkpoint

import (
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/graph"
)

func TestOptionsValidate(t *testing.T) {
	ok := DefaultOptions()
	ok.Enabled, ok.Interval = true, time.Second
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults with an interval: %v", err)
	}
	var zero Options
	if err := zero.EnsureDefaults().Validate(); err != nil {
		t.Fatalf("zero options after EnsureDefaults: %v", err)
	}
	for name, mutate := range map[string]func(*Options){
		"enabled without interval": func(o *Options) { o.Interval = 0 },
		"negative interval":        func(o *Options) { o.Enabled, o.Interval = false, -time.Second },
		"no timeout":               func(o *Options) { o.Timeout = 0 },
		"negative min pause":       func(o *Options) { o.MinPauseBetween = -1 },
		"no concurrency":           func(o *Options) { o.MaxConcurrent = 0 },
		"tolerable below -1":       func(o *Options) { o.TolerableFailures = -2 },
		"nothing retained":         func(o *Options) { o.Retained = 0 },
	} {
		o := ok
		mutate(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestStepRejectsMalformedEvents(t *testing.T) {
	c, err := New(&Topology{Vertices: []Vertex{{ID: 0, Parallelism: 1, IsSource: true}}}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range []Event{
		nil,
		TriggerRequest{Kind: Kind(9)},
		Ack{Task: graph.SubtaskID{Vertex: 1, Subtask: 0}},
		Decline{Task: graph.SubtaskID{Vertex: 0, Subtask: 1}},
		TaskEndOfData{Task: graph.SubtaskID{Vertex: 0, Subtask: -1}},
		TaskFinished{Task: graph.SubtaskID{Vertex: 3, Subtask: 3}},
		TasksRestarted{Finished: []graph.SubtaskID{{Vertex: 0, Subtask: 5}}},
	} {
		if err := c.Step(ev); err == nil {
			t.Errorf("Step(%#v): no error", ev)
		}
	}
	if got := c.Ready(); len(got) != 0 {
		t.Errorf("malformed events produced %v", got)
	}
	// Persisted before Persist is a caller bug.
	if err := c.Step(TriggerRequest{Now: epoch, Kind: Savepoint}); err != nil {
		t.Fatal(err)
	}
	if err := c.Step(Persisted{ID: 1, Location: "/x"}); err == nil {
		t.Error("Persisted before Persist: no error")
	}
}
