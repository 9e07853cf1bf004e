package network_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// A producer that outlives its consumers (it waited for the savepoint that
// stopped them) ends its partition without an error, and the consumers
// still there learn of the end; other events to a released channel fail.
func TestEndOfPartitionSkipsReleasedConsumers(t *testing.T) {
	p, err := network.NewResultPartition(network.PartitionID{Job: "j"}, network.PartitionOptions{Subpartitions: 2, Backlog: 2})
	if err != nil {
		t.Fatal(err)
	}
	gone, kept := network.NewGate(1, 2), network.NewGate(1, 2)
	network.ConnectLocal(p.Subpartition(0), gone.Channel(0))
	network.ConnectLocal(p.Subpartition(1), kept.Channel(0))
	w := network.NewRecordWriter(p, intCodec(t), func(v int) int { return v % 2 }, network.DefaultBufferSize)
	gone.Release()
	if _, err := w.BroadcastEvent(network.EndOfData{}); !errors.Is(err, network.ErrReleased) {
		t.Errorf("EndOfData to a released channel: %v, want ErrReleased", err)
	}
	if _, err := w.BroadcastEvent(network.EndOfPartition{}); err != nil {
		t.Fatalf("EndOfPartition with one consumer gone: %v", err)
	}
	var got []network.Event
	for {
		it, _, ok := kept.Poll()
		if !ok {
			break
		}
		got = append(got, it.Event)
	}
	if len(got) != 1 || got[0] != (network.EndOfPartition{}) {
		t.Errorf("the remaining consumer got %v, want only EndOfPartition (EndOfData stopped at the released channel)", got)
	}
}
