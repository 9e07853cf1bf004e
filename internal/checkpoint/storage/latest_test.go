package storage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// TestLatestCompletedSkips: checkpoint 1 is complete, checkpoint 2 is
// broken in one way; LatestCompleted returns 1 and logs why it skipped 2.
func TestLatestCompletedSkips(t *testing.T) {
	payload := bytes.Repeat([]byte("state"), 10000) // files, not inline
	type chk struct {
		md  *storage.Metadata
		loc string
	}
	tests := []struct {
		name   string
		verify storage.VerifyMode
		break2 func(t *testing.T, b *backend, s *storage.Storage, one, two chk)
		reason string
		want   int64 // the checkpoint returned
	}{
		{"complete", storage.VerifyFull, func(*testing.T, *backend, *storage.Storage, chk, chk) {}, "", 2},
		{"no metadata", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			b.remove(t, two.loc+"/_metadata")
		}, "not found", 1},
		{"empty metadata", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			b.write(t, two.loc+"/_metadata", nil)
		}, "truncated: 0 bytes", 1},
		{"truncated metadata", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			m := b.read(t, two.loc+"/_metadata")
			b.write(t, two.loc+"/_metadata", m[:len(m)-1])
		}, "checksum mismatch", 1},
		{"flipped metadata", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			m := b.read(t, two.loc+"/_metadata")
			m[len(m)/2] ^= 0x10
			b.write(t, two.loc+"/_metadata", m)
		}, "checksum mismatch", 1},
		{"metadata of another checkpoint", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			b.write(t, two.loc+"/_metadata", b.read(t, one.loc+"/_metadata"))
		}, "is of job", 1},
		{"missing state file", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			b.remove(t, b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].Keyed[0].Stream.Path))
		}, "not found", 1},
		{"damaged state file", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			f := b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].ChannelState[0].Path)
			d := b.read(t, f)
			d[7] ^= 1
			b.write(t, f, d)
		}, "CRC", 1},
		{"damaged state file, size check only", storage.VerifySize, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			f := b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].ChannelState[0].Path)
			d := b.read(t, f)
			d[7] ^= 1
			b.write(t, f, d)
		}, "", 2}, // VerifySize is blind to it; ReadState catches it at restore
		{"truncated state file, size check only", storage.VerifySize, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			f := b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].Keyed[0].Stream.Path)
			b.write(t, f, b.read(t, f)[1:])
		}, "its handle records", 1},
		{"missing shared file", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			b.remove(t, b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path))
		}, "not found", 1},
		{"damaged shared file", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			f := b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path)
			d := b.read(t, f)
			d[len(d)/2] ^= 1
			b.write(t, f, d)
		}, "CRC", 1},
		{"damaged shared file, size check only", storage.VerifySize, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			f := b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path)
			d := b.read(t, f)
			d[len(d)/2] ^= 1
			b.write(t, f, d)
		}, "", 2}, // VerifySize is blind to it; ReadShared catches it at restore
		{"shared file of another size", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			b.write(t, b.fileOf(two.loc, two.md.Operators[0].Subtasks[0].Keyed[0].Shared[0].Path), []byte("x"))
		}, "has 1 bytes", 1},
		{"unfinished checkpoint 3", storage.VerifyFull, func(t *testing.T, b *backend, s *storage.Storage, one, two chk) {
			w, _ := s.CreateCheckpointWriter(testJob, 3)
			if _, err := w.WriteState(context.Background(), "partial", bytes.NewReader(payload)); err != nil {
				t.Fatal(err)
			}
		}, "not found", 2},
	}
	for _, kind := range backendKinds {
		for _, tt := range tests {
			b := kind(t)
			t.Run(b.name+"/"+tt.name, func(t *testing.T) {
				var logs logBuffer
				s := b.open(t, storage.Options{Logger: logs.logger(), Verify: tt.verify})
				var one, two chk
				one.md, one.loc = checkpointOf(t, s, 1, payload)
				two.md, two.loc = checkpointOf(t, s, 2, payload)
				tt.break2(t, b, s, one, two)

				md, loc, err := s.LatestCompleted(context.Background(), testJob)
				if err != nil {
					t.Fatalf("LatestCompleted: %v", err)
				}
				want := map[int64]chk{1: one, 2: two}[tt.want]
				if md.CheckpointID != tt.want || loc != want.loc {
					t.Fatalf("LatestCompleted = checkpoint %d at %s, want %d", md.CheckpointID, loc, tt.want)
				}
				if tt.reason == "" {
					if logs.String() != "" {
						t.Fatalf("unexpected log: %s", logs.String())
					}
					return
				}
				skipped := map[int64]int64{1: 2, 2: 3}[tt.want]
				line := logs.String()
				if !strings.Contains(line, "skipping incomplete checkpoint") ||
					!strings.Contains(line, "checkpoint="+map[int64]string{2: "2", 3: "3"}[skipped]) ||
					!strings.Contains(line, "chk-"+map[int64]string{2: "2", 3: "3"}[skipped]) || !strings.Contains(line, tt.reason) {
					t.Fatalf("log does not name checkpoint %d and %q:\n%s", skipped, tt.reason, line)
				}
			})
		}
	}
}

