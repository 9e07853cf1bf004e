package sequence_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/jobs/sequence"
)

// restoreLog records the location of every restore the job logs.
type restoreLog struct {
	mu        sync.Mutex
	locations []string
}

func (r *restoreLog) Enabled(context.Context, slog.Level) bool { return true }
func (r *restoreLog) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *restoreLog) WithGroup(string) slog.Handler            { return r }
func (r *restoreLog) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message == "restoring from checkpoint" {
		rec.Attrs(func(a slog.Attr) bool {
			if a.Key == "location" {
				r.mu.Lock()
				r.locations = append(r.locations, a.Value.String())
				r.mu.Unlock()
			}
			return true
		})
	}
	return nil
}

// FLIP-147 with --short-source-records: after the short source finished,
// checkpoints keep completing; a failure after that restores from a
// checkpoint that records the short source as finished, which is not
// replayed, and the output stays exactly-once.
func TestCheckpointsAfterShortSourceFinished(t *testing.T) {
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 250, Rate: 5000, ShortRecords: 12, FailAfter: 900}
	out, cpDir := t.TempDir(), t.TempDir()
	rl := &restoreLog{}
	env := fileJob(t, cfg, out, weir.WithParallelism(2), weir.WithLogger(slog.New(rl)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 30 * time.Millisecond, Dir: cpDir, Retained: 1000}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(2, 10*time.Millisecond)))
	ctx := testContext(t)
	res, err := env.Execute(ctx, "sequence")
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("not exactly-once: %v", err)
	}
	if res.Restarts != 1 || len(rl.locations) != 1 {
		t.Fatalf("restarts %d, restores %v: want one restore from a checkpoint", res.Restarts, rl.locations)
	}
	st, err := storage.Open(ctx, cpDir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	md, err := st.ReadMetadata(ctx, rl.locations[0])
	if err != nil {
		t.Fatal(err)
	}
	var short *storage.OperatorState
	for i := range md.Operators {
		if md.Operators[i].UID == "source-short" {
			short = &md.Operators[i]
		}
	}
	if short == nil || !short.FullyFinished {
		t.Fatalf("checkpoint %d restored from does not record the short source as finished: %+v", md.CheckpointID, short)
	}
	if res.Checkpoints.Completed <= int(md.CheckpointID)/2 {
		t.Errorf("only %d checkpoints completed", res.Checkpoints.Completed)
	}
	t.Logf("restored from checkpoint %d (short source finished); %d checkpoints in all", md.CheckpointID, res.Checkpoints.Completed)
}

// With FLIP-147 switched off, a bounded job with a long checkpoint interval
// ends without a final checkpoint, so its sink never commits: the
// behaviour before FLIP-147, and the reason for it.
func TestFinalCheckpointSwitchedOff(t *testing.T) {
	cfg := sequence.Config{Keys: 3, RecordsPerKey: 100}
	for _, off := range []bool{false, true} {
		out := t.TempDir()
		env := fileJob(t, cfg, out, weir.WithParallelism(2),
			weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour, DisableCheckpointsAfterTasksFinish: off}))
		if _, err := env.Execute(testContext(t), "sequence"); err != nil {
			t.Fatal(err)
		}
		lines := committedLines(t, out)
		switch {
		case !off:
			if err := sequence.Verify(cfg, lines); err != nil {
				t.Fatalf("with the final checkpoint: %v", err)
			}
		case len(lines) > 1 || (len(lines) == 1 && lines[0] != ""):
			t.Fatalf("without FLIP-147 %d lines were committed, want none", len(lines))
		}
	}
}
