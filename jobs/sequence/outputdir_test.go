package sequence_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

// Issue 9, item 2: the sequence job restored from a retained checkpoint
// with another --output finishes. The restored committables are committed
// in the directory they were written into, the new job writes into its own
// (created by its writers, after the restored commits), and the two
// directories together hold the output exactly once, without a hidden file.
func TestRestoreCheckpointIntoAnotherOutput(t *testing.T) {
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 400, Rate: 10000, FailAfter: 1500}
	checkpoints, oldOut := t.TempDir(), t.TempDir()
	newOut := filepath.Join(t.TempDir(), "new")
	ctx := testContext(t)

	// The first run fails once after checkpoints completed, and does not
	// restart: its latest checkpoint stays in the checkpoint directory.
	env := fileJob(t, cfg, oldOut, weir.WithParallelism(2), weir.WithRestartStrategy(weir.NoRestart()),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Dir: checkpoints}))
	res, err := env.Execute(ctx, "sequence")
	if !errors.Is(err, weir.ErrJobFailed) || !strings.Contains(err.Error(), "--fail-after") {
		t.Fatalf("first run: %v, want its designated failure", err)
	}
	latest := res.Checkpoints.Latest
	if latest == "" {
		t.Fatalf("no checkpoint completed before the failure after %d records", cfg.FailAfter)
	}

	// At parallelism 1 no other subtask's writer creates the new
	// directory before the restored committables are committed.
	cfg.FailAfter = 0
	env = fileJob(t, cfg, newOut, weir.WithParallelism(1), weir.WithRestartStrategy(weir.NoRestart()),
		weir.WithRestoreFrom(latest, false), weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond}))
	if _, err := env.Execute(ctx, "sequence"); err != nil {
		t.Fatalf("restored from %s into %s: %v", latest, newOut, err)
	}
	lines := committedLines(t, oldOut)
	if len(lines) == 0 {
		t.Fatal("nothing committed in the first run's directory")
	}
	if err := sequence.Verify(cfg, append(lines, committedLines(t, newOut)...)); err != nil {
		t.Fatalf("the two directories together: %v", err)
	}
	for _, dir := range []string{oldOut, newOut} {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("hidden file left: %s", filepath.Join(dir, e.Name()))
			}
		}
	}
}
