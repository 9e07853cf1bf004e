package network

import "github.com/weir-engine/weir/internal/op"

// Valve combines the watermarks of the channels of one input: the input's
// watermark is the minimum over its live channels, and it only moves
// forward. A channel that ended no longer holds the watermark back, but
// ending never advances it on its own: a source that stops without draining
// (stop-with-savepoint) must not fire event-time timers downstream, so only
// a MaxWatermark that was really sent does. Pure; owned by the task.
type Valve struct {
	channel []int64
	ended   []bool
	current int64
}

// NewValve returns a valve over n channels.
func NewValve(n int) *Valve {
	v := &Valve{channel: make([]int64, n), ended: make([]bool, n), current: op.MinWatermark}
	for i := range v.channel {
		v.channel[i] = op.MinWatermark
	}
	return v
}

// Input records watermark wm of channel i and reports the new combined
// watermark when it advanced.
func (v *Valve) Input(i int, wm int64) (int64, bool) {
	if wm <= v.channel[i] || v.ended[i] {
		return v.current, false
	}
	v.channel[i] = wm
	return v.recompute()
}

// End marks channel i as ended; the others may now advance the watermark.
func (v *Valve) End(i int) (int64, bool) {
	if v.ended[i] {
		return v.current, false
	}
	v.ended[i] = true
	return v.recompute()
}

func (v *Valve) recompute() (int64, bool) {
	m, live := op.MaxWatermark, false
	for i, w := range v.channel {
		if !v.ended[i] {
			m, live = min(m, w), true
		}
	}
	if live && m > v.current {
		v.current = m
		return m, true
	}
	return v.current, false
}

// Current is the combined watermark.
func (v *Valve) Current() int64 { return v.current }
