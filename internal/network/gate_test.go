package network_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/network"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func item(s string) network.Item { return network.Item{Buf: []byte(s)} }

func TestGateDeliversInOrderPerChannel(t *testing.T) {
	g := network.NewGate(2, 4, 4)
	ctx := context.Background()
	for _, s := range []string{"a1", "a2"} {
		if err := g.Channel(0).Send(ctx, item(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Channel(1).Send(ctx, network.Item{Event: network.EndOfData{}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		it, ch, ok := g.Poll()
		if !ok {
			break
		}
		if it.Event != nil {
			got = append(got, "eod")
			continue
		}
		got = append(got, string(it.Buf))
		g.Recycle(ch, it.Buf)
	}
	// Channels take turns; within a channel order is kept.
	want := []string{"a1", "eod", "a2"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSendBlocksWithoutCreditAndResumesOnRecycle(t *testing.T) {
	g := network.NewGate(1, 1, 1)
	ch := g.Channel(0)
	ctx := context.Background()
	if err := ch.Send(ctx, item("1")); err != nil { // delivered
		t.Fatal(err)
	}
	if err := ch.Send(ctx, item("2")); err != nil { // queued
		t.Fatal(err)
	}
	sent := make(chan error)
	go func() { sent <- ch.Send(ctx, item("3")) }()
	select {
	case err := <-sent:
		t.Fatalf("third send returned %v while the receiver holds no credit", err)
	case <-time.After(20 * time.Millisecond):
	}
	it, i, ok := g.Poll()
	if !ok || string(it.Buf) != "1" {
		t.Fatalf("poll = %q %v", it.Buf, ok)
	}
	g.Recycle(i, it.Buf) // credit to "2", wakes the sender of "3"
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2", "3"} {
		it, i, ok := g.Poll()
		if !ok || string(it.Buf) != want {
			t.Fatalf("poll = %q %v, want %q", it.Buf, ok, want)
		}
		g.Recycle(i, it.Buf)
	}
}

func TestBlockedSendEndsOnCancelAndRelease(t *testing.T) {
	for _, tt := range []struct {
		name string
		stop func(g *network.Gate, cancel context.CancelFunc)
		want error
	}{
		{"cancel", func(_ *network.Gate, cancel context.CancelFunc) { cancel() }, context.Canceled},
		{"release", func(g *network.Gate, _ context.CancelFunc) { g.Release() }, network.ErrReleased},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := network.NewGate(1, 1, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := g.Channel(0).Send(ctx, item("1")); err != nil {
				t.Fatal(err)
			}
			sent := make(chan error)
			go func() { sent <- g.Channel(0).Send(ctx, item("2")) }()
			tt.stop(g, cancel)
			if err := <-sent; !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestBlockedChannelIsSkipped(t *testing.T) {
	g := network.NewGate(2, 2, 0)
	ctx := context.Background()
	_ = g.Channel(0).Send(ctx, item("a"))
	_ = g.Channel(1).Send(ctx, item("b"))
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
	g := network.NewGate(1, 1, 0)
	ch := g.Channel(0)
	b := ch.TakeBuffer(64)
	b = append(b, "x"...)
	_ = ch.Send(context.Background(), network.Item{Buf: b})
	it, i, _ := g.Poll()
	g.Recycle(i, it.Buf)
	again := ch.TakeBuffer(64)
	if len(again) != 0 || cap(again) != cap(b) || &again[:1][0] != &b[0] {
		t.Fatal("recycled memory was not handed back to the sender")
	}
}

// With no backlog (the least sizing), a sender blocks as soon as its one credit
// is used, with nothing queued: the receiver's recycle must wake it.
func TestSendWithoutBacklogResumesOnRecycle(t *testing.T) {
	g := network.NewGate(1, 1, 0)
	ch := g.Channel(0)
	ctx := context.Background()
	if err := ch.Send(ctx, item("1")); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan struct{}, 1)
	network.OnBlock(g, func() {
		select {
		case blocked <- struct{}{}:
		default:
		}
	})
	sent := make(chan error)
	go func() { sent <- ch.Send(ctx, network.Item{Event: network.EndOfData{}}) }()
	<-blocked
	it, i, ok := g.Poll()
	if !ok || string(it.Buf) != "1" {
		t.Fatalf("poll = %q %v", it.Buf, ok)
	}
	g.Recycle(i, it.Buf)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if it, _, ok := g.Poll(); !ok || it.Event != (network.EndOfData{}) {
		t.Fatalf("poll = %+v %v, want EndOfData", it, ok)
	}
}
