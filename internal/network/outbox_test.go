package network_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"pgregory.net/rapid"
)

// The credit accounting of one channel step by step: buffers go out while
// the consumer has credit, wait in the backlog otherwise, and the producer
// may write while the backlog has room; every consumed buffer returns a
// credit that takes the oldest waiting one.
func TestOutboxCreditSequence(t *testing.T) {
	o := network.NewOutbox(1)
	o.Grant(2)
	steps := []struct {
		op string // "add" or "consume"
		// after the step
		sent            int // buffers Next handed out in this step
		credit, backlog int
		writable        bool
	}{
		{op: "add", sent: 1, credit: 1, writable: true},
		{op: "add", sent: 1, credit: 0, writable: true},
		{op: "add", credit: 0, backlog: 1, writable: false},
		// Overdraft: an add beyond the backlog is accepted, never refused.
		{op: "add", credit: 0, backlog: 2, writable: false},
		{op: "consume", sent: 1, credit: 0, backlog: 1, writable: false},
		{op: "consume", sent: 1, credit: 0, backlog: 0, writable: true},
		{op: "consume", credit: 1, writable: true},
		{op: "consume", credit: 2, writable: true},
	}
	for i, s := range steps {
		if s.op == "add" {
			o.Add(item("x"))
		} else {
			o.Grant(1)
		}
		sent := 0
		for {
			if _, ok := o.Next(); !ok {
				break
			}
			sent++
		}
		if sent != s.sent || o.Credit() != s.credit || o.Backlog() != s.backlog || o.Writable() != s.writable {
			t.Fatalf("step %d: sent/credit/backlog/writable = %d/%d/%d/%v, want %d/%d/%d/%v",
				i, sent, o.Credit(), o.Backlog(), o.Writable(), s.sent, s.credit, s.backlog, s.writable)
		}
	}
}

// For any interleaving of adds (by a producer that adds only while
// writable) and consumptions: the consumer never holds more buffers than
// its credit, the backlog never exceeds its bound, a buffer never waits
// while credit is available, and nothing is lost.
func TestOutboxInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		capacity := rapid.IntRange(1, 8).Draw(t, "capacity")
		maxBacklog := rapid.IntRange(0, 8).Draw(t, "backlog")
		o := network.NewOutbox(maxBacklog)
		o.Grant(capacity)
		added, atConsumer, consumed := 0, 0, 0
		for _, addOp := range rapid.SliceOf(rapid.Bool()).Draw(t, "ops") {
			if addOp {
				if !o.Writable() {
					continue
				}
				o.Add(item("x"))
				added++
			} else if atConsumer > 0 {
				atConsumer--
				consumed++
				o.Grant(1)
			}
			for {
				if _, ok := o.Next(); !ok {
					break
				}
				atConsumer++
			}
			if o.Credit()+atConsumer != capacity {
				t.Fatalf("credit %d + at consumer %d != capacity %d", o.Credit(), atConsumer, capacity)
			}
			if o.Backlog() > maxBacklog {
				t.Fatalf("backlog %d > %d", o.Backlog(), maxBacklog)
			}
			if o.Backlog() > 0 && o.Credit() > 0 {
				t.Fatalf("a buffer waits with %d credit available", o.Credit())
			}
			if added-consumed != atConsumer+o.Backlog() {
				t.Fatalf("%d added, %d consumed, but %d at the consumer + %d queued", added, consumed, atConsumer, o.Backlog())
			}
		}
	})
}
