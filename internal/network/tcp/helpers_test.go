package tcp_test

import (
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/network/tcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// cluster is a few Managers on loopback, each a TaskManager's data plane,
// with a locator that knows which of them produces which partition.
type cluster struct {
	mu     sync.Mutex
	owner  map[network.PartitionID]*tcp.Manager
	byName map[string]*tcp.Manager
}

func newCluster(t testing.TB, names ...string) *cluster {
	t.Helper()
	c := &cluster{owner: make(map[network.PartitionID]*tcp.Manager), byName: make(map[string]*tcp.Manager)}
	for _, n := range names {
		m, err := tcp.New(tcp.Options{Locate: c.locate, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := m.Close(); err != nil {
				t.Errorf("close %s: %v", n, err)
			}
		})
		c.byName[n] = m
	}
	return c
}

func (c *cluster) locate(id network.PartitionID) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.owner[id]
	if !ok {
		return "", fmt.Errorf("no TaskManager produces %v", id)
	}
	return m.Addr(), nil
}

// produce makes a partition of subs subpartitions that TaskManager tm
// produces and registers, and says so to the locator.
func (c *cluster) produce(t testing.TB, tm string, id network.PartitionID, subs, backlog int) *network.ResultPartition {
	t.Helper()
	p := c.place(t, tm, id, subs, backlog)
	if err := c.byName[tm].RegisterPartition(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// place makes the partition and tells the locator without registering it
// (a producer deployed after its consumer).
func (c *cluster) place(t testing.TB, tm string, id network.PartitionID, subs, backlog int) *network.ResultPartition {
	t.Helper()
	p, err := network.NewResultPartition(id, network.PartitionOptions{Subpartitions: subs, Backlog: backlog})
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.owner[id] = c.byName[tm]
	c.mu.Unlock()
	return p
}

// consume makes a gate on TaskManager tm whose channel i reads
// subpartition sub of partitions[i].
func (c *cluster) consume(t testing.TB, tm string, credit, sub int, partitions ...network.PartitionID) *network.Gate {
	t.Helper()
	g := network.NewGate(len(partitions), credit)
	t.Cleanup(g.Release)
	for i, id := range partitions {
		if err := c.byName[tm].RequestSubpartition(id, sub, g.Channel(i)); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func pid(vertex, subtask int) network.PartitionID {
	return network.PartitionID{Job: "job", Generation: 1, Vertex: vertex, Subtask: subtask}
}

// next polls g until it has an item (waiting on Available), and recycles
// nothing: the caller does.
func next(t testing.TB, g *network.Gate) (network.Item, int) {
	t.Helper()
	for {
		if it, ch, ok := g.Poll(); ok {
			return it, ch
		}
		<-g.Available()
	}
}

// add adds an item to a subpartition, failing the test on an error.
func add(t testing.TB, s *network.Subpartition, it network.Item) [][]byte {
	t.Helper()
	o, err := s.Add(it)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// waitWritable waits until p is available.
func waitWritable(p *network.ResultPartition) {
	for !p.IsAvailable() {
		<-p.Wake()
	}
}

// failure returns the error of a ChannelFailed item, or nil.
func failure(it network.Item) error {
	if f, ok := it.Event.(network.ChannelFailed); ok {
		return f
	}
	return nil
}
