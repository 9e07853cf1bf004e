package tcp_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

func buf(s string) network.Item { return network.Item{Buf: []byte(s)} }

// names polls g until it has nothing queued, recycling data buffers.
func names(g *network.Gate) []string {
	var got []string
	for {
		it, ch, ok := g.Poll()
		if !ok {
			return got
		}
		if it.Event != nil {
			got = append(got, fmt.Sprintf("%T", it.Event))
			continue
		}
		got = append(got, string(it.Buf))
		g.Recycle(ch, it.Buf)
	}
}

// receive polls g for n items, waiting as needed, recycling buffers.
func receive(t *testing.T, g *network.Gate, n int) []string {
	t.Helper()
	var got []string
	for len(got) < n {
		it, ch := next(t, g)
		if err := failure(it); err != nil {
			t.Fatal(err)
		}
		if it.Event != nil {
			got = append(got, fmt.Sprintf("%T", it.Event))
			continue
		}
		got = append(got, string(it.Buf))
		g.Recycle(ch, it.Buf)
	}
	return got
}

// Two channels share one connection. The consumer of the first reads
// nothing, so its producer runs out of credit and stops; the second
// channel meanwhile carries a thousand buffers. The stuck channel holds
// exactly its credit at the consumer and its backlog at the producer,
// and delivers the rest in order once read.
func TestBackPressuredChannelDoesNotBlockOther(t *testing.T) {
	const credit, backlog, flowing = 2, 3, 1000
	c := newCluster(t, "producer-tm", "consumer-tm")
	stuckID, flowID := pid(0, 0), pid(0, 1)
	stuck := c.produce(t, "producer-tm", stuckID, 1, backlog)
	flow := c.produce(t, "producer-tm", flowID, 1, backlog)
	gStuck := c.consume(t, "consumer-tm", credit, 0, stuckID)
	gFlow := c.consume(t, "consumer-tm", credit, 0, flowID)
	if dialed, _ := c.byName["consumer-tm"].Connections(); dialed != 1 {
		t.Fatalf("the consumer dialed %d connections, want one for both channels", dialed)
	}

	// The credit arrives with the request, some time after it was made:
	// without it the subpartition is not writable beyond its backlog.
	var stuckSent []string
	for i := range credit + backlog {
		waitWritable(stuck)
		stuckSent = append(stuckSent, fmt.Sprint("s", i))
		add(t, stuck.Subpartition(0), buf(stuckSent[i]))
	}
	if stuck.IsAvailable() || stuck.Subpartition(0).Backlog() != backlog {
		t.Fatalf("the stuck channel is available=%v with backlog %d after credit %d + backlog %d buffers, want back-pressure",
			stuck.IsAvailable(), stuck.Subpartition(0).Backlog(), credit, backlog)
	}

	var want []string
	go func() {
		for i := range flowing {
			waitWritable(flow)
			if _, err := flow.Subpartition(0).Add(buf(fmt.Sprint("f", i))); err != nil {
				return // the test failed and released the gate
			}
		}
	}()
	for i := range flowing {
		want = append(want, fmt.Sprint("f", i))
	}
	if got := receive(t, gFlow, flowing); !slices.Equal(got, want) {
		t.Fatalf("the flowing channel delivered %d buffers out of order or wrong", len(got))
	}

	// The stuck channel's credit was written before the flowing
	// channel's buffers, so it waits at the consumer now, and not more.
	if got := names(gStuck); !slices.Equal(got, stuckSent[:credit]) {
		t.Fatalf("the stuck channel delivered %q, want its credit's worth %q", got, stuckSent[:credit])
	}
	// Reading it returned the credit: the rest follows.
	if got := receive(t, gStuck, backlog); !slices.Equal(got, stuckSent[credit:]) {
		t.Fatalf("then %q, want %q", got, stuckSent[credit:])
	}
}

// An unaligned barrier overtakes the buffers waiting for credit in the
// producer's subpartition (Add reports them) and, on arrival, the buffers
// waiting in the consumer's input channel (Poll reports them); all are
// still delivered after it, as with the local Registry.
func TestPriorityEventOvertakesAcrossTCP(t *testing.T) {
	c := newCluster(t, "producer-tm", "consumer-tm")
	id := pid(0, 0)
	p := c.produce(t, "producer-tm", id, 1, 4)
	g := c.consume(t, "consumer-tm", 2, 0, id)
	s := p.Subpartition(0)
	for _, b := range []string{"in1", "in2", "out1", "out2"} {
		add(t, s, buf(b))
	}
	// The backlog of 4 is full until the consumer's credit of 2 arrives
	// and takes in1 and in2.
	waitWritable(p)
	add(t, s, network.Item{Event: network.EndOfData{}})
	overtaken := add(t, s, network.Item{Event: network.CheckpointBarrier{ID: 3, Unaligned: true}})
	if got := texts(overtaken); !slices.Equal(got, []string{"out1", "out2"}) {
		t.Fatalf("the barrier overtook %q in the subpartition, want out1, out2", got)
	}
	for !g.HasPriority() {
		<-g.Available()
	}
	it, _, ok := g.Poll()
	if b, isBarrier := it.Event.(network.CheckpointBarrier); !ok || !isBarrier || b.ID != 3 || !b.Unaligned {
		t.Fatalf("first poll = %#v, want the unaligned barrier", it)
	}
	if got := texts(it.Overtaken); !slices.Equal(got, []string{"in1", "in2"}) {
		t.Fatalf("the barrier overtook %q in the input channel, want in1, in2", got)
	}
	want := []string{"in1", "in2", "out1", "out2", "event.EndOfData"}
	if got := receive(t, g, len(want)); !slices.Equal(got, want) {
		t.Fatalf("after the barrier: %q, want %q", got, want)
	}
}

func texts(bufs [][]byte) []string {
	var out []string
	for _, b := range bufs {
		out = append(out, string(b))
	}
	return out
}
