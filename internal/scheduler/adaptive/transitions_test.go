package adaptive_test

import (
	"errors"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Steps that drive a harness, for the transition table.
type step func(h *harness)

func pool(n int) step {
	return func(h *harness) {
		ev := adaptive.ResourcesChanged{Now: h.now}
		for i := range n {
			ev.Slots = append(ev.Slots, slots.ID{TaskManager: "tm", Index: i})
		}
		h.step(ev)
	}
}

func start(h *harness) { h.step(adaptive.Start{Now: h.now}) }

func graphCreated(err error) step {
	return func(h *harness) {
		h.step(adaptive.ExecutionGraphCreated{Generation: h.lastGen, Err: err, Now: h.now})
	}
}

func report(subtask int, st scheduler.ExecutionState, err error) step {
	return func(h *harness) {
		h.step(scheduler.TaskState{ID: graph.SubtaskID{Vertex: 0, Subtask: subtask}, Generation: h.lastGen, State: st, Err: err, Now: h.now})
	}
}

func event(ev any) step { return func(h *harness) { h.step(ev) } }

func advance(d time.Duration) step { return func(h *harness) { h.tick(d) } }

var (
	errBoom       = errors.New("boom")
	unrecoverable = scheduler.ErrUnrecoverable
	// executing deploys a job of one vertex at parallelism 2.
	executing = []step{pool(2), start, graphCreated(nil), report(0, scheduler.ExecRunning, nil), report(1, scheduler.ExecRunning, nil)}
)

func then(base []step, more ...step) []step { return append(append([]step(nil), base...), more...) }

// TestTransitions checks, state by state, where each event leads. Every
// row starts a job of one vertex (parallelism 1 to 2, slots 0 or 2) and
// applies setup, then the event.
func TestTransitions(t *testing.T) {
	restarting := then(executing, report(0, scheduler.ExecFailed, errBoom))
	failing := then(executing, report(0, scheduler.ExecFailed, errBoom))
	stopping := then(executing, event(adaptive.StopWithSavepoint{}))
	tests := []struct {
		name     string
		restarts bool
		setup    []step
		event    step
		state    string
		status   scheduler.JobStatus
	}{
		{"Created: start", false, nil, start, "WaitingForResources", scheduler.Created},
		{"Created: cancel", false, nil, event(scheduler.Cancel{}), "Finished", scheduler.Canceled},
		{"Created: a stray report", false, nil, report(0, scheduler.ExecFailed, errBoom), "Created", scheduler.Created},
		{"WaitingForResources: desired slots", false, []step{start}, pool(2), "CreatingExecutionGraph", scheduler.Created},
		{"WaitingForResources: sufficient slots", false, []step{start}, pool(1), "WaitingForResources", scheduler.Created},
		{"WaitingForResources: stabilized", false, []step{start, pool(1)}, advance(10 * time.Second), "CreatingExecutionGraph", scheduler.Created},
		{"WaitingForResources: cancel", false, []step{start}, event(scheduler.Cancel{}), "Finished", scheduler.Canceled},
		{"WaitingForResources: resource wait timeout", false, []step{start}, advance(5 * time.Minute), "Finished", scheduler.Failed},
		{"WaitingForResources: stop is rejected", false, []step{start}, event(adaptive.StopWithSavepoint{}), "WaitingForResources", scheduler.Created},
		{"CreatingExecutionGraph: created", false, []step{pool(2), start}, graphCreated(nil), "Executing", scheduler.Running},
		{"CreatingExecutionGraph: failed, restarts", true, []step{pool(2), start}, graphCreated(errBoom), "Restarting", scheduler.Restarting},
		{"CreatingExecutionGraph: failed, no restarts", false, []step{pool(2), start}, graphCreated(errBoom), "Finished", scheduler.Failed},
		{"CreatingExecutionGraph: unrecoverable", true, []step{pool(2), start}, graphCreated(unrecoverable), "Finished", scheduler.Failed},
		{"CreatingExecutionGraph: slots gone", false, []step{pool(2), start, pool(0)}, graphCreated(nil), "WaitingForResources", scheduler.Created},
		{"CreatingExecutionGraph: cancel", false, []step{pool(2), start}, event(scheduler.Cancel{}), "Finished", scheduler.Canceled},
		{"Executing: failure, restarts", true, executing, report(0, scheduler.ExecFailed, errBoom), "Restarting", scheduler.Restarting},
		{"Executing: failure, no restarts", false, executing, report(0, scheduler.ExecFailed, errBoom), "Failing", scheduler.Failing},
		{"Executing: unexpected cancel", true, executing, report(0, scheduler.ExecCanceled, nil), "Restarting", scheduler.Restarting},
		{"Executing: global failure", true, executing, event(scheduler.GlobalFailure{Err: errBoom}), "Restarting", scheduler.Restarting},
		{"Executing: one finished", false, executing, report(0, scheduler.ExecFinished, nil), "Executing", scheduler.Running},
		{"Executing: all finished", false, then(executing, report(0, scheduler.ExecFinished, nil)), report(1, scheduler.ExecFinished, nil), "Finished", scheduler.Finished},
		{"Executing: cancel", false, executing, event(scheduler.Cancel{}), "Canceling", scheduler.Cancelling},
		{"Executing: stop", false, executing, event(adaptive.StopWithSavepoint{}), "StopWithSavepoint", scheduler.Running},
		{"Executing: a slot in use lost", true, executing, pool(1), "Restarting", scheduler.Restarting},
		{"Executing: a slot in use lost, no restarts", false, executing, pool(1), "Failing", scheduler.Failing},
		{"Executing: a free slot lost", false, then(executing, pool(3)), pool(2), "Executing", scheduler.Running},
		{"Restarting: backoff over", true, then(restarting, report(1, scheduler.ExecCanceled, nil)), advance(time.Second), "CreatingExecutionGraph", scheduler.Created},
		{"Restarting: backoff waits for the cancel", true, restarting, advance(time.Hour), "Restarting", scheduler.Restarting},
		{"Restarting: another failure", true, restarting, report(1, scheduler.ExecFailed, errBoom), "Restarting", scheduler.Restarting},
		{"Restarting: unrecoverable failure of the last", true, restarting, report(1, scheduler.ExecFailed, unrecoverable), "Finished", scheduler.Failed},
		{"Restarting: cancel", true, restarting, event(scheduler.Cancel{}), "Canceling", scheduler.Cancelling},
		{"Failing: the last ended", false, failing, report(1, scheduler.ExecCanceled, nil), "Finished", scheduler.Failed},
		{"Failing: cancel", false, failing, event(scheduler.Cancel{}), "Canceling", scheduler.Cancelling},
		{"Canceling: a failure", false, then(executing, event(scheduler.Cancel{})), report(0, scheduler.ExecFailed, errBoom), "Canceling", scheduler.Cancelling},
		{"Canceling: the last ended", false, then(executing, event(scheduler.Cancel{}), report(0, scheduler.ExecCanceled, nil)), report(1, scheduler.ExecCanceled, nil), "Finished", scheduler.Canceled},
		{"StopWithSavepoint: completed", false, stopping, event(adaptive.SavepointCompleted{}), "StopWithSavepoint", scheduler.Running},
		{"StopWithSavepoint: completed, all ended", false, then(stopping, event(adaptive.SavepointCompleted{}), report(0, scheduler.ExecFinished, nil)), report(1, scheduler.ExecFinished, nil), "Finished", scheduler.Finished},
		{"StopWithSavepoint: failed", false, stopping, event(adaptive.SavepointFailed{Err: errBoom}), "Executing", scheduler.Running},
		{"StopWithSavepoint: failure before completion", true, stopping, report(0, scheduler.ExecFailed, errBoom), "Restarting", scheduler.Restarting},
		{"StopWithSavepoint: failure after completion", true, then(stopping, event(adaptive.SavepointCompleted{})), report(0, scheduler.ExecFailed, errBoom), "Failing", scheduler.Failing},
		{"StopWithSavepoint: cancel", false, stopping, event(scheduler.Cancel{}), "Canceling", scheduler.Cancelling},
		{"Finished: nothing changes it", true, then(executing, event(scheduler.Cancel{}), report(0, scheduler.ExecCanceled, nil), report(1, scheduler.ExecCanceled, nil)), start, "Finished", scheduler.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var restart scheduler.RestartStrategy
			if tt.restarts {
				restart = &scheduler.FixedDelay{Attempts: 10, Delay: time.Second}
			}
			h, err := newHarness([]allocator.Vertex{{ID: 0, Max: 2, MaxParallelism: 8}}, restart, adaptive.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.setup {
				s(h)
			}
			before := h.s.State()
			tt.event(h)
			if h.s.State() != tt.state || h.s.Status() != tt.status {
				t.Errorf("%s: got %s %s, want %s %s\n%s", before, h.s.State(), h.s.Status(), tt.state, tt.status, h.flush())
			}
		})
	}
}
