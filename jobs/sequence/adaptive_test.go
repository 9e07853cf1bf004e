package sequence_test

import (
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

// On the adaptive scheduler, stop-with-savepoint ends the job FINISHED
// with what it committed a prefix of every key, and a job restored from
// the savepoint at another parallelism, again on the adaptive scheduler,
// completes the output exactly-once.
func TestAdaptiveStopWithSavepointThenRestore(t *testing.T) {
	// Long enough (about 2 s at the rate) that the stop comes before the
	// job's end even on a loaded machine.
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 1000, Rate: 5000}
	out := t.TempDir()
	run := func(p int, from string, stop bool) string {
		opts := []weir.Option{weir.WithParallelism(p), weir.WithScheduler("adaptive", ""),
			weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Dir: t.TempDir()})}
		if from != "" {
			opts = append(opts, weir.WithRestoreFrom(from, false))
		}
		before := len(committedLines(t, out))
		ctx := testContext(t)
		c, err := fileJob(t, cfg, out, opts...).ExecuteAsync(ctx, "sequence")
		if err != nil {
			t.Fatal(err)
		}
		var loc string
		if stop {
			awaitCommitted(t, c, out, before)
			if loc, err = c.StopWithSavepoint(ctx, t.TempDir(), false); err != nil {
				t.Fatalf("p=%d: stop with savepoint: %v", p, err)
			}
			if n, err := sequence.VerifyPrefix(committedLines(t, out)); err != nil || n <= before {
				t.Fatalf("p=%d: %d lines committed at the stop, %d before: %v", p, n, before, err)
			}
		}
		if _, err := c.Wait(); err != nil {
			t.Fatalf("p=%d: %v", p, err)
		}
		return loc
	}
	sp := run(2, "", true)
	run(3, sp, false)
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("after 2 -> 3: %v", err)
	}
}
