package sequence_test

import (
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

// A job stopped with a savepoint resumes from it at another parallelism
// with keyed counts continuing where they were: 1 -> 4 -> 2, the output of
// the three runs together exactly-once.
//
// The three runs alternate the state backends: heap, then Pebble, then
// heap, since savepoints do not depend on the backend.
func TestRescaleThroughSavepoints(t *testing.T) {
	cfg := sequence.Config{Keys: 20, RecordsPerKey: 300, Rate: 10000, ShortRecords: 15}
	out, savepoints := t.TempDir(), t.TempDir()
	run := func(p int, from string, stopAfter time.Duration) string {
		backend := weir.StateBackend{}
		if p == 4 {
			backend = weir.StateBackend{Kind: weir.Pebble, Incremental: true, LocalDir: t.TempDir()}
		}
		opts := []weir.Option{weir.WithParallelism(p), weir.WithStateBackend(backend),
			weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour, Dir: t.TempDir()})}
		if from != "" {
			opts = append(opts, weir.WithRestoreFrom(from, false))
		}
		env := fileJob(t, cfg, out, opts...)
		ctx := testContext(t)
		c, err := env.ExecuteAsync(ctx, "sequence")
		if err != nil {
			t.Fatal(err)
		}
		var loc string
		if stopAfter > 0 {
			time.Sleep(stopAfter)
			loc, err = c.StopWithSavepoint(ctx, savepoints, false)
			if err != nil {
				t.Fatalf("p=%d: stop with savepoint: %v", p, err)
			}
		}
		if _, err := c.Wait(); err != nil {
			t.Fatalf("p=%d: %v", p, err)
		}
		return loc
	}
	sp1 := run(1, "", 200*time.Millisecond)
	sp2 := run(4, sp1, 200*time.Millisecond)
	run(2, sp2, 0)
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("after 1 -> 4 -> 2: %v", err)
	}
}

// Stop-with-savepoint --drain ends the job with everything committed: the
// savepoint is its final checkpoint.
func TestStopWithDrainCommitsEverything(t *testing.T) {
	cfg := sequence.Config{Keys: 5, RecordsPerKey: 1 << 20, Rate: 20000}
	out := t.TempDir()
	env := fileJob(t, cfg, out, weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	ctx := testContext(t)
	c, err := env.ExecuteAsync(ctx, "sequence")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(150 * time.Millisecond)
	loc, err := c.StopWithSavepoint(ctx, t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	lines := committedLines(t, out)
	if n, err := sequence.VerifyPrefix(lines); err != nil || n == 0 {
		t.Fatalf("%d lines committed: %v", n, err)
	}
	t.Logf("drained into %s with %d lines committed", loc, len(lines))
}