func TestLatestCompletedNone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		ctx := context.Background()
		s := b.open(t, storage.Options{})
		if _, _, err := s.LatestCompleted(ctx, testJob); !errors.Is(err, storage.ErrNoCheckpoint) {
			t.Fatalf("LatestCompleted of an unknown job: %v", err)
		}
		_, loc := checkpointOf(t, s, 1, []byte("small"))
		b.remove(t, loc+"/_metadata")
		if _, _, err := s.LatestCompleted(ctx, testJob); !errors.Is(err, storage.ErrNoCheckpoint) {
			t.Fatalf("LatestCompleted with only a partial checkpoint: %v", err)
		}
		if _, _, err := s.LatestCompleted(ctx, "../x"); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("LatestCompleted of a bad job id: %v", err)
		}
	})
}

// TestLatestCompletedOrder: ids are compared as numbers, and entries that
// are not checkpoint directories are ignored.
func TestLatestCompletedOrder(t *testing.T) {
	root := t.TempDir()
	s := open(t, root, storage.Options{})
	for _, id := range []int64{9, 10, 2} {
		checkpointOf(t, s, id, []byte("x"))
	}
	for _, name := range []string{"chk-x", "chk-011", "chk-", "chk-99999999999999999999", "savepoint-1", "zzz"} {
		if err := os.Mkdir(filepath.Join(root, testJob, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	md, _, err := s.LatestCompleted(context.Background(), testJob)
	if err != nil || md.CheckpointID != 10 {
		t.Fatalf("LatestCompleted = %v, %v; want checkpoint 10", md, err)
	}
}

// TestLatestCompletedDoesNotGoBack: a newer checkpoint that cannot be read
// for a reason other than damage stops the search with an error instead of
// falling back to an older one.
func TestLatestCompletedDoesNotGoBack(t *testing.T) {
	ctx := context.Background()
	t.Run("newer format", func(t *testing.T) {
		root := t.TempDir()
		s := open(t, root, storage.Options{})
		checkpointOf(t, s, 1, []byte("x"))
		_, loc := checkpointOf(t, s, 2, []byte("x"))
		m, err := os.ReadFile(loc + "/_metadata")
		if err != nil {
			t.Fatal(err)
		}
		binary.LittleEndian.PutUint16(m[4:], 2<<8)
		if err := os.WriteFile(loc+"/_metadata", reseal(m), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.LatestCompleted(ctx, testJob); !errors.Is(err, storage.ErrVersion) || !strings.Contains(err.Error(), "checkpoint 2") {
			t.Fatalf("LatestCompleted: %v, want ErrVersion naming checkpoint 2", err)
		}
	})
	t.Run("read error", func(t *testing.T) {
		fs := newErrorFS()
		s := open(t, t.TempDir(), storage.Options{FS: fs})
		checkpointOf(t, s, 1, []byte("x"))
		checkpointOf(t, s, 2, []byte("x"))
		fs.failWhen(func(op, name string) bool { return op == "open" && strings.Contains(name, "chk-2") })
		if _, _, err := s.LatestCompleted(ctx, testJob); !errors.Is(err, errInjected) || !strings.Contains(err.Error(), "checkpoint 2") {
			t.Fatalf("LatestCompleted: %v, want the injected error naming checkpoint 2", err)
		}
	})
}

func TestDiscard(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		ctx := context.Background()
		s := b.open(t, storage.Options{})
		payload := bytes.Repeat([]byte("d"), 50000)
		_, loc1 := checkpointOf(t, s, 1, payload)
		md2, loc2 := checkpointOf(t, s, 2, payload)
		shared := md2.Operators[0].Subtasks[0].Keyed[0].Shared[0]

		if err := s.Discard(ctx, loc2); err != nil {
			t.Fatalf("Discard: %v", err)
		}
		if n := b.count(t, loc2); n != 0 {
			t.Fatalf("%d files left in the discarded checkpoint", n)
		}
		if !b.exists(t, b.fileOf(loc2, shared.Path)) {
			t.Fatalf("Discard deleted shared file %s", shared.Path)
		}
		if md, loc, err := s.LatestCompleted(ctx, testJob); err != nil || loc != loc1 || md.CheckpointID != 1 {
			t.Fatalf("LatestCompleted after Discard = %v, %s, %v", md, loc, err)
		}
		if err := s.Discard(ctx, loc2); err != nil {
			t.Fatalf("second Discard: %v", err)
		}
		if err := s.DeleteShared(ctx, testJob, []storage.SharedFile{shared}); err != nil {
			t.Fatalf("DeleteShared: %v", err)
		}
		if b.exists(t, b.fileOf(loc2, shared.Path)) {
			t.Fatalf("DeleteShared left %s", shared.Path)
		}
		if err := s.DeleteShared(ctx, testJob, []storage.SharedFile{shared}); err != nil {
			t.Fatalf("repeated DeleteShared: %v", err)
		}
		bad := []storage.SharedFile{{Key: "k", Path: "chk-1/_metadata"}, {Key: "k", Path: "x"}, {Key: "k", Path: "shared/../../x"}}
		if err := s.DeleteShared(ctx, testJob, bad); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("DeleteShared of files outside shared/: %v", err)
		}
		for _, loc := range []string{s.Root(), s.Root() + "/" + testJob, s.Root() + "/" + testJob + "/shared"} {
			if err := s.Discard(ctx, loc); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("Discard(%s): %v, want ErrInvalid", loc, err)
			}
		}
		if _, err := s.ReadMetadata(ctx, loc1); err != nil {
			t.Fatalf("checkpoint 1 damaged by refused discards: %v", err)
		}
	})
}
