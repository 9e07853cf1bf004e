package network_test

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// blockingPartition returns a blocking partition of n subpartitions in a
// test directory, writing regions of about regionBytes.
func blockingPartition(t *testing.T, n, regionBytes int) *network.ResultPartition {
	t.Helper()
	p, err := network.NewResultPartition(network.PartitionID{Job: "j", Vertex: 1}, network.PartitionOptions{
		Type: network.Blocking, Subpartitions: n, Dir: t.TempDir(), RegionBytes: regionBytes,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Release)
	return p
}

// fill writes records buffers to every subpartition, then ends them.
func fill(t *testing.T, p *network.ResultPartition, records int) {
	t.Helper()
	for r := range records {
		for s := range p.NumSubpartitions() {
			add(t, p.Subpartition(s), item(fmt.Sprintf("s%d-r%d", s, r)))
		}
	}
	for s := range p.NumSubpartitions() {
		add(t, p.Subpartition(s), network.Item{Event: network.EndOfData{}})
		add(t, p.Subpartition(s), network.Item{Event: network.EndOfPartition{}})
	}
}

func want(sub, records int) []string {
	var w []string
	for r := range records {
		w = append(w, fmt.Sprintf("s%d-r%d", sub, r))
	}
	return append(w, "eod", "eop")
}

func TestBlockingPartitionReadsAfterTheProducerFinished(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		subs, records, credit  int
		regionBytes            int
		connectBeforeFinishing bool
	}{
		{"one region", 3, 100, 2, 1 << 20, true},
		{"many regions", 3, 500, 2, 64, true},
		{"consumer connects late", 2, 300, 1, 100, false},
		{"no records", 2, 0, 2, 64, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := blockingPartition(t, tc.subs, tc.regionBytes)
			g := network.NewGate(tc.subs, tc.credit)
			defer g.Release()
			connect := func() {
				for i := range tc.subs {
					network.ConnectLocal(p.Subpartition(i), g.Channel(i))
				}
			}
			if tc.connectBeforeFinishing {
				connect()
			}
			for r := range tc.records {
				for s := range tc.subs {
					add(t, p.Subpartition(s), item(fmt.Sprintf("s%d-r%d", s, r)))
				}
				if !p.IsAvailable() {
					t.Fatal("a blocking partition is never unavailable to its writer")
				}
			}
			if got := pollAll(g); len(got) != 0 {
				t.Fatalf("the consumer read %d items before the producer finished", len(got))
			}
			for s := range tc.subs {
				add(t, p.Subpartition(s), network.Item{Event: network.EndOfData{}})
				add(t, p.Subpartition(s), network.Item{Event: network.EndOfPartition{}})
			}
			if !tc.connectBeforeFinishing {
				connect()
			}
			perChannel := make([][]string, tc.subs)
			for {
				it, ch, ok := g.Poll()
				if !ok {
					break
				}
				perChannel[ch] = append(perChannel[ch], name(it))
				if it.Event == nil {
					g.Recycle(ch, it.Buf)
				}
			}
			for s := range tc.subs {
				if w := want(s, tc.records); !slices.Equal(perChannel[s], w) {
					t.Fatalf("subpartition %d: got %d items, want %d", s, len(perChannel[s]), len(w))
				}
			}
		})
	}
}

func TestBlockingPartitionDamageIsDetected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(data string) error
	}{
		{"flipped byte", func(data string) error {
			b, err := os.ReadFile(data)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 0x40
			return os.WriteFile(data, b, 0o644)
		}},
		{"truncated", func(data string) error {
			fi, err := os.Stat(data)
			if err != nil {
				return err
			}
			return os.Truncate(data, fi.Size()/2)
		}},
		// Every segment still lies whole in the file: its size alone
		// tells that the file is not the one written.
		{"grown", func(data string) error {
			fi, err := os.Stat(data)
			if err != nil {
				return err
			}
			return os.Truncate(data, fi.Size()+100)
		}},
		{"last byte cut", func(data string) error {
			fi, err := os.Stat(data)
			if err != nil {
				return err
			}
			return os.Truncate(data, fi.Size()-1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := blockingPartition(t, 1, 256)
			fill(t, p, 200)
			data, _ := p.Files()
			if err := tc.damage(data); err != nil {
				t.Fatal(err)
			}
			g := network.NewGate(1, 4)
			defer g.Release()
			network.ConnectLocal(p.Subpartition(0), g.Channel(0))
			var failure error
			for failure == nil {
				it, ch, ok := g.Poll()
				if !ok {
					t.Fatal("the damaged partition was read to its end without a failure")
				}
				if f, isFailure := it.Event.(network.ChannelFailed); isFailure {
					failure = f.Err
				}
				if it.Event == nil {
					g.Recycle(ch, it.Buf)
				}
			}
			if !errors.Is(failure, network.ErrCorruptPartition) {
				t.Fatalf("failure = %v, want ErrCorruptPartition", failure)
			}
		})
	}
}

func TestBlockingPartitionReleaseRemovesFiles(t *testing.T) {
	p := blockingPartition(t, 2, 128)
	fill(t, p, 50)
	data, index := p.Files()
	for _, f := range []string{data, index} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("finished partition: %v", err)
		}
	}
	p.Release()
	for _, f := range []string{data, index} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s after Release: %v, want it gone", f, err)
		}
	}
	if _, err := p.Subpartition(0).Add(item("late")); !errors.Is(err, network.ErrReleased) {
		t.Fatalf("Add after Release: %v, want ErrReleased", err)
	}
}

func TestBlockingPartitionIsReadAgainByANewConsumer(t *testing.T) {
	p := blockingPartition(t, 1, 128)
	fill(t, p, 100)
	for attempt := range 2 {
		g := network.NewGate(1, 3)
		network.ConnectLocal(p.Subpartition(0), g.Channel(0))
		got := pollAll(g)
		g.Release()
		if w := want(0, 100); !slices.Equal(got, w) {
			t.Fatalf("consumer %d read %d items, want %d", attempt, len(got), len(w))
		}
	}
}
