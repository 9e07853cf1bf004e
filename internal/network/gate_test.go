package network_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func item(s string) network.Item { return network.Item{Buf: []byte(s)} }

// pair returns a partition of n subpartitions whose subpartition i is
// connected, in memory, to channel i of a gate.
func pair(t *testing.T, n, credit, backlog int) (*network.ResultPartition, *network.Gate) {
	t.Helper()
	p, err := network.NewResultPartition(network.PartitionID{Job: "j"}, network.PartitionOptions{Subpartitions: n, Backlog: backlog})
	if err != nil {
		t.Fatal(err)
	}
	g := network.NewGate(n, credit)
	for i := 0; i < n; i++ {
		network.ConnectLocal(p.Subpartition(i), g.Channel(i))
	}
	return p, g
}

func add(t *testing.T, s *network.Subpartition, it network.Item) [][]byte {
	t.Helper()
	o, err := s.Add(it)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// pollAll polls g until it has nothing, recycling data buffers, and names
// what it got: the buffer's text, or the event.
func pollAll(g *network.Gate) []string {
	var got []string
	for {
		it, ch, ok := g.Poll()
		if !ok {
			return got
		}
		got = append(got, name(it))
		if it.Event == nil {
			g.Recycle(ch, it.Buf)
		}
	}
}

func name(it network.Item) string {
	switch e := it.Event.(type) {
	case nil:
		return string(it.Buf)
	case network.EndOfData:
		return "eod"
	case network.EndOfPartition:
		return "eop"
	case network.CheckpointBarrier:
		if e.Unaligned {
			return "ubarrier"
		}
		return "barrier"
	case network.CancelCheckpointMarker:
		return "cancel"
	}
	return "?"
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func TestGateDeliversInOrderPerChannel(t *testing.T) {
	p, g := pair(t, 2, 4, 4)
	add(t, p.Subpartition(0), item("a1"))
	add(t, p.Subpartition(0), item("a2"))
	add(t, p.Subpartition(1), network.Item{Event: network.EndOfData{}})
	// Channels take turns; within a channel order is kept.
	equal(t, pollAll(g), []string{"a1", "eod", "a2"})
}

// Credit-based flow control without a blocking send: a subpartition whose
// consumer holds no credit and whose backlog is full is not writable, so
// its partition is unavailable; the consumer's recycle hands the queued
// buffer over and wakes the producer.
func TestNoCreditMakesPartitionUnavailableUntilRecycle(t *testing.T) {
	p, g := pair(t, 1, 1, 1)
	s := p.Subpartition(0)
	add(t, s, item("1")) // delivered
	if !p.IsAvailable() {
		t.Fatal("unavailable with the backlog empty")
	}
	add(t, s, item("2")) // queued
	if p.IsAvailable() {
		t.Fatal("available with no credit and a full backlog")
	}
	select {
	case <-p.Wake():
	default:
	}
	it, i, ok := g.Poll()
	if !ok || string(it.Buf) != "1" {
		t.Fatalf("poll = %q %v", it.Buf, ok)
	}
	if _, _, ok := g.Poll(); ok {
		t.Fatal("a buffer arrived without credit")
	}
	g.Recycle(i, it.Buf) // credit to "2"
	select {
	case <-p.Wake():
	default:
		t.Fatal("recycle did not wake the producer")
	}
	if !p.IsAvailable() {
		t.Fatal("still unavailable after the recycle")
	}
	add(t, s, item("3"))
	equal(t, pollAll(g), []string{"2", "3"})
}

// With no backlog (the least sizing) a subpartition is unwritable as soon
// as its one credit is used, with nothing queued: the recycle must make it
// writable again.
func TestNoBacklogWritableAgainOnRecycle(t *testing.T) {
	p, g := pair(t, 1, 1, 0)
	add(t, p.Subpartition(0), item("1"))
	if p.IsAvailable() {
		t.Fatal("available with the one credit used and no backlog")
	}
	it, i, _ := g.Poll()
	g.Recycle(i, it.Buf)
	if !p.IsAvailable() {
		t.Fatal("unavailable after the recycle")
	}
	add(t, p.Subpartition(0), network.Item{Event: network.EndOfData{}})
	equal(t, pollAll(g), []string{"eod"})
}

// A producer whose consumer is gone fails its next add, and is not left
// waiting for availability.
func TestReleasedConsumerFailsAdd(t *testing.T) {
	p, g := pair(t, 1, 1, 0)
	add(t, p.Subpartition(0), item("1"))
	if p.IsAvailable() {
		t.Fatal("available without credit")
	}
	g.Release()
	if !p.IsAvailable() {
		t.Fatal("a producer of a released consumer would wait forever")
	}
	if _, err := p.Subpartition(0).Add(item("2")); !errors.Is(err, network.ErrReleased) {
		t.Fatalf("err = %v, want ErrReleased", err)
	}
}

func TestBlockedChannelIsSkipped(t *testing.T) {
	p, g := pair(t, 2, 2, 0)
	add(t, p.Subpartition(0), item("a"))
	add(t, p.Subpartition(1), item("b"))
	g.Block(0)
	it, _, ok := g.Poll()
	if !ok || string(it.Buf) != "b" {
		t.Fatalf("poll = %q %v, want b", it.Buf, ok)
	}
	if _, _, ok := g.Poll(); ok {
		t.Fatal("a blocked channel delivered")
	}
	g.Unblock(0)
	if it, _, ok := g.Poll(); !ok || string(it.Buf) != "a" {
		t.Fatalf("poll = %q %v, want a", it.Buf, ok)
	}
}

func TestRecycledBufferIsReused(t *testing.T) {
	p, g := pair(t, 1, 1, 0)
	s := p.Subpartition(0)
	b := s.TakeBuffer(64)
	b = append(b, "x"...)
	add(t, s, network.Item{Buf: b})
	it, i, _ := g.Poll()
	g.Recycle(i, it.Buf)
	again := s.TakeBuffer(64)
	if len(again) != 0 || cap(again) != cap(b) || &again[:1][0] != &b[0] {
		t.Fatal("recycled memory was not handed back to the sender")
	}
}

// A channel that becomes ready after every poll costs the gate no
// allocation: its ready list keeps its array.
func TestGatePollAllocatesNothing(t *testing.T) {
	p, g := pair(t, 2, 4, 4)
	buf := []byte("x")
	allocs := testing.AllocsPerRun(100, func() {
		for i := range 2 {
			add(t, p.Subpartition(i), network.Item{Buf: buf})
		}
		for range 2 {
			it, ch, ok := g.Poll()
			if !ok || string(it.Buf) != "x" {
				t.Fatalf("Poll = %v, %v", it, ok)
			}
			g.Recycle(ch, it.Buf)
		}
	})
	if allocs != 0 {
		t.Fatalf("add, poll and recycle allocated %.1f objects per run", allocs)
	}
}
