package network_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

func TestValve(t *testing.T) {
	type step struct {
		ch      int
		wm      int64 // 0 with end: channel ends
		end     bool
		want    int64
		advance bool
	}
	steps := []step{
		{ch: 0, wm: 10, want: op.MinWatermark},
		{ch: 1, wm: 5, want: 5, advance: true},
		{ch: 1, wm: 4, want: 5}, // never backwards
		{ch: 1, wm: 20, want: 10, advance: true},
		{ch: 0, end: true, want: 20, advance: true}, // the ended channel no longer holds back
		{ch: 1, end: true, want: 20},                // ending never advances by itself
		{ch: 1, wm: 99, want: 20},                   // an ended channel is ignored
	}
	v := network.NewValve(2)
	for i, s := range steps {
		var got int64
		var adv bool
		if s.end {
			got, adv = v.End(s.ch)
		} else {
			got, adv = v.Input(s.ch, s.wm)
		}
		if got != s.want || adv != s.advance {
			t.Fatalf("step %d: got %d %v, want %d %v", i, got, adv, s.want, s.advance)
		}
	}
}
