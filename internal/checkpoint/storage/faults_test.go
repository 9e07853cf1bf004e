package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

var randomPart = regexp.MustCompile(`[-.]?(tmp-)?[0-9a-f]{16}`)

// TestCheckpointWriteFaults fails each file-system call of a checkpoint
// write in turn (state file, shared file, second state file, _metadata),
// and checks that the failure surfaces as an error, leaves no _metadata
// and no temporary file, and that recovery still finds the previous
// checkpoint, while the storage stays usable for the next one.
func TestCheckpointWriteFaults(t *testing.T) {
	ctx := context.Background()
	payload := bytes.Repeat([]byte("fault"), 12000) // both halves are files

	// A clean run, to learn the calls checkpoint 2 makes.
	efs := newErrorFS()
	s := open(t, t.TempDir(), storage.Options{FS: efs})
	checkpointOf(t, s, 1, payload)
	efs.reset(0)
	checkpointOf(t, s, 2, payload)
	calls := efs.calls()
	for _, want := range []string{"mkdir", "create", "write", "sync", "close", "rename", "syncdir", "stat"} {
		if !strings.Contains(strings.Join(calls, "\n"), want+" ") {
			t.Fatalf("a checkpoint write makes no %q call:\n%s", want, strings.Join(calls, "\n"))
		}
	}

	for i, call := range calls {
		op, name, _ := strings.Cut(call, " ")
		// Names without the random parts, so that -run finds the same
		// case again.
		file := randomPart.ReplaceAllString(strings.ReplaceAll(filepath.Base(name), testJob, "job"), "")
		t.Run(fmt.Sprintf("%02d-%s-%s", i+1, op, file), func(t *testing.T) {
			root := t.TempDir()
			efs := newErrorFS()
			var logs logBuffer
			s := open(t, root, storage.Options{FS: efs, Logger: logs.logger()})
			checkpointOf(t, s, 1, payload)

			efs.reset(i + 1)
			_, _, err := tryCheckpoint(ctx, s, 2, payload)
			if !errors.Is(err, errInjected) {
				t.Fatalf("checkpoint 2 with call %d (%s) failing: err = %v, want the injected fault", i+1, call, err)
			}
			efs.reset(0)

			chk2 := filepath.Join(root, testJob, "chk-2")
			if _, err := os.Stat(filepath.Join(chk2, "_metadata")); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("failed commit left a _metadata (stat: %v)", err)
			}
			filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.HasPrefix(d.Name(), ".") {
					t.Errorf("temporary file left behind: %s", p)
				}
				return nil
			})

			md, loc, err := s.LatestCompleted(ctx, testJob)
			if err != nil || md.CheckpointID != 1 {
				t.Fatalf("LatestCompleted after the fault = %v, %v; want checkpoint 1", md, err)
			}
			if _, err := os.Stat(chk2); err == nil && !strings.Contains(logs.String(), "chk-2") {
				t.Fatalf("LatestCompleted skipped chk-2 without logging it:\n%s", logs.String())
			}
			if _, err := readAll(s.ReadState(ctx, loc, md.Operators[0].Subtasks[0].Keyed[0].Stream)); err != nil {
				t.Fatalf("checkpoint 1 unreadable: %v", err)
			}

			// The failed checkpoint is aborted and the next one
			// succeeds.
			w, _ := s.CreateCheckpointWriter(testJob, 2)
			if err := w.Abort(ctx); err != nil {
				t.Fatalf("Abort: %v", err)
			}
			if _, err := os.Stat(chk2); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("Abort left %s (stat: %v)", chk2, err)
			}
			checkpointOf(t, s, 3, payload)
			if md, _, err := s.LatestCompleted(ctx, testJob); err != nil || md.CheckpointID != 3 {
				t.Fatalf("LatestCompleted after checkpoint 3 = %v, %v", md, err)
			}
		})
	}
}

// TestReadFaults: an I/O error while reading state is reported as such, not
// as corruption.
func TestReadFaults(t *testing.T) {
	ctx := context.Background()
	efs := newErrorFS()
	s := open(t, t.TempDir(), storage.Options{FS: efs})
	md, loc := checkpointOf(t, s, 1, bytes.Repeat([]byte("r"), 100000))
	h := md.Operators[0].Subtasks[0].Keyed[0].Stream
	efs.failWhen(func(op, name string) bool { return op == "read" })
	_, err := readAll(s.ReadState(ctx, loc, h))
	if !errors.Is(err, errInjected) || errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("ReadState with failing reads: %v", err)
	}
	efs.failWhen(func(op, name string) bool { return op == "open" })
	if _, err := s.ReadMetadata(ctx, loc); !errors.Is(err, errInjected) || errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("ReadMetadata with failing opens: %v", err)
	}
}
