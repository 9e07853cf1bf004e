package checkpoint

import (
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/graph"
)

// With FLIP-147 turned off, a finished task stops periodic checkpoints.
func TestNoCheckpointsAfterTasksFinish(t *testing.T) {
	top := &Topology{Vertices: []Vertex{
		{ID: 0, Parallelism: 2, IsSource: true},
		{ID: 1, Parallelism: 1, Inputs: []Edge{{Source: 0, Pattern: AllToAll}}},
	}}
	for _, off := range []bool{false, true} {
		opts := DefaultOptions()
		opts.Enabled, opts.Interval, opts.NoCheckpointsAfterTasksFinish = true, time.Second, off
		c, err := New(top, opts)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Unix(0, 0)
		steps := []Event{
			Tick{Now: start},
			TaskFinished{Task: graph.SubtaskID{Vertex: 0, Subtask: 0}, Now: start},
			Tick{Now: start.Add(time.Second)},
		}
		triggers := 0
		for _, ev := range steps {
			if err := c.Step(ev); err != nil {
				t.Fatal(err)
			}
			for _, a := range c.Ready() {
				if _, ok := a.(Trigger); ok {
					triggers++
				}
			}
		}
		if want := map[bool]int{false: 1, true: 0}[off]; triggers != want {
			t.Errorf("switch off=%v: %d triggers after a task finished, want %d", off, triggers, want)
		}
	}
}
