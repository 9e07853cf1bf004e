package storage_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// written is a snapshot written by writeAll, with the bytes behind each
// handle.
type written struct {
	md      *storage.Metadata
	loc     string
	streams map[string][]byte // by handle path, or "inline:<n>"
	large   storage.StreamHandle
	small   storage.StreamHandle
	empty   storage.StreamHandle
	owned   storage.StreamHandle
	shared  storage.SharedFile
}

// writeAll writes one snapshot with a stream of every form.
func writeAll(t *testing.T, w *storage.CheckpointDir) *written {
	t.Helper()
	ctx := context.Background()
	large := bytes.Repeat([]byte("keyed state "), 4000) // 48 KB: a file
	small := []byte("operator state")                   // inline
	sharedData := bytes.Repeat([]byte{7}, 1000)
	ownedData := []byte("changelog")
	wr := &written{streams: map[string][]byte{}}
	var err error
	if wr.large, err = w.WriteState(ctx, "map-1-0-keyed", bytes.NewReader(large)); err != nil {
		t.Fatal(err)
	}
	if wr.small, err = w.WriteState(ctx, "map-1-0-channel", bytes.NewReader(small)); err != nil {
		t.Fatal(err)
	}
	if wr.empty, err = w.WriteState(ctx, "map-1-0-empty", bytes.NewReader(nil)); err != nil {
		t.Fatal(err)
	}
	if wr.owned, err = w.WriteTaskOwned(ctx, "map-1-0-changelog", bytes.NewReader(ownedData)); err != nil {
		t.Fatal(err)
	}
	if wr.shared, err = w.WriteShared(ctx, "map-1/0/000001.sst", bytes.NewReader(sharedData)); err != nil {
		t.Fatal(err)
	}
	wr.streams[wr.large.Path] = large
	wr.streams[wr.owned.Path] = ownedData
	wr.streams[wr.shared.Path] = sharedData
	if !wr.small.IsInline() || !bytes.Equal(wr.small.Inline, small) || !wr.empty.IsEmpty() || wr.large.IsInline() {
		t.Fatalf("handles: small %+v, empty %+v, large inline %v", wr.small, wr.empty, wr.large.IsInline())
	}
	wr.md = &storage.Metadata{
		JobID: testJob, CheckpointID: 7, Timestamp: 123, Kind: w.Kind(),
		Operators: []storage.OperatorState{{
			UID: "map-1", Parallelism: 1, MaxParallelism: 128,
			Subtasks: []storage.SubtaskState{{
				Keyed: []storage.KeyedStateHandle{
					{KeyGroupStart: 0, KeyGroupEnd: 63, Stream: wr.large},
					{KeyGroupStart: 64, KeyGroupEnd: 127, Stream: wr.empty, Shared: []storage.SharedFile{wr.shared}},
				},
				ChannelState: []storage.StreamHandle{wr.small, wr.owned},
			}},
		}},
	}
	if wr.loc, err = w.Commit(ctx, wr.md); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if wr.loc != w.Location() {
		t.Fatalf("Commit returned %q, Location is %q", wr.loc, w.Location())
	}
	return wr
}

// checkReadable reads the snapshot back through s and compares it with
// what was written.
func checkReadable(t *testing.T, s *storage.Storage, loc string, wr *written) {
	t.Helper()
	ctx := context.Background()
	md, err := s.ReadMetadata(ctx, loc)
	if err != nil {
		t.Fatalf("ReadMetadata(%s): %v", loc, err)
	}
	want := *wr.md
	want.Version = storage.FormatVersion
	if !reflect.DeepEqual(md, &want) {
		t.Fatalf("ReadMetadata:\n got %+v\nwant %+v", md, &want)
	}
	for _, h := range []storage.StreamHandle{wr.large, wr.small, wr.empty, wr.owned} {
		got, err := readAll(s.ReadState(ctx, loc, h))
		if err != nil {
			t.Fatalf("ReadState(%s): %v", h.Path, err)
		}
		wantData := wr.streams[h.Path]
		if h.IsInline() {
			wantData = h.Inline
		}
		if !bytes.Equal(got, wantData) {
			t.Fatalf("ReadState(%s): %d bytes, want %d", h.Path, len(got), len(wantData))
		}
	}
	got, err := readAll(s.ReadShared(ctx, loc, wr.shared))
	if err != nil || !bytes.Equal(got, wr.streams[wr.shared.Path]) {
		t.Fatalf("ReadShared: %d bytes, %v", len(got), err)
	}
}

func TestCheckpointRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := b.open(t, storage.Options{})
		w, err := s.CreateCheckpointWriter(testJob, 7)
		if err != nil {
			t.Fatal(err)
		}
		wr := writeAll(t, w)
		if want := s.Root() + "/" + testJob + "/chk-7"; wr.loc != want {
			t.Fatalf("location %q, want %q", wr.loc, want)
		}
		if !strings.HasPrefix(wr.shared.Path, "shared/map-1_0_000001.sst-") ||
			!strings.HasPrefix(wr.owned.Path, "taskowned/map-1-0-changelog-") {
			t.Fatalf("paths: shared %q, task-owned %q", wr.shared.Path, wr.owned.Path)
		}
		checkReadable(t, s, wr.loc, wr)
		checkReadable(t, s, wr.loc+"/_metadata", wr)
		checkReadable(t, s, testJob+"/chk-7", wr) // relative to the root

		// Another Storage on the same root (a restarted JobManager)
		// finds it as the latest checkpoint.
		if b.reopenable {
			s = b.open(t, storage.Options{})
		}
		md, loc, err := s.LatestCompleted(context.Background(), testJob)
		if err != nil || loc != wr.loc || md.CheckpointID != 7 {
			t.Fatalf("LatestCompleted = %v, %q, %v", md, loc, err)
		}
	})
}

func TestLocalURLForms(t *testing.T) {
	dir := t.TempDir()
	s := open(t, "file://"+dir, storage.Options{})
	if s.Root() != dir {
		t.Fatalf("Root() = %q, want %q", s.Root(), dir)
	}
	w, err := s.CreateCheckpointWriter(testJob, 7)
	if err != nil {
		t.Fatal(err)
	}
	wr := writeAll(t, w)
	if _, err := os.Stat(filepath.Join(dir, testJob, "chk-7", "_metadata")); err != nil {
		t.Fatalf("_metadata not at the documented place: %v", err)
	}
	// A Storage rooted elsewhere reads it by absolute path and file:// URL.
	other := open(t, t.TempDir(), storage.Options{})
	checkReadable(t, other, wr.loc, wr)
	checkReadable(t, other, "file://"+wr.loc, wr)
}

func TestSavepoint(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		ctx := context.Background()
		s := b.open(t, storage.Options{})
		target := b.scheme + "/savepoints/target"
		if b.bucket == nil {
			target = t.TempDir()
		}
		w, err := s.CreateSavepointWriter(ctx, testJob, 7, target)
		if err != nil {
			t.Fatal(err)
		}
		wr := writeAll(t, w)
		if !regexp.MustCompile(`^` + regexp.QuoteMeta(target) + `/savepoint-012345-[0-9a-f]{12}$`).MatchString(wr.loc) {
			t.Fatalf("savepoint location %q", wr.loc)
		}
		for _, p := range []string{wr.shared.Path, wr.owned.Path, wr.large.Path} {
			if strings.Contains(p, "/") {
				t.Fatalf("savepoint handle %q points outside its directory", p)
			}
		}
		checkReadable(t, s, wr.loc, wr)
		if n := b.count(t, wr.loc); n != 4 { // _metadata, keyed, task-owned, shared
			t.Fatalf("savepoint directory holds %d files, want 4", n)
		}

		// A savepoint is self-contained: moved elsewhere, it still
		// restores.
		moved := b.scheme + "/elsewhere/sp"
		if b.bucket == nil {
			moved = filepath.Join(t.TempDir(), "sp")
			if out, err := exec.Command("cp", "-r", wr.loc, moved).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v: %s", err, out)
			}
		} else {
			for _, name := range []string{"_metadata", wr.large.Path, wr.owned.Path, wr.shared.Path} {
				b.write(t, moved+"/"+name, b.read(t, wr.loc+"/"+name))
			}
		}
		checkReadable(t, s, moved, wr)
	})
}

func TestSavepointDefaultTarget(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	s := open(t, root, storage.Options{})
	w, err := s.CreateSavepointWriter(ctx, "abc", 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.Location(), root+"/savepoints/savepoint-abc-") {
		t.Fatalf("default savepoint location %q", w.Location())
	}
	target := t.TempDir()
	s = open(t, root, storage.Options{SavepointDir: target})
	if w, err = s.CreateSavepointWriter(ctx, "abc", 1, ""); err != nil || !strings.HasPrefix(w.Location(), target+"/savepoint-abc-") {
		t.Fatalf("savepoint location with SavepointDir: %q, %v", w.Location(), err)
	}
	// A savepoint must not reference shared state outside its directory.
	md := &storage.Metadata{JobID: "abc", CheckpointID: 1, Kind: storage.KindSavepoint, Operators: []storage.OperatorState{{
		UID: "u", Parallelism: 1, MaxParallelism: 1, Subtasks: []storage.SubtaskState{{Keyed: []storage.KeyedStateHandle{{
			Shared: []storage.SharedFile{{Key: "k", Path: "shared/k-00", Size: 1}}}}}},
	}}}
	if _, err := w.Commit(ctx, md); !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), "outside its directory") {
		t.Fatalf("Commit of a savepoint referencing shared/: %v", err)
	}
}

