package sequence_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/jobs/sequence"
)

// savepointOf runs the sequence job briefly and stops it with a savepoint.
func savepointOf(t *testing.T, cfg sequence.Config) string {
	t.Helper()
	env := fileJob(t, cfg, t.TempDir(), weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	ctx := testContext(t)
	c, err := env.ExecuteAsync(ctx, "sequence")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	loc, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	return loc
}

// Restoring from a damaged or foreign savepoint fails with a clear error
// before any record is processed, and nothing is written.
func TestRestoreFromBadSavepoints(t *testing.T) {
	cfg := sequence.Config{Keys: 4, RecordsPerKey: 1 << 20, Rate: 5000}
	good := savepointOf(t, cfg)
	corrupt := func(mutate func(path string)) string {
		dir := t.TempDir()
		copyDir(t, good, dir)
		mutate(dir)
		return dir
	}
	tests := []struct {
		name     string
		location string
		build    func(env *weir.Env) error
		want     error
		msg      string
	}{
		{"corrupt metadata", corrupt(func(d string) {
			p := filepath.Join(d, "_metadata")
			b, _ := os.ReadFile(p)
			b[len(b)/2] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}), nil, storage.ErrCorrupt, "corrupt"},
		{"truncated metadata", corrupt(func(d string) {
			p := filepath.Join(d, "_metadata")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-7], 0o644)
		}), nil, storage.ErrCorrupt, "corrupt"},
		{"missing savepoint", filepath.Join(t.TempDir(), "nothing-here"), nil, nil, "nothing-here"},
		{"savepoint of another job", good, func(env *weir.Env) error {
			// Same sources, but the counter got another uid: its state
			// has no operator to go to.
			in := sequence.Source(env, "k", 4, 100, 0).UID("source-long")
			weir.AddSink(in, func(sequence.Record) error { return nil })
			return env.Err()
		}, restore.ErrUnclaimedState, `"count"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			// Checkpointing brings Flink's restart-forever default: a
			// savepoint that cannot be restored must still fail the job.
			opts := []weir.Option{weir.WithParallelism(2), weir.WithRestoreFrom(tt.location, false),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour})}
			var env *weir.Env
			if tt.build != nil {
				env = weir.NewEnv(opts...)
				if err := tt.build(env); err != nil {
					t.Fatal(err)
				}
			} else {
				env = fileJob(t, cfg, out, opts...)
			}
			_, err := env.Execute(testContext(t), "restore")
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tt.want, tt.msg)
			}
			if lines := committedLines(t, out); len(lines) > 0 {
				t.Fatalf("a job that could not restore committed %d lines", len(lines))
			}
		})
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
