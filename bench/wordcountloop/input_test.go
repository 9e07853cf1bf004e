package wordcountloop_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/weir-engine/weir/bench/wordcountloop"
)

// The input is the same for the same size, at least that size, and
// words only in lower case once counted.
func TestWriteInputIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := wordcountloop.WriteInput(&a, 1); err != nil {
		t.Fatal(err)
	}
	if err := wordcountloop.WriteInput(&b, 1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two inputs of 1 MB differ")
	}
	if a.Len() < 1<<20 || a.Len() > 1<<20+200 {
		t.Errorf("input of 1 MB has %d bytes", a.Len())
	}
	if !bytes.Contains(a.Bytes(), []byte("W")) || !bytes.Contains(a.Bytes(), []byte(" -- ")) {
		t.Error("input has no upper case or no punctuation")
	}
}

func TestCount(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(path, []byte("The cat, the DOG.\nthe -- cat\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := wordcountloop.Count(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"the": 3, "cat": 2, "dog": 1}
	if !maps.Equal(got, want) {
		t.Errorf("Count = %v, want %v", got, want)
	}
	if _, err := wordcountloop.Count(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Count of a missing file: no error")
	}
}