func TestInlineThreshold(t *testing.T) {
	tests := []struct {
		threshold int
		size      int
		inline    bool
	}{
		{0, 0, false}, // empty handle
		{0, storage.DefaultInlineThreshold, true},
		{0, storage.DefaultInlineThreshold + 1, false},
		{10, 10, true},
		{10, 11, false},
		{-1, 1, false},
	}
	for _, tt := range tests {
		s := open(t, t.TempDir(), storage.Options{InlineThreshold: tt.threshold})
		w, err := s.CreateCheckpointWriter(testJob, 1)
		if err != nil {
			t.Fatal(err)
		}
		data := bytes.Repeat([]byte{'x'}, tt.size)
		h, err := w.WriteState(context.Background(), "s", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if h.IsInline() != tt.inline || h.Size != int64(tt.size) || (tt.size == 0) != h.IsEmpty() {
			t.Errorf("threshold %d, %d bytes: handle %+v", tt.threshold, tt.size, h)
		}
		got, err := readAll(s.ReadState(context.Background(), w.Location(), h))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("threshold %d, %d bytes: read back %d bytes, %v", tt.threshold, tt.size, len(got), err)
		}
	}
}

// TestReadStateDetectsDamage: a state file that does not match its handle
// is reported as ErrCorrupt by the reader, a missing one as ErrNotFound.
func TestReadStateDetectsDamage(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(data []byte) []byte // nil: delete the file
		want    error
		message string
	}{
		{"byte flipped", func(d []byte) []byte { d[len(d)/2] ^= 1; return d }, storage.ErrCorrupt, "CRC"},
		{"first byte flipped", func(d []byte) []byte { d[0] ^= 0x80; return d }, storage.ErrCorrupt, "CRC"},
		{"truncated", func(d []byte) []byte { return d[:len(d)-1] }, storage.ErrCorrupt, "has 47999 bytes, its handle records 48000"},
		{"emptied", func(d []byte) []byte { return nil }, storage.ErrCorrupt, "has 0 bytes"},
		{"longer", func(d []byte) []byte { return append(d, 0) }, storage.ErrCorrupt, "longer than the 48000 bytes"},
		{"deleted", nil, storage.ErrNotFound, "chk-7"},
	}
	for _, kind := range backendKinds {
		for _, tt := range tests {
			b := kind(t)
			t.Run(b.name+"/"+tt.name, func(t *testing.T) {
				s := b.open(t, storage.Options{})
				w, _ := s.CreateCheckpointWriter(testJob, 7)
				wr := writeAll(t, w)
				file := b.fileOf(wr.loc, wr.large.Path)
				if tt.damage == nil {
					b.remove(t, file)
				} else {
					b.write(t, file, tt.damage(b.read(t, file)))
				}
				_, err := readAll(s.ReadState(context.Background(), wr.loc, wr.large))
				if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("ReadState: err = %v, want %v mentioning %q", err, tt.want, tt.message)
				}
				if err := s.VerifyState(context.Background(), wr.loc, wr.large); !errors.Is(err, tt.want) {
					t.Fatalf("VerifyState: err = %v, want %v", err, tt.want)
				}
			})
		}
	}
}

func TestCommitRules(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir(), storage.Options{})
	newWriter := func(id int64) *storage.CheckpointDir {
		w, err := s.CreateCheckpointWriter(testJob, id)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	md := func(id int64) *storage.Metadata {
		return &storage.Metadata{JobID: testJob, CheckpointID: id, Kind: storage.KindCheckpoint}
	}
	mismatches := []*storage.Metadata{
		{JobID: "other", CheckpointID: 1, Kind: storage.KindCheckpoint},
		{JobID: testJob, CheckpointID: 2, Kind: storage.KindCheckpoint},
		{JobID: testJob, CheckpointID: 1, Kind: storage.KindSavepoint},
	}
	for _, m := range mismatches {
		if _, err := newWriter(1).Commit(ctx, m); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("Commit(%+v) by the writer of checkpoint 1: err = %v, want ErrInvalid", m, err)
		}
	}

	w := newWriter(1)
	if _, err := w.Commit(ctx, md(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Commit(ctx, md(1)); !errors.Is(err, storage.ErrCommitted) {
		t.Errorf("second Commit: %v", err)
	}
	if _, err := w.WriteState(ctx, "late", bytes.NewReader([]byte("x"))); !errors.Is(err, storage.ErrCommitted) {
		t.Errorf("WriteState after Commit: %v", err)
	}
	if err := w.Abort(ctx); !errors.Is(err, storage.ErrCommitted) {
		t.Errorf("Abort after Commit: %v", err)
	}
	// Checkpoint ids are never reused: a second writer of id 1 cannot
	// replace its metadata.
	if _, err := newWriter(1).Commit(ctx, md(1)); !errors.Is(err, storage.ErrCommitted) {
		t.Errorf("Commit of a reused id: %v", err)
	}

	// Abort removes what the writer wrote, and the writer is closed.
	w = newWriter(2)
	if _, err := w.WriteState(ctx, "s", bytes.NewReader(make([]byte, 30000))); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Location()); !os.IsNotExist(err) {
		t.Errorf("aborted directory still there: %v", err)
	}
	if _, err := w.Commit(ctx, md(2)); !errors.Is(err, storage.ErrCommitted) {
		t.Errorf("Commit after Abort: %v", err)
	}
	// Aborting a writer that never wrote is fine.
	if err := newWriter(3).Abort(ctx); err != nil {
		t.Errorf("Abort of an unused writer: %v", err)
	}
}

