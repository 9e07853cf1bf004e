package jobmaster_test

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// awaitStatus waits, at every status jm publishes, for one that satisfies
// cond.
func awaitStatus(t *testing.T, jm *jobmaster.JobMaster, done <-chan jobmaster.Result, what string, cond func(jobmaster.Status) bool) jobmaster.Status {
	t.Helper()
	for {
		changed := jm.StatusChanged()
		st := jm.Status()
		if cond(st) {
			return st
		}
		select {
		case <-changed:
		case res := <-done:
			t.Fatalf("job ended %s (%v) before %s", res.Status, res.Err, what)
		}
	}
}

// executing reports whether the adaptive scheduler executes every vertex
// at parallelism n.
func executing(n int) func(jobmaster.Status) bool {
	return func(st jobmaster.Status) bool {
		if st.Scheduler != "Executing" || len(st.Parallelism) == 0 {
			return false
		}
		for p := range maps.Values(st.Parallelism) {
			if p != n {
				return false
			}
		}
		return true
	}
}

// The adaptive scheduler in the JobMaster, on the injected clock: with
// fewer slots than the job's parallelism it waits for the stabilization
// timeout (a timer of the clock, the loop goes on meanwhile), then runs
// at the slots it has; a TaskManager that registers later is used once
// the cooldown after the start ended: the job rescales, which is no
// restart, and its next generation runs at the full parallelism.
func TestAdaptiveStabilizesThenRescalesOnTheClock(t *testing.T) {
	clk := clock.NewFake(epoch)
	j := &parallelJob{n: 20, parallelism: 2}
	net := network.NewRegistry()
	tm0, tm1 := newTaskManager("tm-0", 1, net), newTaskManager("tm-1", 1, net)
	defer tm0.Close()
	defer tm1.Close()
	opts := withRPC(t, jobmaster.Options{Clock: clk, Scheduler: jobmaster.SchedulerAdaptive,
		Adaptive: adaptive.Options{ResourceStabilizationTimeout: 10 * time.Second, Rescale: adaptive.RescaleOptions{Cooldown: 30 * time.Second}}}, tm0, tm1)
	jm, err := jobmaster.New("job", j.graph(t), offers(tm0), net, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := runJob(context.Background(), jm)

	clk.BlockUntil(2) // the resource wait and the stabilization timeouts
	if st := jm.Status(); st.Scheduler != "WaitingForResources" || st.State != scheduler.Created {
		t.Fatalf("job %s in %s with one slot of two, want CREATED waiting for resources", st.State, st.Scheduler)
	}
	clk.Advance(10 * time.Second)
	awaitStatus(t, jm, done, "running at 1", executing(1))
	<-j.opened

	jm.RegisterTaskManager(offer(tm1))
	clk.BlockUntil(2) // the resource wait and the end of the cooldown
	if st := jm.Status(); !executing(1)(st) || len(st.Rescales) != 0 {
		t.Fatalf("job rescaled within the cooldown: %+v", st)
	}
	clk.Advance(30 * time.Second)
	res := <-done
	if res.Status != scheduler.Finished || res.Restarts != 0 {
		t.Fatalf("job ended %s (%v) after %d restarts, want FINISHED after none", res.Status, res.Err, res.Restarts)
	}
	st := jm.Status()
	if len(st.Rescales) != 1 || st.Rescales[0].From[0] != 1 || st.Rescales[0].To[0] != 2 {
		t.Fatalf("rescales %+v, want one from 1 to 2", st.Rescales)
	}
	// The clock stands still while the rescale runs: it took no time of it.
	if len(st.RescaleDurations) != 1 || st.RescaleDurations[0] != 0 {
		t.Errorf("rescale durations %v, want one of 0 on the stopped clock", st.RescaleDurations)
	}
	if got, want := j.received(1), j.want(); !slices.Equal(got, want) {
		t.Errorf("the rescaled generation received %d records, want %d: %v", len(got), len(want), got)
	}
}
