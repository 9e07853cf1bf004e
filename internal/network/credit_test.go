package network_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"pgregory.net/rapid"
)

func TestCreditSequence(t *testing.T) {
	c := network.NewCredit(2, 1)
	steps := []struct {
		send bool
		want network.Decision
		// after the step
		credit, inFlight, backlog int
		deliverBacklog            bool
	}{
		{send: true, want: network.Deliver, credit: 1, inFlight: 1},
		{send: true, want: network.Deliver, credit: 0, inFlight: 2},
		{send: true, want: network.Queue, credit: 0, inFlight: 2, backlog: 1},
		{send: true, want: network.Block, credit: 0, inFlight: 2, backlog: 1},
		// The receiver consumed one: its credit goes to the queued buffer.
		{send: false, deliverBacklog: true, credit: 0, inFlight: 2, backlog: 0},
		{send: false, credit: 1, inFlight: 1},
		{send: false, credit: 2, inFlight: 0},
	}
	for i, s := range steps {
		if s.send {
			if got := c.Send(); got != s.want {
				t.Fatalf("step %d: Send = %v, want %v", i, got, s.want)
			}
		} else if got := c.Recycle(); got != s.deliverBacklog {
			t.Fatalf("step %d: Recycle = %v, want %v", i, got, s.deliverBacklog)
		}
		if c.Credit() != s.credit || c.InFlight() != s.inFlight || c.Backlog() != s.backlog {
			t.Fatalf("step %d: credit/inFlight/backlog = %d/%d/%d, want %d/%d/%d",
				i, c.Credit(), c.InFlight(), c.Backlog(), s.credit, s.inFlight, s.backlog)
		}
	}
}

// The invariants hold for any interleaving of sends and recycles, and the
// buffers of a channel never exceed capacity + backlog.
func TestCreditInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capacity := rapid.IntRange(1, 8).Draw(t, "capacity")
		maxBacklog := rapid.IntRange(0, 8).Draw(t, "backlog")
		c := network.NewCredit(capacity, maxBacklog)
		received, sent := 0, 0
		for _, send := range rapid.SliceOf(rapid.Bool()).Draw(t, "ops") {
			if send {
				switch c.Send() {
				case network.Deliver:
					sent++
				case network.Queue:
					sent++
				}
			} else if c.InFlight() > 0 {
				received++
				c.Recycle()
			}
			if c.Credit()+c.InFlight() != capacity {
				t.Fatalf("credit %d + in flight %d != capacity %d", c.Credit(), c.InFlight(), capacity)
			}
			if c.Backlog() > maxBacklog || c.Backlog() < 0 {
				t.Fatalf("backlog %d outside [0, %d]", c.Backlog(), maxBacklog)
			}
			if c.Backlog() > 0 && c.Credit() > 0 {
				t.Fatalf("a buffer waits with %d credit available", c.Credit())
			}
			if sent-received != c.InFlight()+c.Backlog() {
				t.Fatalf("%d sent, %d received, but %d in flight + %d queued", sent, received, c.InFlight(), c.Backlog())
			}
		}
	})
}
