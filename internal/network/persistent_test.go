package network_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// persistentFiles writes records buffers "r<i>" to a one-subpartition
// partition file and returns its paths.
func persistentFiles(t *testing.T, records int) (data, index string) {
	t.Helper()
	f, err := network.CreatePartitionFile(t.TempDir(), "p", 1, 64)
	if err != nil {
		t.Fatal(err)
	}
	for r := range records {
		if err := f.Add(0, []byte(fmt.Sprintf("r%d", r))); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Finish(); err != nil {
		t.Fatal(err)
	}
	return f.Paths()
}

// readPersistent requests subpartition 0 of id from cm and reads it to
// its EndOfPartition.
func readPersistent(t *testing.T, cm network.ConnectionManager, id network.PartitionID) []string {
	t.Helper()
	g := network.NewGate(1, 2)
	defer g.Release()
	if err := cm.RequestSubpartition(id, 0, g.Channel(0)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		it, _, ok := g.Poll()
		if !ok {
			t.Fatalf("the partition stopped after %d items without EndOfPartition", len(got))
		}
		if it.Event == nil {
			got = append(got, string(it.Buf))
			g.Recycle(0, it.Buf)
			continue
		}
		if _, end := it.Event.(network.EndOfPartition); end {
			return got
		}
		t.Fatalf("unexpected event %T", it.Event)
	}
}

func TestPersistentPartitionIsServedAgainAndKeepsItsFiles(t *testing.T) {
	data, index := persistentFiles(t, 300)
	id := network.DatasetPartitionID("ds1", 2)
	if ds, ok := network.DatasetOf(id); !ok || ds != "ds1" {
		t.Fatalf("DatasetOf(%v) = %q, %v", id, ds, ok)
	}
	p, err := network.OpenPersistentPartition(id, data, index)
	if err != nil {
		t.Fatal(err)
	}
	if p.Type() != network.BlockingPersistent {
		t.Fatalf("type %v", p.Type())
	}
	reg := network.NewRegistry()
	if err := reg.RegisterPartition(p); err != nil {
		t.Fatal(err)
	}
	var want []string
	for r := range 300 {
		want = append(want, fmt.Sprintf("r%d", r))
	}
	for read := range 2 { // two jobs read the cache, one after the other
		if got := readPersistent(t, reg, id); !slices.Equal(got, want) {
			t.Fatalf("read %d: %d records, want %d", read, len(got), len(want))
		}
	}
	reg.ReleaseJob(id.Job, id.Generation)
	for _, f := range []string{data, index} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("releasing the partition removed %s: %v", f, err)
		}
	}
}

func TestPersistentPartitionOfMissingFilesIsRefused(t *testing.T) {
	data, index := persistentFiles(t, 3)
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	_, err := network.OpenPersistentPartition(network.DatasetPartitionID("ds", 0), data, index)
	if !errors.Is(err, network.ErrPartitionNotFound) {
		t.Fatalf("error %v, want one wrapping ErrPartitionNotFound", err)
	}
}
