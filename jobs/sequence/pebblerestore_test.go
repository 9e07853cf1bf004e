package sequence_test

import (
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

// A job on incremental Pebble state restores from a retained checkpoint
// (not a savepoint: the Pebble files themselves) at another parallelism:
// each new subtask copies its key groups out of the old subtasks'
// databases, and the counts go on exactly-once. A heap job refuses the
// same checkpoint with an error that says what to do.
func TestPebbleCheckpointRestoresAtAnotherParallelism(t *testing.T) {
	// About 2 s of input: the job is cancelled well before its end.
	cfg := sequence.Config{Keys: 20, RecordsPerKey: 800, Rate: 8000, ShortRecords: 10}
	out, cps := t.TempDir(), t.TempDir()
	pebble := weir.WithStateBackend(weir.StateBackend{Kind: weir.Pebble, Incremental: true, LocalDir: t.TempDir()})
	env := fileJob(t, cfg, out, weir.WithParallelism(2), pebble,
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Dir: cps}))
	ctx := testContext(t)
	c, err := env.ExecuteAsync(ctx, "sequence")
	if err != nil {
		t.Fatal(err)
	}
	for c.Status().Checkpoints.Completed < 4 {
		time.Sleep(10 * time.Millisecond)
	}
	latest := c.Status().Checkpoints.Latest
	c.Cancel()
	if _, err := c.Wait(); err == nil {
		t.Fatal("the cancelled job reported success")
	}
	if latest == "" {
		t.Fatal("no checkpoint location")
	}

	heap := fileJob(t, cfg, out, weir.WithParallelism(3), weir.WithRestoreFrom(latest, false),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Dir: t.TempDir()}))
	if _, err := heap.Execute(ctx, "sequence"); err == nil || !strings.Contains(err.Error(), "savepoint") {
		t.Fatalf("a heap job restored from Pebble files: %v, want an error pointing at savepoints", err)
	}

	again := fileJob(t, cfg, out, weir.WithParallelism(3), pebble, weir.WithRestoreFrom(latest, false),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Dir: t.TempDir()}))
	if _, err := again.Execute(ctx, "sequence"); err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("after restoring Pebble files at parallelism 3: %v", err)
	}
}
