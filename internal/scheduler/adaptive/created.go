package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// created is the state before scheduling starts.
//
// Events: Start moves to WaitingForResources; scheduler.Cancel ends the
// job CANCELED. Uses no Context but the transitions.
type created struct{}

// Name implements State.
func (*created) Name() string { return "Created" }

// Status implements State.
func (*created) Status() scheduler.JobStatus { return scheduler.Created }

// Handle implements State.
func (c *created) Handle(ctx Context, ev any) State {
	switch e := ev.(type) {
	case Start:
		return newWaitingForResources(ctx, e.Now, false)
	case scheduler.Cancel:
		return newFinished(ctx, scheduler.Canceled, nil)
	}
	return c
}