func TestInvalidNames(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir(), storage.Options{})
	for _, job := range []string{"", "a/b", "..", ".hidden", "a b", strings.Repeat("j", 256)} {
		if _, err := s.CreateCheckpointWriter(job, 1); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("CreateCheckpointWriter(%q): %v", job, err)
		}
		if _, err := s.CreateSavepointWriter(ctx, job, 1, ""); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("CreateSavepointWriter(%q): %v", job, err)
		}
	}
	if _, err := s.CreateCheckpointWriter(testJob, -1); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("negative id: %v", err)
	}
	w, _ := s.CreateCheckpointWriter(testJob, 1)
	for _, name := range []string{"", ".tmp", "a/b", "../x", "a\x00", "ü", strings.Repeat("n", 201)} {
		if _, err := w.WriteState(ctx, name, bytes.NewReader(nil)); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("WriteState(%q): %v", name, err)
		}
		if _, err := w.WriteTaskOwned(ctx, name, bytes.NewReader(nil)); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("WriteTaskOwned(%q): %v", name, err)
		}
	}
	if _, err := w.WriteShared(ctx, "", bytes.NewReader(nil)); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("WriteShared with empty key: %v", err)
	}
	// Any key is fine for shared files; the file name is sanitized.
	f, err := w.WriteShared(ctx, "../../etc/passwd", bytes.NewReader([]byte("x")))
	if err != nil || !strings.HasPrefix(f.Path, "shared/_._.._etc_passwd-") {
		t.Errorf("WriteShared with a path-like key: %+v, %v", f, err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		url     string
		message string
	}{
		{"", "empty URL"},
		{"file://host/x", "write file:///absolute/path"},
		{"azblob://container/prefix", `import _ "gocloud.dev/blob/azureblob"`},
		{"oss://bucket/prefix", `no blob driver for "oss" URLs`},
	}
	for _, tt := range tests {
		if _, err := storage.Open(ctx, tt.url, storage.Options{}); !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), tt.message) {
			t.Errorf("Open(%q): err = %v, want ErrInvalid mentioning %q", tt.url, err, tt.message)
		}
	}
	if _, err := storage.Open(ctx, t.TempDir(), storage.Options{Verify: 9}); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("Open with a bad Verify: %v", err)
	}
	s := open(t, t.TempDir(), storage.Options{})
	if _, err := s.ReadMetadata(ctx, "../outside/chk-1"); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("ReadMetadata of a location leaving the root: %v", err)
	}
}

// TestConcurrentWrites: subtasks write their state through one
// CheckpointDir at once.
func TestConcurrentWrites(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b *backend) {
		ctx := context.Background()
		s := b.open(t, storage.Options{InlineThreshold: -1})
		w, err := s.CreateCheckpointWriter(testJob, 1)
		if err != nil {
			t.Fatal(err)
		}
		const n = 8
		handles := make([]storage.StreamHandle, n)
		errs := make(chan error, n)
		for i := range n {
			go func() {
				var err error
				handles[i], err = w.WriteState(ctx, "subtask", bytes.NewReader(bytes.Repeat([]byte{byte(i)}, 1000+i)))
				errs <- err
			}()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		md := &storage.Metadata{JobID: testJob, CheckpointID: 1, Kind: storage.KindCheckpoint,
			Operators: []storage.OperatorState{{UID: "u", Parallelism: n, MaxParallelism: n}}}
		for i, h := range handles {
			md.Operators[0].Subtasks = append(md.Operators[0].Subtasks, storage.SubtaskState{Index: i,
				Keyed: []storage.KeyedStateHandle{{KeyGroupStart: i, KeyGroupEnd: i, Stream: h}}})
		}
		loc, err := w.Commit(ctx, md)
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range handles {
			got, err := readAll(s.ReadState(ctx, loc, h))
			if err != nil || !bytes.Equal(got, bytes.Repeat([]byte{byte(i)}, 1000+i)) {
				t.Fatalf("subtask %d: %d bytes, %v", i, len(got), err)
			}
		}
	})
}
