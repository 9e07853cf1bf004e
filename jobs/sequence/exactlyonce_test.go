package sequence_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/jobs/sequence"
)

// committedLines reads the committed output of the file sink.
func committedLines(t *testing.T, dir string) []string {
	t.Helper()
	lines, err := sequence.CommittedLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestExactlyOnceFileSinkWithFailure(t *testing.T) {
	pebble := weir.StateBackend{Kind: weir.Pebble}
	incremental := weir.StateBackend{Kind: weir.Pebble, Incremental: true}
	for _, tt := range []struct {
		name      string
		unaligned bool
		dynamic   bool
		backend   weir.StateBackend
	}{
		{"heap-aligned", false, false, weir.StateBackend{}},
		{"heap-unaligned", true, false, weir.StateBackend{}},
		{"heap-dynamic-splits", false, true, weir.StateBackend{}},
		{"pebble-aligned", false, false, pebble},
		{"pebble-incremental-aligned", false, false, incremental},
		{"pebble-incremental-unaligned", true, false, incremental},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := sequence.Config{Keys: 10, RecordsPerKey: 300, Rate: 10000, ShortRecords: 20, FailAfter: 1000, DynamicSplits: tt.dynamic}
			out := t.TempDir()
			tt.backend.LocalDir = t.TempDir()
			env := fileJob(t, cfg, out, weir.WithParallelism(2), weir.WithStateBackend(tt.backend),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 50 * time.Millisecond, Unaligned: tt.unaligned}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
			ctx := testContext(t)
			res, err := env.Execute(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			if res.Restarts != 1 {
				t.Errorf("restarts = %d, want 1 (--fail-after fails once)", res.Restarts)
			}
			if res.Checkpoints.Completed < 2 {
				t.Errorf("%d checkpoints completed, want a few", res.Checkpoints.Completed)
			}
			if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
				t.Fatalf("output is not exactly-once: %v", err)
			}
			// Every subtask removed its working directory.
			if left, _ := os.ReadDir(tt.backend.LocalDir); len(left) > 0 {
				t.Errorf("state directory not cleaned up: %d entries left", len(left))
			}
			t.Logf("%d checkpoints, %d failed, %v", res.Checkpoints.Completed, res.Checkpoints.Failed, res.Duration)
		})
	}
}

// fileJob builds the sequence job with the exactly-once file sink writing
// into out.
func fileJob(t *testing.T, cfg sequence.Config, out string, opts ...weir.Option) *weir.Env {
	t.Helper()
	env := weir.NewEnv(opts...)
	counts, err := sequence.Build(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	weir.SinkTo(counts, file.NewSink(out, sequence.Count.String)).UID("sink")
	return env
}

// testContext bounds a job of a test by a minute.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
