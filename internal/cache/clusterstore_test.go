package cache

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// writeHeld writes partition index of production prod of dataset id, of
// total partitions, into s through a Writer.
func writeHeld(t *testing.T, s *Store, id string, prod int64, index, total int, vs []string) {
	t.Helper()
	p, err := s.Begin(id, "test", prod, total)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := codec.For[string]()
	w := NewWriter(p, c, &collected[string]{})
	if err := w.Open(&op.Context{SubtaskIndex: index}); err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if err := w.ProcessElement(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
}

// readRemote reads partition index of id through cm, as a remote reader
// does (the address is not used by an in-process registry).
func readRemote(t *testing.T, cm network.ConnectionManager, id string, index int) ([]string, error) {
	t.Helper()
	c, _ := codec.For[string]()
	var got []string
	req := func(pid network.PartitionID, _ string, ch *network.InputChannel) error {
		return cm.RequestSubpartition(pid, 0, ch)
	}
	r, err := OpenRemote(id, index, "local", req, c, func(_ int64, v string) error { got = append(got, v); return nil })
	if err != nil {
		return nil, err
	}
	defer r.Close()
	for {
		n, done, err := r.Read(7)
		switch {
		case err != nil:
			return got, err
		case done:
			return got, nil
		case n == 0:
			<-r.Available()
		}
	}
}

func records(prefix string, n int) []string {
	var vs []string
	for i := range n {
		vs = append(vs, fmt.Sprintf("%s-%d", prefix, i))
	}
	return vs
}

func heldRender(hs []HeldPartition) []string {
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s/%d p%d of %d: %d records", h.Dataset, h.Production, h.Index, h.Total, h.Files.Records))
	}
	return out
}

const (
	dsA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	dsB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// A store serves what its writers finished, reports each change, holds
// its partitions again when opened on the same directory, keeps one
// production of a dataset, and deletes the files of what it releases.
func TestStoreServesKeepsAndReleasesClusterPartitions(t *testing.T) {
	dir := t.TempDir()
	cm := network.NewRegistry()
	changes := 0
	s, err := OpenStore(StoreOptions{Dir: dir, Serve: cm, OnChange: func() { changes++ }, RegionBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	writeHeld(t, s, dsA, 1, 0, 2, records("a0", 500))
	writeHeld(t, s, dsA, 1, 1, 2, records("a1", 3))
	writeHeld(t, s, dsB, 1, 0, 1, records("b0", 10))
	if changes != 3 {
		t.Fatalf("%d changes reported, want 3", changes)
	}
	want := []string{dsA + "/1 p0 of 2: 500 records", dsA + "/1 p1 of 2: 3 records", dsB + "/1 p0 of 1: 10 records"}
	if got := heldRender(s.Partitions()); !slices.Equal(got, want) {
		t.Fatalf("held %q, want %q", got, want)
	}
	for range 2 { // served again and again
		got, err := readRemote(t, cm, dsA, 0)
		if err != nil || !slices.Equal(got, records("a0", 500)) {
			t.Fatalf("read %d records (%v), want 500", len(got), err)
		}
	}

	// A TaskManager started again on the directory holds them again.
	cm2 := network.NewRegistry()
	s2, err := OpenStore(StoreOptions{Dir: dir, Serve: cm2})
	if err != nil {
		t.Fatal(err)
	}
	if got := heldRender(s2.Partitions()); !slices.Equal(got, want) {
		t.Fatalf("reopened store holds %q, want %q", got, want)
	}
	if got, err := readRemote(t, cm2, dsB, 0); err != nil || !slices.Equal(got, records("b0", 10)) {
		t.Fatalf("reopened store served %q (%v)", got, err)
	}

	// A later production replaces every partition of the earlier one.
	old := s2.Partitions()[1].Files
	writeHeld(t, s2, dsA, 2, 1, 3, records("new", 4))
	want = []string{dsA + "/2 p1 of 3: 4 records", dsB + "/1 p0 of 1: 10 records"}
	if got := heldRender(s2.Partitions()); !slices.Equal(got, want) {
		t.Fatalf("after a new production: %q, want %q", got, want)
	}
	if _, err := os.Stat(old.Data); !os.IsNotExist(err) {
		t.Fatalf("the replaced partition's data file is still there: %v", err)
	}
	// One of an earlier production than held is dropped.
	writeHeld(t, s2, dsA, 1, 0, 2, records("late", 4))
	if got := heldRender(s2.Partitions()); !slices.Equal(got, want) {
		t.Fatalf("after a late earlier production: %q, want %q", got, want)
	}

	if s2.Release(dsA, 1) {
		t.Fatal("releasing production 1 released production 2")
	}
	if !s2.Release(dsA, 2) || !s2.Release(dsB, 1) {
		t.Fatal("Release reported nothing held")
	}
	if n := len(s2.Partitions()); n != 0 {
		t.Fatalf("%d partitions held after releasing all", n)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Fatalf("files left after releasing every dataset: %q", left)
	}
}

// A partition whose files were damaged while the TaskManager was down
// (index gone, data file cut short or grown) is dropped when the store
// opens, its files deleted; the same damage to a partition held by a
// running store fails its next remote read with a ReadError (each read
// opens the files anew and checks the index against the data file's size
// then: no descriptor or size is kept from before).
func TestStoreDropsDamagedPartitions(t *testing.T) {
	resize := func(by int64) func(Partition) error {
		return func(p Partition) error {
			fi, err := os.Stat(p.Data)
			if err != nil {
				return err
			}
			return os.Truncate(p.Data, fi.Size()+by)
		}
	}
	for _, d := range []struct {
		name   string
		damage func(Partition) error
	}{
		{"index gone", func(p Partition) error { return os.Remove(p.Index) }},
		{"data cut short", resize(-10)},
		{"data grown", resize(100)},
	} {
		t.Run(d.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := OpenStore(StoreOptions{Dir: dir, Serve: network.NewRegistry(), RegionBytes: 256})
			if err != nil {
				t.Fatal(err)
			}
			writeHeld(t, s, dsA, 1, 0, 2, records("a0", 500))
			writeHeld(t, s, dsA, 1, 1, 2, records("a1", 500))
			hs := s.Partitions()
			if err := d.damage(hs[0].Files); err != nil {
				t.Fatal(err)
			}
			cm := network.NewRegistry()
			s2, err := OpenStore(StoreOptions{Dir: dir, Serve: cm})
			if err != nil {
				t.Fatal(err)
			}
			if got := heldRender(s2.Partitions()); !slices.Equal(got, []string{dsA + "/1 p1 of 2: 500 records"}) {
				t.Fatalf("held %q after damage", got)
			}
			for _, f := range []string{hs[0].Files.Data, hs[0].Files.Index, filepath.Join(dir, partitionManifestName(dsA, 0))} {
				if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("%s of the damaged partition: %v, want it deleted", f, err)
				}
			}
			// The same damage under the running store: the held
			// partition's next read fails.
			if err := d.damage(hs[1].Files); err != nil {
				t.Fatal(err)
			}
			_, err = readRemote(t, cm, dsA, 1)
			if _, lost := Lost(err); !lost {
				t.Fatalf("reading a damaged held partition: %v, want a ReadError", err)
			}
		})
	}
}
