package weir_test

import (
	"context"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/jobs/sequence"
)

// The adaptive scheduler (FLIP-160) on a session mini-cluster whose
// TaskManagers come and go under a checkpointed sequence job: it starts
// at the parallelism its slots allow once the stabilization timeout
// passed, rescales up when TaskManagers join (right after a checkpoint it
// triggers), restarts at a lower parallelism from the latest checkpoint
// when one is lost, and its exactly-once output has every key's counts
// right, through keyed state redistributed over key groups at each new
// parallelism.
func TestAdaptiveRescalesSequence(t *testing.T) {
	cfg := sequence.Config{Keys: 8, RecordsPerKey: 400, Rate: 600}
	out := t.TempDir()
	jg := sequenceJobGraph(t, cfg, 4, out)

	c := newSessionCluster(t, 2)
	job := c.Submit(context.Background(), "sequence", jg, minicluster.JobOptions{
		Scheduler: jobmaster.SchedulerAdaptive,
		Adaptive: adaptive.Options{ResourceStabilizationTimeout: 200 * time.Millisecond,
			Rescale: adaptive.RescaleOptions{Cooldown: 200 * time.Millisecond}},
		Restart:     &scheduler.FixedDelay{Attempts: 3, Delay: 100 * time.Millisecond},
		Checkpoints: checkpointsIn(t, 100*time.Millisecond),
	})

	// Two slots for a parallelism of 4: it runs at 2 once they were
	// stable for the stabilization timeout.
	st := awaitStatus(t, job, "running at 2", func(st jobmaster.Status) bool { return executingAt(st, jg, 2) })
	st = awaitStatus(t, job, "a checkpoint", func(s jobmaster.Status) bool { return s.Checkpoints.Completed > st.Checkpoints.Completed })

	// Two more TaskManagers: it rescales up to 4.
	for range 2 {
		if _, err := c.AddTaskManager(0); err != nil {
			t.Fatal(err)
		}
	}
	st = awaitStatus(t, job, "rescaled to 4", func(st jobmaster.Status) bool { return executingAt(st, jg, 4) })
	if len(st.Rescales) != 1 || !allAt(st.Rescales[0].From, 2) || !allAt(st.Rescales[0].To, 4) {
		t.Fatalf("rescales %+v, want one from 2 to 4", st.Rescales)
	}
	st = awaitStatus(t, job, "a checkpoint at 4", func(s jobmaster.Status) bool { return s.Checkpoints.Completed > st.Checkpoints.Completed })

	// One TaskManager lost: it restarts at 3 from the latest checkpoint.
	if err := c.RemoveTaskManager("tm-0"); err != nil {
		t.Fatal(err)
	}
	gen := st.Generation
	awaitStatus(t, job, "restarted at 3", func(st jobmaster.Status) bool { return st.Generation > gen && executingAt(st, jg, 3) })

	res := job.Wait()
	if res.Status != scheduler.Finished || res.Err != nil || res.Restarts != 1 {
		t.Fatalf("job ended %s (%v) after %d restarts, want FINISHED after 1", res.Status, res.Err, res.Restarts)
	}
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("committed output: %v", err)
	}
}

