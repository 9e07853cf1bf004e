package storage_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// Job files are written atomically, read back, replaced, listed with their
// job, and refused under names that could clash with the layout.
func TestJobFiles(t *testing.T) {
	for _, root := range []string{t.TempDir(), "mem://"} {
		t.Run(root, func(t *testing.T) {
			ctx := context.Background()
			s, err := storage.Open(ctx, root, storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if ids, err := s.JobIDs(ctx); err != nil || len(ids) != 0 {
				t.Fatalf("JobIDs of an empty root = %q, %v; want none", ids, err)
			}
			if _, err := s.ReadJobFile(ctx, testJob, "_job"); !errors.Is(err, storage.ErrNotFound) {
				t.Fatalf("reading a missing job file: %v, want ErrNotFound", err)
			}
			for _, content := range []string{"first", "second"} {
				if err := s.WriteJobFile(ctx, testJob, "_job", []byte(content)); err != nil {
					t.Fatal(err)
				}
				b, err := s.ReadJobFile(ctx, testJob, "_job")
				if err != nil || string(b) != content {
					t.Fatalf("ReadJobFile = %q, %v; want %q", b, err, content)
				}
			}
			ids, err := s.JobIDs(ctx)
			if err != nil || !slices.Equal(ids, []string{testJob}) {
				t.Fatalf("JobIDs = %q, %v; want [%s]", ids, err, testJob)
			}
			for _, name := range []string{"job", "_metadata", "_a/b", "", "_" + string(make([]byte, 300))} {
				if err := s.WriteJobFile(ctx, testJob, name, nil); !errors.Is(err, storage.ErrInvalid) {
					t.Errorf("WriteJobFile(%q) = %v, want ErrInvalid", name, err)
				}
			}
			if err := s.WriteJobFile(ctx, "../x", "_job", nil); !errors.Is(err, storage.ErrInvalid) {
				t.Errorf("WriteJobFile with job ../x = %v, want ErrInvalid", err)
			}
		})
	}
}
