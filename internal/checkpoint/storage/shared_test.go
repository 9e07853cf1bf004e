package storage_test

import (
	"bytes"
	"context"
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// WriteShared records the size and CRC-32C of what it wrote, and ReadShared
// checks a shared file against them: a file truncated, zeroed, with one
// bit flipped, grown or gone fails with ErrCorrupt or ErrNotFound, and the
// error names the file and the snapshot that references it. A handle of
// format 1.0, which recorded no CRC, still has its size checked.
func TestReadSharedDetectsDamage(t *testing.T) {
	payload := bytes.Repeat([]byte("sst block "), 2000)
	flip := func(d []byte) []byte { d[len(d)/2] ^= 0x04; return d }
	truncate := func(d []byte) []byte { return d[:len(d)/2] }
	cases := []struct {
		name   string
		damage func([]byte) []byte // nil: the file is removed
		noCRC  bool                // read with a format 1.0 handle
		want   error
	}{
		{"intact", func(d []byte) []byte { return d }, false, nil},
		{"truncated", truncate, false, storage.ErrCorrupt},
		{"zeroed", func(d []byte) []byte { return make([]byte, len(d)) }, false, storage.ErrCorrupt},
		{"flipped", flip, false, storage.ErrCorrupt},
		{"grown", func(d []byte) []byte { return append(d, 0) }, false, storage.ErrCorrupt},
		{"missing", nil, false, storage.ErrNotFound},
		{"flipped, handle without CRC", flip, true, nil},
		{"truncated, handle without CRC", truncate, true, storage.ErrCorrupt},
	}
	forEachBackend(t, func(t *testing.T, b *backend) {
		s := b.open(t, storage.Options{})
		for i, tt := range cases {
			t.Run(tt.name, func(t *testing.T) {
				ctx := context.Background()
				md, loc := checkpointOf(t, s, int64(i+1), payload)
				f := md.SharedFiles()[0]
				if want := crc32.Checksum(payload[:len(payload)/2], crc32.MakeTable(crc32.Castagnoli)); !f.HasCRC || f.CRC != want {
					t.Fatalf("handle %+v, want CRC %08x", f, want)
				}
				path := b.fileOf(loc, f.Path)
				if tt.damage == nil {
					b.remove(t, path)
				} else {
					b.write(t, path, tt.damage(b.read(t, path)))
				}
				if tt.noCRC {
					f.CRC, f.HasCRC = 0, false
				}
				got, err := readAll(s.ReadShared(ctx, loc, f))
				if tt.want == nil {
					if err != nil || len(got) != int(f.Size) {
						t.Fatalf("ReadShared = %d bytes, %v; want %d bytes", len(got), err, f.Size)
					}
					return
				}
				if !errors.Is(err, tt.want) {
					t.Fatalf("ReadShared of a damaged file: %v, want %v", err, tt.want)
				}
				name := f.Path[strings.LastIndex(f.Path, "/")+1:]
				if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), loc) {
					t.Fatalf("error does not name the file %s and the checkpoint %s: %v", name, loc, err)
				}
				if err := s.VerifyShared(ctx, loc, f); !errors.Is(err, tt.want) {
					t.Fatalf("VerifyShared of a damaged file: %v, want %v", err, tt.want)
				}
			})
		}
	})
}
