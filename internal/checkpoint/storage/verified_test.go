package storage_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// ReadVerified refuses a checkpoint whose shared file is truncated,
// damaged or gone, and reads an intact one. ReadSized, what a restart from
// the coordinator's latest checkpoint reads, refuses the truncated and the
// missing file but reads no content: a damage that keeps the size is left
// to the subtask that downloads the file (sized is its error then).
func TestReadVerifiedChecksReferencedFiles(t *testing.T) {
	payload := bytes.Repeat([]byte("state "), 10000)
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
		sized  string
	}{
		{"intact", func(*testing.T, string) {}, "", ""},
		{"truncated shared file", func(t *testing.T, path string) {
			if err := os.Truncate(path, 10); err != nil {
				t.Fatal(err)
			}
		}, "verify", "has 10 bytes"},
		{"zeroed shared file", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, make([]byte, fi.Size()), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "has CRC", ""},
		{"missing shared file", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "verify", "not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			s := open(t, root, storage.Options{})
			md, loc := checkpointOf(t, s, 1, payload)
			shared := md.SharedFiles()
			if len(shared) != 1 {
				t.Fatalf("shared files %v", shared)
			}
			tt.damage(t, filepath.Join(root, testJob, shared[0].Path))
			for _, read := range []struct {
				name string
				read func(context.Context, string) (*storage.Metadata, error)
				want string
			}{{"ReadVerified", s.ReadVerified, tt.want}, {"ReadSized", s.ReadSized, tt.sized}} {
				got, err := read.read(context.Background(), loc)
				if read.want == "" {
					if err != nil || got.CheckpointID != 1 {
						t.Fatalf("%s = %v, %v", read.name, got, err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), read.want) {
					t.Fatalf("%s of a damaged checkpoint: %v, want an error containing %q", read.name, err, read.want)
				}
			}
		})
	}
}
