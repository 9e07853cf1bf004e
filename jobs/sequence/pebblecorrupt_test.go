package sequence_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/jobs/sequence"
)

// A Pebble checkpoint whose files were damaged after it completed is never
// run: a restore from it fails at once, before Pebble opens the files, with
// an unrecoverable error that names the damaged file and the checkpoint,
// and without a record processed. Each damage (truncated,
// zeroed, one bit flipped, missing) of each kind of file the checkpoint
// references (its oldest SST file, MANIFEST, CURRENT, OPTIONS), for full
// and for incremental checkpoints. Before checksums were recorded, a
// zeroed SST restored and then hung in Pebble's compaction, and the other
// damages restarted forever: the deadline turns such a regression into a
// failure, not a hung suite.
func TestCorruptPebbleCheckpointFailsAtOnce(t *testing.T) {
	for _, incremental := range []bool{false, true} {
		name := "full"
		if incremental {
			name = "incremental"
		}
		t.Run(name, func(t *testing.T) {
			// About 16 s of input at the throttled rate: the first run is
			// cancelled once it completed its checkpoints, long before,
			// even on a loaded machine; the restores read the rest as fast
			// as they can (the rate is not part of the state).
			cfg := sequence.Config{Keys: 8, RecordsPerKey: 4000, Rate: 2000}
			out := t.TempDir()
			cps := retainedPebbleCheckpoints(t, cfg, out, incremental)
			cfg.Rate = 0
			latest := cps[len(cps)-1]
			target := latest
			if incremental {
				// Damage an SST file the checkpoint took over from an
				// earlier one: its handle carried the CRC over.
				target = checkpointSharingAnSST(t, cps)
			}
			for _, kind := range pebbleFileKinds {
				f, ok := pickSharedFile(target, kind.match)
				if !ok {
					t.Fatalf("checkpoint %d references no %s file: %v", target.md.CheckpointID, kind.name, sharedKeys(target.md))
				}
				for _, d := range damages {
					t.Run(kind.name+"/"+d.name, func(t *testing.T) {
						job := copyCheckpoint(t, target.loc)
						loc := filepath.Join(job, filepath.Base(target.loc))
						if err := d.apply(filepath.Join(job, f.Path)); err != nil {
							t.Fatal(err)
						}
						restoreCorrupt(t, cfg, out, loc, f.Key, incremental)
						if _, err := sequence.VerifyPrefix(committedLines(t, out)); err != nil {
							t.Fatalf("output after the failed restore: %v", err)
						}
					})
				}
			}
			// The damages were made to copies: the latest checkpoint itself
			// still restores, and the job completes exactly-once from it.
			env := fileJob(t, cfg, out, pebbleOption(t, incremental), weir.WithRestoreFrom(latest.loc, false),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Dir: t.TempDir()}))
			if _, err := env.Execute(testContext(t), "sequence"); err != nil {
				t.Fatalf("restore from the intact checkpoint: %v", err)
			}
			if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
				t.Fatalf("after the intact restore: %v", err)
			}
		})
	}
}

// pebbleFileKinds are the kinds of file a Pebble checkpoint references.
var pebbleFileKinds = []struct {
	name  string
	match func(key string) bool
}{
	{"sst", func(k string) bool { return strings.HasSuffix(k, ".sst") }},
	{"MANIFEST", func(k string) bool { return strings.HasPrefix(k, "MANIFEST-") }},
	{"CURRENT", func(k string) bool { return k == "CURRENT" }},
	{"OPTIONS", func(k string) bool { return strings.HasPrefix(k, "OPTIONS-") }},
}

// damages are what happens to a file on a disk or in a bucket.
var damages = []struct {
	name  string
	apply func(path string) error
}{
	{"truncated", func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		return os.Truncate(p, fi.Size()/2)
	}},
	{"zeroed", func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		return os.WriteFile(p, make([]byte, fi.Size()), 0o644)
	}},
	{"flipped", func(p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			return fmt.Errorf("%s is empty: no bit to flip", p)
		}
		b[len(b)/2] ^= 0x04
		return os.WriteFile(p, b, 0o644)
	}},
	{"missing", os.Remove},
}

// pebbleOption is the Pebble backend, full or incremental, in a working
// directory of the test.
func pebbleOption(t *testing.T, incremental bool) weir.Option {
	return weir.WithStateBackend(weir.StateBackend{Kind: weir.Pebble, Incremental: incremental, LocalDir: t.TempDir()})
}

// retained is a retained checkpoint: its metadata, its location, and the
// shared files that older retained checkpoints reference too.
type retained struct {
	md    *storage.Metadata
	loc   string
	older map[string]bool
}

