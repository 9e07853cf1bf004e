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

// ReadVerified, what a restart from the coordinator's latest checkpoint
// reads, refuses a checkpoint whose shared file is truncated, damaged or
// gone, and reads an intact one.
func TestReadVerifiedChecksReferencedFiles(t *testing.T) {
	payload := bytes.Repeat([]byte("state "), 10000)
	for _, tt := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"intact", func(*testing.T, string) {}, ""},
		{"truncated shared file", func(t *testing.T, path string) {
			if err := os.Truncate(path, 10); err != nil {
				t.Fatal(err)
			}
		}, "verify"},
		{"zeroed shared file", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, make([]byte, fi.Size()), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "has CRC"},
		{"missing shared file", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "verify"},
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
			got, err := s.ReadVerified(context.Background(), loc)
			if tt.want == "" {
				if err != nil || got.CheckpointID != 1 {
					t.Fatalf("ReadVerified = %v, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadVerified of a damaged checkpoint: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