// In reactive mode a job uses every slot up to each vertex's max
// parallelism, at once: a vertex with max parallelism 1 stays at 1 while
// the others grow with the TaskManagers.
func TestReactiveKeepsMaxParallelismOne(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2))
	in := sequence.Source(env, "k", 4, 1<<40, 200).UID("source")
	one := weir.Map(in, func(r sequence.Record) (sequence.Record, error) { return r, nil }).
		Name("single").UID("single").SetParallelism(1).SetMaxParallelism(1)
	weir.AddSink(one, func(sequence.Record) error { return nil }).Name("drop").UID("drop")
	jg, err := weir.JobGraphOf(env)
	if err != nil {
		t.Fatal(err)
	}
	single := -1
	for _, v := range jg.Vertices {
		if v.MaxParallelism == 1 {
			single = v.ID
		}
	}
	if single < 0 || len(jg.Vertices) != 3 {
		t.Fatalf("job graph has %d vertices, none with max parallelism 1", len(jg.Vertices))
	}

	c := newSessionCluster(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	job := c.Submit(ctx, "reactive", jg, minicluster.JobOptions{
		Scheduler: jobmaster.SchedulerAdaptive,
		Adaptive:  adaptive.Options{Mode: adaptive.Reactive, Rescale: adaptive.RescaleOptions{Cooldown: 100 * time.Millisecond}},
	})
	want := func(n int) func(jobmaster.Status) bool {
		return func(st jobmaster.Status) bool {
			if st.Scheduler != "Executing" || len(st.Parallelism) != len(jg.Vertices) {
				return false
			}
			for id, p := range st.Parallelism {
				if (id == single && p != 1) || (id != single && p != n) {
					return false
				}
			}
			return true
		}
	}
	awaitStatus(t, job, "running at 1", want(1))
	for range 2 {
		if _, err := c.AddTaskManager(0); err != nil {
			t.Fatal(err)
		}
	}
	st := awaitStatus(t, job, "rescaled to 3, the single vertex at 1", want(3))
	for _, r := range st.Rescales {
		if r.To[single] != 1 {
			t.Fatalf("rescale %+v takes the vertex of max parallelism 1 above 1", r)
		}
	}
	cancel()
	if res := job.Wait(); res.Status != scheduler.Canceled {
		t.Fatalf("job ended %s (%v), want CANCELED", res.Status, res.Err)
	}
}

// newSessionCluster starts a session mini-cluster of n TaskManagers of one
// slot each, closed when the test ends.
// sequenceJobGraph is the job graph of the sequence job at parallelism
// par, committing its counts to files in out.
func sequenceJobGraph(t testing.TB, cfg sequence.Config, par int, out string) *graph.JobGraph {
	t.Helper()
	env := weir.NewEnv(weir.WithParallelism(par))
	counts, err := sequence.Build(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	weir.SinkTo(counts, file.NewSink(out, sequence.Count.String)).Name("file sink").UID(sequence.SinkUID)
	jg, err := weir.JobGraphOf(env)
	if err != nil {
		t.Fatal(err)
	}
	return jg
}

func newSessionCluster(t testing.TB, n int) *minicluster.Cluster {
	t.Helper()
	c, err := minicluster.NewCluster(minicluster.ClusterOptions{TaskManagers: n, Slots: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// checkpointsIn configures checkpoints every interval into a temporary
// directory, with a final checkpoint at the end of the input so that the
// last output is committed.
func checkpointsIn(t testing.TB, interval time.Duration) *jobmaster.CheckpointOptions {
	t.Helper()
	st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	o := checkpoint.DefaultOptions()
	o.Enabled, o.Interval, o.FinalCheckpointOnEndOfData = true, interval, true
	return &jobmaster.CheckpointOptions{Options: o, Storage: st}
}

// awaitStatus waits for a status of job that satisfies cond (at every
// status the JobMaster publishes) and fails the test if the job ends or
// 20 s pass first.
func awaitStatus(t testing.TB, job *minicluster.Job, what string, cond func(jobmaster.Status) bool) jobmaster.Status {
	t.Helper()
	return awaitStatusWithin(t, 20*time.Second, job, what, cond)
}

// awaitStatusWithin is awaitStatus with a timeout of d.
func awaitStatusWithin(t testing.TB, d time.Duration, job *minicluster.Job, what string, cond func(jobmaster.Status) bool) jobmaster.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	st, ok := job.Await(ctx, cond)
	if !ok {
		t.Fatalf("job never %s: status %s, scheduler %s, parallelism %v, generation %d, failure %v",
			what, st.State, st.Scheduler, st.Parallelism, st.Generation, st.Failure)
	}
	return st
}

// executingAt reports whether the job executes every vertex of jg at
// parallelism n.
func executingAt(st jobmaster.Status, jg *graph.JobGraph, n int) bool {
	return st.Scheduler == "Executing" && len(st.Parallelism) == len(jg.Vertices) && allAt(st.Parallelism, n)
}

// allAt reports whether every vertex of par runs at n.
func allAt(par map[int]int, n int) bool {
	for _, p := range par {
		if p != n {
			return false
		}
	}
	return len(par) > 0
}
