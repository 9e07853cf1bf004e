package storage_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

var update = flag.Bool("update", false, "rewrite the golden _metadata file of the current format in testdata/")

// TestGolden pins the format: the sample metadata encodes to the committed
// bytes of the current format, and the committed bytes of every format
// this build reads decode to the sample as that format records it. A
// change to the encoder that breaks this breaks every savepoint written so
// far; see the versioning rules in docs/format/checkpoint.md.
func TestGolden(t *testing.T) {
	for _, tt := range []struct {
		version uint16
		// want is the sample as the version records it.
		want func() *storage.Metadata
	}{
		// 1.0 recorded no CRC of shared files.
		{0x0100, func() *storage.Metadata { return withoutSharedCRCs(sampleMetadata()) }},
		{0x0101, sampleMetadata},
	} {
		t.Run(storage.VersionString(tt.version), func(t *testing.T) {
			path := filepath.Join("testdata", "metadata-"+storage.VersionString(tt.version)+".bin")
			current := tt.version == storage.FormatVersion
			if current {
				got := mustEncode(t, sampleMetadata())
				if *update {
					if err := os.WriteFile(path, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				golden, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if !bytes.Equal(got, golden) {
					t.Fatalf("encoding of the sample differs from %s (%d vs %d bytes)", path, len(got), len(golden))
				}
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			md, err := storage.Decode(golden)
			if err != nil {
				t.Fatalf("Decode(%s): %v", path, err)
			}
			want := tt.want()
			want.Version = tt.version
			if !reflect.DeepEqual(md, want) {
				t.Fatalf("Decode(%s) = %+v, want %+v", path, md, want)
			}
		})
	}
}

// withoutSharedCRCs clears the CRC of every shared file of md.
func withoutSharedCRCs(md *storage.Metadata) *storage.Metadata {
	for i := range md.Operators {
		for j := range md.Operators[i].Subtasks {
			for k := range md.Operators[i].Subtasks[j].Keyed {
				for l := range md.Operators[i].Subtasks[j].Keyed[k].Shared {
					f := &md.Operators[i].Subtasks[j].Keyed[k].Shared[l]
					f.CRC, f.HasCRC = 0, false
				}
			}
		}
	}
	return md
}

// TestDocumentedExample checks the example in docs/format/checkpoint.md.
func TestDocumentedExample(t *testing.T) {
	want := []byte{
		0x89, 'W', 'C', 'K', // magic
		0x01, 0x01, // version 1.1
		0x01, 0x05, // header section, 5 bytes
		0x01, 'j', // job id "j"
		0x00,                   // checkpoint id 0
		0x00,                   // timestamp 0
		0x01,                   // kind: checkpoint
		0x87, 0x23, 0x9a, 0x67, // CRC-32C
	}
	got := mustEncode(t, &storage.Metadata{JobID: "j", Kind: storage.KindCheckpoint})
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode = % x, want % x", got, want)
	}
}
