package sequence_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

// With local recovery, a Pebble job that fails and restarts in the same
// TaskManagers restores its keyed state from the copies its TaskManagers
// kept of the latest completed checkpoint, and its output stays
// exactly-once; the TaskManagers remove the copies when they close.
func TestPebbleLocalRecovery(t *testing.T) {
	// About 1.3 s before the failure, so that checkpoints (every 50 ms)
	// complete first.
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 300, Rate: 1500, ShortRecords: 20, FailAfter: 1000}
	out := t.TempDir()
	backend := weir.StateBackend{Kind: weir.Pebble, Incremental: true, LocalRecovery: true, LocalDir: t.TempDir()}
	var logs syncBuffer
	env := fileJob(t, cfg, out, weir.WithParallelism(2), weir.WithStateBackend(backend),
		weir.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
	res, err := env.Execute(testContext(t), "sequence")
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Fatalf("restarts = %d, want 1", res.Restarts)
	}
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("output is not exactly-once: %v", err)
	}
	if n := strings.Count(logs.String(), "restored keyed state from local copy"); n == 0 {
		t.Fatalf("no subtask restored from its local copy; log:\n%s", logs.String())
	}
	if left, _ := os.ReadDir(backend.LocalDir); len(left) > 0 {
		t.Errorf("state directory not cleaned up: %d entries left", len(left))
	}
}
