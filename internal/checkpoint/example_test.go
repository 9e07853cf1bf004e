package checkpoint_test

import (
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/graph"
)

// A bounded job, source -> sink: both reach end of data, the final
// checkpoint goes out at once, and the caller drives it to completion.
func Example() {
	top := &checkpoint.Topology{Vertices: []checkpoint.Vertex{
		{ID: 0, Parallelism: 1, IsSource: true},
		{ID: 1, Parallelism: 1, Inputs: []checkpoint.Edge{{Source: 0, Pattern: checkpoint.AllToAll}}},
	}}
	opts := checkpoint.DefaultOptions()
	opts.Enabled, opts.Interval = true, time.Minute
	c, err := checkpoint.New(top, opts)
	if err != nil {
		panic(err)
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	src, sink := graph.SubtaskID{Vertex: 0}, graph.SubtaskID{Vertex: 1}

	// The JobMaster loop: step an event, perform the actions.
	step := func(ev checkpoint.Event) {
		if err := c.Step(ev); err != nil {
			panic(err)
		}
		for _, a := range c.Ready() {
			switch a := a.(type) {
			case checkpoint.Trigger:
				fmt.Printf("trigger %d (%v) to %v\n", a.ID, a.Cause, a.Tasks)
			case checkpoint.Persist:
				// Write the metadata, then answer with Persisted.
				fmt.Printf("persist %d with %d states\n", a.ID, len(a.States))
			case checkpoint.Completed:
				fmt.Printf("completed %d at %s\n", a.ID, a.Location)
			case checkpoint.NotifyComplete:
				fmt.Printf("notify %v\n", a.Tasks)
			case checkpoint.ScheduleTick:
				if a.At.IsZero() {
					fmt.Println("no tick needed")
				} else {
					fmt.Printf("tick at +%v\n", a.At.Sub(start))
				}
			}
		}
	}
	step(checkpoint.Tick{Now: start})
	step(checkpoint.TaskEndOfData{Task: src, Now: start.Add(time.Second)})
	step(checkpoint.TaskEndOfData{Task: sink, Now: start.Add(2 * time.Second)})
	step(checkpoint.Ack{ID: 1, Task: src, State: "src-handle"})
	step(checkpoint.Ack{ID: 1, Task: sink, State: "sink-handle"})
	step(checkpoint.Persisted{ID: 1, Location: "file:///cp/1"})
	step(checkpoint.TaskFinished{Task: src, Now: start.Add(3 * time.Second)})
	step(checkpoint.TaskFinished{Task: sink, Now: start.Add(3 * time.Second)})
	// Output:
	// tick at +1m0s
	// trigger 1 (end-of-data) to [0/0]
	// tick at +10m2s
	// persist 1 with 2 states
	// no tick needed
	// completed 1 at file:///cp/1
	// notify [0/0 1/0]
	// tick at +1m0s
	// no tick needed
}
