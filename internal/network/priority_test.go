package network_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

var (
	ubarrier = network.Item{Event: network.CheckpointBarrier{ID: 1, Unaligned: true}}
	abarrier = network.Item{Event: network.CheckpointBarrier{ID: 1}}
	cancel   = network.Item{Event: network.CancelCheckpointMarker{ID: 1}}
)

func texts(bufs [][]byte) []string {
	var out []string
	for _, b := range bufs {
		out = append(out, string(b))
	}
	return out
}

// An unaligned barrier overtakes what waits in the subpartition (it needs
// no credit) and what waits in the input channel; each side reports the
// data buffers it overtook there, and they are still delivered after it.
func TestPriorityBarrierOvertakesBothSides(t *testing.T) {
	p, g := pair(t, 1, 2, 8)
	s := p.Subpartition(0)
	for _, b := range []string{"in1", "in2", "out1", "out2"} {
		add(t, s, item(b)) // two delivered with the credit, two queued
	}
	add(t, s, network.Item{Event: network.EndOfData{}}) // an event queued behind
	out := add(t, s, ubarrier)
	equal(t, texts(out), []string{"out1", "out2"})

	it, _, ok := g.Poll()
	if !ok || name(it) != "ubarrier" {
		t.Fatalf("first poll = %q, want the barrier", name(it))
	}
	equal(t, texts(it.Overtaken), []string{"in1", "in2"})
	equal(t, pollAll(g), []string{"in1", "in2", "out1", "out2", "eod"})
}

// Which items a priority event overtakes, on the pure queue of a
// subpartition: priority events keep their order among themselves, aligned
// barriers keep their place, and only data buffers are reported.
func TestOutboxPriorityOrder(t *testing.T) {
	tests := []struct {
		name      string
		adds      []network.Item
		overtaken [][]string // per add
		order     []string   // what Next hands out with ample credit
	}{
		{
			name:      "aligned barrier stays in line",
			adds:      []network.Item{item("a"), abarrier, item("b")},
			overtaken: [][]string{nil, nil, nil},
			order:     []string{"a", "barrier", "b"},
		},
		{
			name:      "unaligned barrier goes first",
			adds:      []network.Item{item("a"), abarrier, item("b"), ubarrier},
			overtaken: [][]string{nil, nil, nil, {"a", "b"}},
			order:     []string{"ubarrier", "a", "barrier", "b"},
		},
		{
			name:      "cancel markers are priority too, in order",
			adds:      []network.Item{item("a"), ubarrier, item("b"), cancel},
			overtaken: [][]string{nil, {"a"}, nil, {"a", "b"}},
			order:     []string{"ubarrier", "cancel", "a", "b"},
		},
		{
			name:      "nothing to overtake",
			adds:      []network.Item{ubarrier, item("a")},
			overtaken: [][]string{nil, nil},
			order:     []string{"ubarrier", "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := network.NewOutbox(len(tt.adds))
			for i, it := range tt.adds {
				got := texts(o.Add(it))
				equal(t, got, tt.overtaken[i])
			}
			o.Grant(len(tt.adds))
			var order []string
			for {
				it, ok := o.Next()
				if !ok {
					break
				}
				order = append(order, name(it))
			}
			equal(t, order, tt.order)
		})
	}
}

// Priority events go out without credit; other items wait for it.
func TestOutboxPriorityNeedsNoCredit(t *testing.T) {
	o := network.NewOutbox(4)
	o.Add(item("a"))
	o.Add(cancel)
	if it, ok := o.Next(); !ok || name(it) != "cancel" {
		t.Fatalf("Next = %q %v, want the cancel marker", name(it), ok)
	}
	if it, ok := o.Next(); ok {
		t.Fatalf("Next = %q without credit", name(it))
	}
	o.Grant(1)
	if it, ok := o.Next(); !ok || name(it) != "a" {
		t.Fatalf("Next = %q %v, want a", name(it), ok)
	}
}

// A priority event is polled from a channel blocked for alignment: a
// cancel marker must reach the barrier handler that blocked it.
func TestPriorityEventOfBlockedChannelIsPolled(t *testing.T) {
	p, g := pair(t, 1, 2, 2)
	add(t, p.Subpartition(0), item("a"))
	g.Block(0)
	add(t, p.Subpartition(0), cancel)
	if !g.HasPriority() {
		t.Fatal("HasPriority = false with a cancel marker queued")
	}
	it, _, ok := g.Poll()
	if !ok || name(it) != "cancel" {
		t.Fatalf("poll = %q %v, want cancel", name(it), ok)
	}
	if _, _, ok := g.Poll(); ok {
		t.Fatal("a blocked channel delivered data")
	}
	if g.HasPriority() {
		t.Fatal("HasPriority = true after the marker was polled")
	}
}

// Before its consumer connects, a subpartition holds its items (priority
// first) and hands them over once the consumer announces its credit.
func TestSubpartitionHoldsItemsUntilConnected(t *testing.T) {
	p, err := network.NewResultPartition(network.PartitionID{Job: "j"}, network.PartitionOptions{Subpartitions: 1, Backlog: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Subpartition(0)
	add(t, s, item("a"))
	add(t, s, item("b"))
	if p.IsAvailable() {
		t.Fatal("available with a full backlog and no consumer")
	}
	equal(t, texts(add(t, s, ubarrier)), []string{"a", "b"})
	g := network.NewGate(1, 1)
	network.ConnectLocal(s, g.Channel(0))
	equal(t, pollAll(g), []string{"ubarrier", "a", "b"})
}

// A ChannelFailed event, which a connection manager puts into a channel
// whose connection is lost, is a priority event: a channel blocked for
// alignment delivers it, so the task fails instead of waiting.
func TestChannelFailedReachesBlockedChannel(t *testing.T) {
	p, g := pair(t, 1, 2, 2)
	add(t, p.Subpartition(0), item("a"))
	g.Block(0)
	if !g.Channel(0).Receive(network.Item{Event: network.ChannelFailed{Err: errors.New("connection closed")}}) {
		t.Fatal("Receive refused the failure")
	}
	it, _, ok := g.Poll()
	f, isFailure := it.Event.(network.ChannelFailed)
	if !ok || !isFailure || f.Error() != "connection closed" {
		t.Fatalf("poll = %#v %v, want the failure", it, ok)
	}
}

// Connecting to a released subpartition fails with ErrReleased rather than
// leaving the consumer waiting for items that never come.
func TestConnectReleasedSubpartition(t *testing.T) {
	p, _ := pair(t, 1, 2, 2)
	p.Release()
	g := network.NewGate(1, 2)
	if err := p.Subpartition(0).Connect(g.Channel(0)); !errors.Is(err, network.ErrReleased) {
		t.Fatalf("Connect = %v, want ErrReleased", err)
	}
}