// retainedPebbleCheckpoints runs the job until it completed a number of
// checkpoints, cancels it, and returns the checkpoints it leaves behind,
// oldest first. It checks that every file they reference has its CRC
// recorded, those an incremental checkpoint took over from an earlier one
// included.
func retainedPebbleCheckpoints(t *testing.T, cfg sequence.Config, out string, incremental bool) []retained {
	t.Helper()
	const n = 10
	cps := t.TempDir()
	completed := &checkpointLog{want: n, done: make(chan struct{})}
	env := fileJob(t, cfg, out, pebbleOption(t, incremental), weir.WithLogger(slog.New(completed)),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond, Dir: cps, Retained: n}))
	c, err := env.ExecuteAsync(testContext(t), "sequence")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-completed.done:
		c.Cancel()
	case <-c.Done():
		t.Fatalf("the job ended before it completed %d checkpoints", n)
	}
	if _, err := c.Wait(); err == nil {
		t.Fatal("the cancelled job reported success")
	}
	mds := retainedCheckpoints(t, cps, c.JobID())
	if len(mds) == 0 {
		t.Fatal("no checkpoint completed before the injected failure")
	}
	slices.SortFunc(mds, func(a, b *storage.Metadata) int { return cmp.Compare(a.CheckpointID, b.CheckpointID) })
	var all []retained
	seen := map[string]bool{}
	for _, md := range mds {
		r := retained{md: md, loc: filepath.Join(cps, c.JobID(), fmt.Sprintf("chk-%d", md.CheckpointID)), older: map[string]bool{}}
		for _, f := range md.SharedFiles() {
			if !f.HasCRC {
				t.Errorf("checkpoint %d records no CRC of %s", md.CheckpointID, f.Key)
			}
			r.older[f.Path] = seen[f.Path]
		}
		for _, f := range md.SharedFiles() {
			seen[f.Path] = true
		}
		all = append(all, r)
	}
	return all
}

// checkpointLog closes done once the job logged want completed
// checkpoints.
type checkpointLog struct {
	mu   sync.Mutex
	n    int
	want int
	done chan struct{}
}

func (l *checkpointLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *checkpointLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *checkpointLog) WithGroup(string) slog.Handler            { return l }
func (l *checkpointLog) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "checkpoint completed" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n++; l.n == l.want {
		close(l.done)
	}
	return nil
}

// checkpointSharingAnSST returns the newest of cps that references an SST
// file an older one references too.
func checkpointSharingAnSST(t *testing.T, cps []retained) retained {
	t.Helper()
	for i := len(cps) - 1; i >= 0; i-- {
		for p, older := range cps[i].older {
			if older && strings.Contains(p, ".sst") {
				return cps[i]
			}
		}
	}
	t.Fatalf("none of the %d retained incremental checkpoints shares an SST file with an older one", len(cps))
	return retained{}
}

// pickSharedFile returns a file of r whose key match accepts: one that an
// older checkpoint references too if any, and of those the one whose key
// sorts first, for SST files the oldest.
func pickSharedFile(r retained, match func(string) bool) (storage.SharedFile, bool) {
	var out storage.SharedFile
	found := false
	for _, f := range r.md.SharedFiles() {
		if !match(f.Key) {
			continue
		}
		if !found || r.older[f.Path] && !r.older[out.Path] || r.older[f.Path] == r.older[out.Path] && f.Key < out.Key {
			out, found = f, true
		}
	}
	return out, found
}

func sharedKeys(md *storage.Metadata) []string {
	var keys []string
	for _, f := range md.SharedFiles() {
		keys = append(keys, f.Key)
	}
	return keys
}

// copyCheckpoint copies the job directory of the checkpoint at chk (its
// chk-N directory and the shared files) into a new directory and returns
// the copy's job directory.
func copyCheckpoint(t *testing.T, chk string) string {
	t.Helper()
	src := filepath.Dir(chk)
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// restoreCorrupt restores the job from the damaged checkpoint at loc and
// checks that it fails at once, unrecoverably, naming the file and the
// checkpoint, and that no record was counted.
func restoreCorrupt(t *testing.T, cfg sequence.Config, out, loc, key string, incremental bool) {
	t.Helper()
	// A thousand restarts allowed: the error itself must end the job
	// before its deadline. (A restart may still happen when an upstream
	// subtask's send to the failed one is reported first, as a recoverable
	// failure; the restored generation fails again, unrecoverably.)
	env := fileJob(t, cfg, out, pebbleOption(t, incremental), weir.WithRestoreFrom(loc, false),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Dir: t.TempDir()}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(1000, 10*time.Millisecond)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		res *weir.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := env.Execute(ctx, "sequence")
		done <- result{res, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		// A task blocked in Pebble may not even see the cancellation.
		t.Fatalf("the restore from a damaged %s ignored its deadline", key)
	}
	switch {
	case r.err == nil:
		t.Fatalf("restored from a checkpoint with a damaged %s", key)
	case ctx.Err() != nil:
		t.Fatalf("the restore from a damaged %s neither failed nor finished in time (%d restarts): %v", key, r.res.Restarts, r.err)
	case !errors.Is(r.err, weir.ErrUnrecoverable):
		t.Errorf("error not marked unrecoverable: %v", r.err)
	}
	if !strings.Contains(r.err.Error(), key) || !strings.Contains(r.err.Error(), loc) {
		t.Errorf("error does not name both the file %s and the checkpoint %s: %v", key, loc, r.err)
	}
	counted := false
	for _, v := range r.res.Vertices {
		if strings.Contains(v.Name, "count") {
			counted = true
			if v.RecordsOut != 0 {
				t.Errorf("%s emitted %d records from damaged state", v.Name, v.RecordsOut)
			}
		}
	}
	if !counted {
		t.Errorf("no counting vertex among %+v", r.res.Vertices)
	}
}
