package weir_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/jobs/sequence"
)

// With local recovery, the adaptive scheduler keeps a subtask on the
// TaskManager that ran its key groups: a Pebble job at parallelism 2 on
// tm-0 and tm-1 of three TaskManagers loses tm-0; it restarts at 2 on
// tm-1 and tm-2 with subtask 1 still on tm-1 (round-robin would have put
// subtask 0 there, whose key groups tm-1 does not hold), which restores
// from its local copy instead of checkpoint storage; the output stays
// exactly-once.
func TestAdaptiveRestartKeepsLocalState(t *testing.T) {
	cfg := sequence.Config{Keys: 8, RecordsPerKey: 400, Rate: 800}
	out := t.TempDir()
	jg := sequenceJobGraph(t, cfg, 2, out)
	keyed := -1
	for _, v := range jg.Vertices {
		for _, n := range v.Chain {
			if n.UID == "count" {
				keyed = v.ID
			}
		}
	}
	if keyed < 0 {
		t.Fatal("the job graph has no keyed vertex")
	}

	var logs syncBuffer
	c, err := minicluster.NewCluster(minicluster.ClusterOptions{TaskManagers: 3, Slots: 1,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Task:   task.Config{StateBackend: op.StateBackend{Pebble: true, LocalRecovery: true, LocalDir: t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	job := c.Submit(context.Background(), "sequence", jg, minicluster.JobOptions{
		Scheduler:    jobmaster.SchedulerAdaptive,
		Adaptive:     adaptive.Options{ResourceStabilizationTimeout: 100 * time.Millisecond},
		Restart:      &scheduler.FixedDelay{Attempts: 3, Delay: 10 * time.Millisecond},
		Checkpoints:  checkpointsIn(t, 50*time.Millisecond),
		StateBackend: &op.StateBackend{Pebble: true, Incremental: true},
	})
	st := awaitStatus(t, job, "running at 2", func(st jobmaster.Status) bool { return executingAt(st, jg, 2) && len(placement(st, keyed)) == 2 })
	if on := placement(st, keyed); on[0] != "tm-0" || on[1] != "tm-1" {
		t.Fatalf("keyed subtasks on %v, want tm-0 and tm-1", on)
	}
	// Two checkpoints: tm-1 holds a local copy of the latest one.
	st = awaitStatus(t, job, "two checkpoints", func(s jobmaster.Status) bool { return s.Checkpoints.Completed >= 2 })
	if strings.Contains(logs.String(), "restored keyed state from local copy") {
		t.Fatal("a subtask restored from a local copy before any restart")
	}

	if err := c.RemoveTaskManager("tm-0"); err != nil {
		t.Fatal(err)
	}
	gen := st.Generation
	st = awaitStatus(t, job, "restarted at 2", func(st jobmaster.Status) bool {
		return st.Generation > gen && executingAt(st, jg, 2) && len(placement(st, keyed)) == 2
	})
	if on := placement(st, keyed); on[1] != "tm-1" || on[0] != "tm-2" {
		t.Fatalf("after tm-0 left, keyed subtasks on %v, want subtask 1 still on tm-1 and subtask 0 on tm-2", on)
	}
	res := job.Wait()
	if res.Status != scheduler.Finished || res.Err != nil {
		t.Fatalf("job ended %s (%v), want FINISHED", res.Status, res.Err)
	}
	if n := strings.Count(logs.String(), "restored keyed state from local copy"); n != 1 {
		t.Fatalf("%d subtasks restored from a local copy, want 1 (subtask 1 on tm-1)", n)
	}
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("committed output: %v", err)
	}
}

// placement is where the subtasks of vertex run, by subtask index.
func placement(st jobmaster.Status, vertex int) map[int]string {
	on := make(map[int]string)
	for _, s := range st.Subtasks {
		if s.ID.Vertex == vertex {
			on[s.ID.Subtask] = s.TaskManager
		}
	}
	return on
}
