package sequence_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/jobs/sequence"
)

// Incremental Pebble checkpoints share SST files: the retained checkpoints
// of an incremental job reference some of the same shared files, those of
// a full one never do; and in both, the job's shared directory holds
// exactly the files the retained checkpoints reference (the registry
// deleted every other one, and nothing they need). The output is
// exactly-once through a failure either way.
func TestIncrementalCheckpointsShareFiles(t *testing.T) {
	for _, incremental := range []bool{true, false} {
		name := "full"
		if incremental {
			name = "incremental"
		}
		t.Run(name, func(t *testing.T) {
			cfg := sequence.Config{Keys: 40, RecordsPerKey: 400, Rate: 16000, FailAfter: 3000}
			out, cps := t.TempDir(), t.TempDir()
			env := fileJob(t, cfg, out, weir.WithParallelism(2),
				weir.WithStateBackend(weir.StateBackend{Kind: weir.Pebble, Incremental: incremental, LocalDir: t.TempDir()}),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 40 * time.Millisecond, Dir: cps, Retained: 8}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
			ctx := testContext(t)
			c, err := env.ExecuteAsync(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			res, err := c.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
				t.Fatalf("output is not exactly-once: %v", err)
			}
			retained := retainedCheckpoints(t, cps, c.JobID())
			if len(retained) < 2 {
				t.Fatalf("%d checkpoints retained, want at least 2 (%d completed)", len(retained), res.Checkpoints.Completed)
			}
			referenced := map[string]int{}
			for _, md := range retained {
				for _, f := range md.SharedFiles() {
					referenced[f.Path]++
				}
			}
			var shared []string
			for p, n := range referenced {
				if n > 1 && strings.HasPrefix(filepath.Base(p), "0") {
					shared = append(shared, p)
				}
			}
			if incremental && len(shared) == 0 {
				t.Errorf("no SST file is referenced by two of the %d retained checkpoints", len(retained))
			}
			if !incremental && len(shared) > 0 {
				t.Errorf("full checkpoints share files %v", shared)
			}
			onDisk := listDir(t, filepath.Join(cps, c.JobID(), "shared"))
			want := make([]string, 0, len(referenced))
			for p := range referenced {
				want = append(want, strings.TrimPrefix(p, "shared/"))
			}
			slices.Sort(want)
			if !slices.Equal(onDisk, want) {
				for _, md := range retained {
					missing := 0
					for _, f := range md.SharedFiles() {
						if _, err := os.Stat(filepath.Join(cps, c.JobID(), f.Path)); err != nil {
							missing++
						}
					}
					t.Logf("retained chk %d: %d shared files, %d missing", md.CheckpointID, len(md.SharedFiles()), missing)
				}
				t.Errorf("shared directory holds %d files, the retained checkpoints reference %d:\non disk %v\nreferenced %v",
					len(onDisk), len(want), onDisk, want)
			}
			t.Logf("%d checkpoints, %d retained, %d shared files, %d referenced by more than one", res.Checkpoints.Completed, len(retained), len(want), len(shared))
		})
	}
}

// retainedCheckpoints reads the metadata of every chk-* directory of job.
func retainedCheckpoints(t *testing.T, root, job string) []*storage.Metadata {
	t.Helper()
	st, err := storage.Open(context.Background(), root, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out []*storage.Metadata
	for _, name := range listDir(t, filepath.Join(root, job)) {
		if !strings.HasPrefix(name, "chk-") {
			continue
		}
		md, err := st.ReadMetadata(context.Background(), filepath.Join(root, job, name))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, md)
	}
	return out
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}
