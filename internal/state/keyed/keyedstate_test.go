package keyed

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
)

// download copies a checkpoint's backend files out of the checkpoint
// storage. A file that is damaged or gone cannot come back, so the error is
// unrecoverable and names the file and the checkpoint; a read that fails
// (a network error) may succeed again, so it stays recoverable.
func TestDownloadClassifiesFailures(t *testing.T) {
	ctx := context.Background()
	payload := bytes.Repeat([]byte("block "), 4000)
	for _, tt := range []struct {
		name          string
		damage        func(t *testing.T, path string) // of the stored file
		readErr       error                           // what every read of the file returns
		key           string
		unrecoverable bool
	}{
		{name: "intact"},
		{name: "flipped", damage: func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/3] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, unrecoverable: true},
		{name: "missing", damage: func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, unrecoverable: true},
		{name: "bad name", key: "../000001.sst", unrecoverable: true},
		{name: "read error", readErr: errors.New("connection reset by peer")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			st, err := storage.Open(ctx, root, storage.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			w, err := st.CreateCheckpointWriter("job", 1)
			if err != nil {
				t.Fatal(err)
			}
			f, err := w.WriteShared(ctx, "000001.sst", bytes.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			loc := w.Location()
			if tt.damage != nil {
				tt.damage(t, filepath.Join(root, "job", f.Path))
			}
			if tt.key != "" {
				f.Key = tt.key
			}
			open := func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error) {
				if tt.readErr != nil {
					return io.NopCloser(iotest.ErrReader(tt.readErr)), nil
				}
				return st.ReadShared(ctx, loc, f)
			}
			dir := t.TempDir()
			err = download(op.NativeKeyed{Files: []storage.SharedFile{f}, Open: open}, dir)
			if tt.name == "intact" {
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, f.Key)); !bytes.Equal(got, payload) {
					t.Fatalf("downloaded %d bytes, want the %d stored", len(got), len(payload))
				}
				return
			}
			if err == nil {
				t.Fatal("download succeeded")
			}
			if got := errors.Is(err, scheduler.ErrUnrecoverable); got != tt.unrecoverable {
				t.Fatalf("unrecoverable = %v, want %v: %v", got, tt.unrecoverable, err)
			}
			if !strings.Contains(err.Error(), f.Key) {
				t.Fatalf("error does not name %s: %v", f.Key, err)
			}
			if tt.damage != nil && !strings.Contains(err.Error(), loc) {
				t.Fatalf("error does not name the checkpoint %s: %v", loc, err)
			}
		})
	}
}
