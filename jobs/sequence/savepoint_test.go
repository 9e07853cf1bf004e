package sequence_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

// A job stopped with a savepoint resumes from it at another parallelism
// with keyed counts continuing where they were: 1 -> 4 -> 2, the output of
// the three runs together exactly-once. Each run is stopped only after it
// committed more than the run before, so every savepoint holds progress of
// its own, and what was committed at each stop is a prefix of every key.
//
// The three runs alternate the state backends: heap, then Pebble, then
// heap, since savepoints do not depend on the backend.
func TestRescaleThroughSavepoints(t *testing.T) {
	cfg := sequence.Config{Keys: 20, RecordsPerKey: 300, Rate: 10000, ShortRecords: 15}
	out, savepoints := t.TempDir(), t.TempDir()
	run := func(p int, from string, stop bool) string {
		backend := weir.StateBackend{}
		if p == 4 {
			backend = weir.StateBackend{Kind: weir.Pebble, Incremental: true, LocalDir: t.TempDir()}
		}
		opts := []weir.Option{weir.WithParallelism(p), weir.WithStateBackend(backend),
			weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Dir: t.TempDir()})}
		if from != "" {
			opts = append(opts, weir.WithRestoreFrom(from, false))
		}
		before := len(committedLines(t, out))
		env := fileJob(t, cfg, out, opts...)
		ctx := testContext(t)
		c, err := env.ExecuteAsync(ctx, "sequence")
		if err != nil {
			t.Fatal(err)
		}
		var loc string
		if stop {
			awaitCommitted(t, c, out, before)
			loc, err = c.StopWithSavepoint(ctx, savepoints, false)
			if err != nil {
				t.Fatalf("p=%d: stop with savepoint: %v", p, err)
			}
			if n, err := sequence.VerifyPrefix(committedLines(t, out)); err != nil || n <= before {
				t.Fatalf("p=%d: %d lines committed at the stop, %d before the run: %v", p, n, before, err)
			}
		}
		if _, err := c.Wait(); err != nil {
			t.Fatalf("p=%d: %v", p, err)
		}
		return loc
	}
	sp1 := run(1, "", true)
	sp2 := run(4, sp1, true)
	run(2, sp2, false)
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("after 1 -> 4 -> 2: %v", err)
	}
}

// Stop-with-savepoint --drain ends the job with everything committed when
// StopWithSavepoint returns: the savepoint is its final checkpoint, which
// the tasks wait for even with checkpoints after finished tasks off.
func TestStopWithDrainCommitsEverything(t *testing.T) {
	for _, noFinal := range []bool{false, true} {
		t.Run(fmt.Sprintf("noFinalCheckpoints=%v", noFinal), func(t *testing.T) {
			cfg := sequence.Config{Keys: 5, RecordsPerKey: 1 << 20, Rate: 20000}
			out := t.TempDir()
			env := fileJob(t, cfg, out, weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{
				Interval: 20 * time.Millisecond, DisableCheckpointsAfterTasksFinish: noFinal}))
			ctx := testContext(t)
			c, err := env.ExecuteAsync(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			committed := awaitCommitted(t, c, out, 0)
			loc, err := c.StopWithSavepoint(ctx, t.TempDir(), true)
			if err != nil {
				t.Fatal(err)
			}
			lines := committedLines(t, out)
			if _, err := c.Wait(); err != nil {
				t.Fatal(err)
			}
			if n, err := sequence.VerifyPrefix(lines); err != nil || n < committed {
				t.Fatalf("%d lines committed at the stop, %d before: %v", n, committed, err)
			}
			t.Logf("drained into %s with %d lines committed", loc, len(lines))
		})
	}
}

// awaitCommitted waits until a checkpoint of the running job c committed
// more than before lines into out, and returns how many.
func awaitCommitted(t *testing.T, c *weir.JobClient, out string, before int) int {
	t.Helper()
	for {
		if n := len(committedLines(t, out)); n > before {
			return n
		}
		select {
		case <-c.Done():
			t.Fatalf("the job ended before it committed more than %d lines", before)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Stop-with-savepoint without drain is synchronous, as in Flink: when
// StopWithSavepoint returns, every record before the savepoint is
// committed, and a job restored from it (writing elsewhere) commits only
// the records after it, each once. The restored job writes into another
// directory, so that a commit of the first job's data by the restored job
// (the savepoint's data left uncommitted) shows in the first directory.
func TestStopWithoutDrainCommitsTheSavepoint(t *testing.T) {
	for _, p := range []int{1, 3} {
		t.Run(fmt.Sprintf("p=%d", p), func(t *testing.T) {
			cfg := sequence.Config{Keys: 6, RecordsPerKey: 2000, Rate: 4000, ShortRecords: 12}
			out1, out2, savepoints := t.TempDir(), t.TempDir(), t.TempDir()
			ctx := testContext(t)
			env := fileJob(t, cfg, out1, weir.WithParallelism(p),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond}))
			c, err := env.ExecuteAsync(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			// A checkpoint committed some output: the job has made progress
			// and the savepoint will hold records to commit.
			awaitCommitted(t, c, out1, 0)
			loc, err := c.StopWithSavepoint(ctx, savepoints, false)
			if err != nil {
				t.Fatal(err)
			}
			stopped := committedLines(t, out1)
			if _, err := c.Wait(); err != nil {
				t.Fatal(err)
			}
			n, err := sequence.VerifyPrefix(stopped)
			if err != nil {
				t.Fatalf("committed when the stop returned: %v", err)
			}
			if n >= int(cfg.RecordsPerKey)*cfg.Keys {
				t.Fatalf("the whole input was committed before the stop (%d lines): slow the source down", n)
			}

			env = fileJob(t, sequence.Config{Keys: cfg.Keys, RecordsPerKey: cfg.RecordsPerKey, ShortRecords: cfg.ShortRecords}, out2,
				weir.WithParallelism(p), weir.WithRestoreFrom(loc, false),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
			if _, err := env.Execute(ctx, "sequence"); err != nil {
				t.Fatal(err)
			}
			if after := committedLines(t, out1); len(after) != len(stopped) {
				t.Fatalf("%d lines were committed when StopWithSavepoint returned, %d after the restored job ran: "+
					"the savepoint's data was left for the restored job to commit", len(stopped), len(after))
			}
			if err := sequence.Verify(cfg, append(stopped, committedLines(t, out2)...)); err != nil {
				t.Fatalf("stopped run and restored run together: %v", err)
			}
			t.Logf("%d lines committed at the stop into %s", len(stopped), loc)
		})
	}
}
