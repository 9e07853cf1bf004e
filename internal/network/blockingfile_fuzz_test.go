package network

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// validPartition returns the index and data of a small partition of two
// subpartitions and two regions.
func validPartition(t testing.TB) (index, data []byte) {
	dir := t.TempDir()
	f, err := createPartitionFiles(dir, "p", 2, 16)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		for s := range 2 {
			if err := f.add(s, Item{Buf: []byte{byte(i), byte(s), 'x'}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for s := range 2 {
		_ = f.add(s, Item{Event: EndOfData{}})
		_ = f.add(s, Item{Event: EndOfPartition{}})
	}
	if err := f.finish(); err != nil {
		t.Fatal(err)
	}
	return readFile(t, f.indexPath), readFile(t, f.dataPath)
}

// FuzzBlockingPartitionReader feeds arbitrary index and data files to the
// reader: it must return items or an error wrapping ErrCorruptPartition,
// never panic, and never allocate beyond the data it was given.
func FuzzBlockingPartitionReader(f *testing.F) {
	index, data := validPartition(f)
	f.Add(index, data)
	f.Add(index, data[:len(data)/2])
	f.Add(index[:len(index)-1], data)
	f.Add([]byte(blockingMagic), []byte{})
	f.Fuzz(func(t *testing.T, index, data []byte) {
		idx, err := parseIndex(index, int64(len(data)))
		if err != nil {
			if !errors.Is(err, ErrCorruptPartition) {
				t.Fatalf("index error %v does not wrap ErrCorruptPartition", err)
			}
			return
		}
		for sub := range min(idx.subpartitions, 4) {
			r := &segmentReader{data: bytes.NewReader(data), idx: idx, sub: sub, name: "fuzz"}
			for range 10000 {
				_, ok, err := r.next()
				if err != nil {
					if !errors.Is(err, ErrCorruptPartition) {
						t.Fatalf("read error %v does not wrap ErrCorruptPartition", err)
					}
					break
				}
				if !ok {
					break
				}
			}
		}
	})
}

func TestValidPartitionReadsBack(t *testing.T) {
	index, data := validPartition(t)
	idx, err := parseIndex(index, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.regions) < 2 {
		t.Fatalf("%d regions, want several", len(idx.regions))
	}
	for sub := range 2 {
		r := &segmentReader{data: bytes.NewReader(data), idx: idx, sub: sub}
		var n int
		for {
			it, ok, err := r.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if it.Event == nil && (it.Buf[0] != byte(n) || it.Buf[1] != byte(sub)) {
				t.Fatalf("subpartition %d item %d = %v", sub, n, it.Buf)
			}
			n++
		}
		if n != 8 {
			t.Fatalf("subpartition %d: %d items, want 8", sub, n)
		}
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
