package sequence_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/jobs/sequence"
)

// A job whose latest completed checkpoint becomes unreadable during a
// failover fails with an error naming it; it never restarts from an older
// checkpoint or from nothing, which would repeat the output the latest
// checkpoint's completion committed. The JobMaster reads only the
// metadata and the files' sizes before a restart: a state file zeroed at
// its size is found by the subtask that restores it (its error says
// "restore from"), and fails the job the same way.
func TestUnreadableLatestCheckpointFailsTheJob(t *testing.T) {
	// by is what the error says of who found the damage.
	by := map[string]string{
		"metadata truncated": "corrupt",
		"metadata deleted":   "not found",
		"state file zeroed":  "restore from",
	}
	damage := map[string]func(path string) (bool, error){
		"metadata truncated": func(path string) (bool, error) {
			if filepath.Base(path) != "_metadata" {
				return false, nil
			}
			return true, os.Truncate(path, 10)
		},
		"metadata deleted": func(path string) (bool, error) {
			if filepath.Base(path) != "_metadata" {
				return false, nil
			}
			return true, os.Remove(path)
		},
		"state file zeroed": func(path string) (bool, error) {
			// Not the metadata, nor its temporary file (".NAME.tmp-..."),
			// which a commit in flight renames to it.
			if base := filepath.Base(path); base == "_metadata" || strings.HasPrefix(base, "._metadata.tmp-") {
				return false, nil
			}
			fi, err := os.Stat(path)
			if err != nil {
				return false, err
			}
			// In place, never truncated: a restart that looks at the
			// file meanwhile sees its size.
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return false, err
			}
			_, err = f.WriteAt(make([]byte, fi.Size()), 0)
			return true, errors.Join(err, f.Close())
		},
	}
	for name, damage := range damage {
		t.Run(name, func(t *testing.T) {
			// 6000 keys: each subtask's keyed state is well above the
			// 20 KiB kept inline in _metadata, so there are state files
			// once every key has been seen.
			cfg := sequence.Config{Keys: 6000, RecordsPerKey: 100, Rate: 30000}
			out, checkpoints := t.TempDir(), t.TempDir()
			env := weir.NewEnv(weir.WithParallelism(2),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Dir: checkpoints}),
				// The restart delay is the window in which the test
				// damages the checkpoints: under -race on a loaded
				// machine 200 ms went by unseen.
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, time.Second)))
			counts, err := sequence.Build(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			// The job fails once, when the test says so: after a completed
			// checkpoint with state files, not after a count of records,
			// which on a loaded machine came before any checkpoint had
			// completed (a restart from nothing, with nothing to damage).
			var fail, failed atomic.Bool
			counts = weir.Map(counts, func(c sequence.Count) (sequence.Count, error) {
				if fail.Load() && !failed.Swap(true) {
					return c, errors.New("failing as the test asked")
				}
				return c, nil
			})
			weir.SinkTo(counts, file.NewSink(out, sequence.Count.String)).UID("sink")
			ctx := testContext(t)
			c, err := env.ExecuteAsync(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			for !fail.Load() {
				n, err := completedStateFiles(checkpoints)
				if err != nil {
					t.Fatal(err)
				}
				if n > 0 {
					fail.Store(true)
					break
				}
				select {
				case <-c.Done():
					_, err := c.Wait()
					t.Fatalf("the job ended before a checkpoint with state files completed (err %v)", err)
				case <-time.After(time.Millisecond):
				}
			}
			// Once the job is restarting (every task of the failed attempt
			// has ended), damage every checkpoint, and any that a commit
			// still in flight completes, until the restart has read them.
			damaged, files := false, 0
			for !damaged || c.Status().State == "RESTARTING" {
				if c.Status().State == "RESTARTING" {
					damaged = true
					n, err := damageCheckpoints(checkpoints, damage)
					if err != nil {
						t.Fatal(err)
					}
					files += n
				}
				select {
				case <-c.Done():
					damaged = true
				case <-time.After(time.Millisecond):
					continue
				}
				break
			}
			_, err = c.Wait()
			if files == 0 {
				t.Fatalf("nothing to damage when the job restarted (err %v)", err)
			}
			if !errors.Is(err, weir.ErrJobFailed) || !errors.Is(err, weir.ErrUnrecoverable) || !strings.Contains(err.Error(), "latest completed checkpoint") || !strings.Contains(err.Error(), by[name]) {
				t.Fatalf("err = %v, want the job failed, unrecoverable, naming the latest completed checkpoint, and %q", err, by[name])
			}
			if n, err := sequence.VerifyPrefix(committedLines(t, out)); err != nil {
				t.Fatalf("after %d committed lines: %v", n, err)
			}
		})
	}
}

// damageCheckpoints applies damage to every file of every chk-N directory
// under root and returns how many files it damaged.
func damageCheckpoints(root string, damage func(string) (bool, error)) (int, error) {
	n := 0
	err := walkCheckpointFiles(root, func(path string) error {
		done, err := damage(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if done && err == nil {
			n++
		}
		return nil
	})
	return n, err
}

// completedStateFiles counts the state files (all but _metadata) of the
// chk-N directories under root whose _metadata is there.
func completedStateFiles(root string) (int, error) {
	n := 0
	err := walkCheckpointFiles(root, func(path string) error {
		if filepath.Base(path) == "_metadata" || strings.HasPrefix(filepath.Base(path), ".") {
			return nil
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "_metadata")); err == nil {
			n++
		}
		return nil
	})
	return n, err
}

// walkCheckpointFiles calls fn with every file of every chk-N directory
// under root, skipping what a subsumption removes meanwhile.
func walkCheckpointFiles(root string, fn func(path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by a subsumption meanwhile
			}
			return err
		}
		if d.IsDir() || !strings.HasPrefix(filepath.Base(filepath.Dir(path)), "chk-") {
			return nil
		}
		return fn(path)
	})
}
