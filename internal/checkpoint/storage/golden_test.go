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

var update = flag.Bool("update", false, "rewrite the golden _metadata files in testdata/")

// TestGolden pins the format: the sample metadata encodes to the committed
// bytes of format 1.0, and those bytes decode to it. A change to the encoder
// that breaks this breaks every savepoint written so far; see the
// versioning rules in docs/format/checkpoint.md.
func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "metadata-1.0.bin")
	got := mustEncode(t, sampleMetadata())
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
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
	md, err := storage.Decode(golden)
	if err != nil {
		t.Fatalf("Decode(%s): %v", path, err)
	}
	want := sampleMetadata()
	want.Version = 0x0100
	if !reflect.DeepEqual(md, want) {
		t.Fatalf("Decode(%s) = %+v, want %+v", path, md, want)
	}
}

// TestDocumentedExample checks the example in docs/format/checkpoint.md.
func TestDocumentedExample(t *testing.T) {
	want := []byte{
		0x89, 'W', 'C', 'K', // magic
		0x00, 0x01, // version 1.0
		0x01, 0x05, // header section, 5 bytes
		0x01, 'j', // job id "j"
		0x00,                   // checkpoint id 0
		0x00,                   // timestamp 0
		0x01,                   // kind: checkpoint
		0xcf, 0xf5, 0xa4, 0x93, // CRC-32C
	}
	got := mustEncode(t, &storage.Metadata{JobID: "j", Kind: storage.KindCheckpoint})
	if !bytes.Equal(got, want) {
		t.Fatalf("Encode = % x, want % x", got, want)
	}
}
