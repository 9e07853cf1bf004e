package network_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// step is one input to a valve and the output it must give.
type step struct {
	ch   int
	do   string // "wm", "idle", "active" or "end"
	wm   int64
	want network.ValveOutput
}

const noWM = op.MinWatermark

func wm(w int64) network.ValveOutput { return network.ValveOutput{Watermark: w, Advanced: true} }
func same(w int64) network.ValveOutput {
	return network.ValveOutput{Watermark: w}
}

func TestValve(t *testing.T) {
	idle := func(o network.ValveOutput) network.ValveOutput { o.Idle = true; return o }
	became := func(o network.ValveOutput, idle bool) network.ValveOutput {
		o.StatusChanged, o.Idle = true, idle
		return o
	}
	tests := []struct {
		name     string
		channels int
		steps    []step
	}{
		{"minimum over channels, never backwards", 2, []step{
			{ch: 0, do: "wm", wm: 10, want: same(noWM)},
			{ch: 1, do: "wm", wm: 5, want: wm(5)},
			{ch: 1, do: "wm", wm: 4, want: same(5)},
			{ch: 1, do: "wm", wm: 20, want: wm(10)},
		}},
		{"an ended channel no longer holds back, ending never advances by itself", 2, []step{
			{ch: 0, do: "wm", wm: 10, want: same(noWM)},
			{ch: 1, do: "wm", wm: 20, want: wm(10)},
			{ch: 0, do: "end", want: wm(20)},
			{ch: 1, do: "end", want: same(20)},
			{ch: 1, do: "wm", wm: 99, want: same(20)},
		}},
		{"an idle channel no longer holds back the minimum", 3, []step{
			{ch: 0, do: "wm", wm: 10, want: same(noWM)},
			{ch: 1, do: "wm", wm: 30, want: same(noWM)},
			{ch: 2, do: "idle", want: wm(10)},
			{ch: 0, do: "wm", wm: 40, want: wm(30)},
			{ch: 2, do: "wm", wm: 99, want: same(30)}, // ignored while idle
			{ch: 2, do: "idle", want: same(30)},       // no change
		}},
		{"all idle: flush the highest, then idle; a watermark changes nothing", 2, []step{
			{ch: 0, do: "wm", wm: 10, want: same(noWM)},
			{ch: 1, do: "wm", wm: 30, want: wm(10)},
			{ch: 1, do: "idle", want: same(10)},
			{ch: 0, do: "idle", want: became(wm(30), true)},
			{ch: 0, do: "wm", wm: 50, want: idle(same(30))},
		}},
		{"re-activation below the combined watermark does not regress it", 2, []step{
			{ch: 0, do: "wm", wm: 10, want: same(noWM)},
			{ch: 0, do: "idle", want: same(noWM)},
			{ch: 1, do: "wm", wm: 50, want: wm(50)},
			{ch: 0, do: "active", want: same(50)},     // at 10: not aligned
			{ch: 0, do: "wm", wm: 20, want: same(50)}, // still below
			{ch: 1, do: "wm", wm: 70, want: wm(70)},   // channel 0 does not hold back
			{ch: 0, do: "wm", wm: 80, want: same(70)}, // caught up: aligned
			{ch: 1, do: "wm", wm: 90, want: wm(80)},   // now it counts
		}},
		{"the first channel to become active again makes the valve active", 2, []step{
			{ch: 0, do: "idle", want: same(noWM)},
			{ch: 1, do: "idle", want: became(same(noWM), true)},
			{ch: 1, do: "active", want: became(same(noWM), false)},
			{ch: 1, do: "wm", wm: 5, want: wm(5)},
			{ch: 0, do: "active", want: same(5)},     // the valve was active already
			{ch: 1, do: "wm", wm: 9, want: wm(9)},    // channel 0, at MinWatermark, is not aligned
			{ch: 0, do: "wm", wm: 12, want: same(9)}, // aligned now
			{ch: 1, do: "wm", wm: 20, want: wm(12)},
		}},
		{"re-activation at or above the combined watermark counts at once", 2, []step{
			{ch: 0, do: "wm", wm: 40, want: same(noWM)},
			{ch: 0, do: "idle", want: same(noWM)},
			{ch: 1, do: "wm", wm: 30, want: wm(30)},
			{ch: 0, do: "active", want: same(30)},
			{ch: 1, do: "wm", wm: 60, want: wm(40)},
		}},
		{"ending the last active channel makes the valve idle without a flush", 2, []step{
			{ch: 0, do: "wm", wm: 50, want: same(noWM)},
			{ch: 0, do: "idle", want: same(noWM)},
			{ch: 1, do: "wm", wm: 20, want: wm(20)},
			{ch: 1, do: "end", want: became(same(20), true)},
			{ch: 0, do: "active", want: became(wm(50), false)},
		}},
		{"statuses of an ended channel are ignored", 1, []step{
			{ch: 0, do: "end", want: same(noWM)},
			{ch: 0, do: "idle", want: same(noWM)},
			{ch: 0, do: "active", want: same(noWM)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := network.NewValve(tt.channels)
			for i, s := range tt.steps {
				var got network.ValveOutput
				switch s.do {
				case "wm":
					got = v.Input(s.ch, s.wm)
				case "idle", "active":
					got = v.SetIdle(s.ch, s.do == "idle")
				case "end":
					got = v.End(s.ch)
				default:
					t.Fatalf("step %d: unknown action %q", i, s.do)
				}
				if got != s.want {
					t.Fatalf("step %d (%s ch %d %d): got %+v, want %+v", i, s.do, s.ch, s.wm, got, s.want)
				}
				if v.Current() != got.Watermark || v.Idle() != got.Idle {
					t.Fatalf("step %d: Current %d Idle %v disagree with the output %+v", i, v.Current(), v.Idle(), got)
				}
			}
		})
	}
}
