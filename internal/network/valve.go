package network

import "github.com/weir-engine/weir/internal/op"

// Valve combines the watermarks and watermark statuses of the channels of
// one input, as Flink's StatusWatermarkValve does. Pure; owned by the task.
//
// The input's watermark is the minimum over its live, active and aligned
// channels, and it only moves forward. A channel that ended no longer holds
// the watermark back, but ending never advances it beyond what the live
// channels sent: a source that stops without draining (stop-with-savepoint)
// must not fire event-time timers downstream, so only a MaxWatermark that
// was really sent does.
//
// A channel whose upstream said IDLE no longer holds the watermark back
// either, and its watermarks are ignored until it says ACTIVE again. A
// channel that becomes active again counts (is aligned) only once its
// watermark is at or above the combined one, so it never moves the output
// backwards. When every live channel is idle the valve is idle: it first
// flushes the highest watermark any live channel reached (nothing will
// advance them any more) and then reports IDLE, for the task to forward;
// the first channel that becomes active again makes it report ACTIVE.
type Valve struct {
	ch      []channelStatus
	current int64
	idle    bool
}

type channelStatus struct {
	watermark int64
	ended     bool
	idle      bool
	// aligned: the channel counts in the minimum. An active channel is
	// aligned unless it became active again below the combined watermark
	// and has not caught up yet.
	aligned bool
}

// ValveOutput is what an input to the Valve asks the task to forward: the
// combined Watermark when Advanced, and the valve's status when
// StatusChanged. A change to ACTIVE goes downstream before the watermark, a
// change to IDLE after it (the flush of an idle valve).
type ValveOutput struct {
	Watermark     int64
	Advanced      bool
	StatusChanged bool
	Idle          bool
}

// NewValve returns a valve over n channels, all active.
func NewValve(n int) *Valve {
	v := &Valve{ch: make([]channelStatus, n), current: op.MinWatermark}
	for i := range v.ch {
		v.ch[i] = channelStatus{watermark: op.MinWatermark, aligned: true}
	}
	return v
}

// Input records watermark wm of channel i. The watermark of an ended or
// idle channel is ignored, and so is one that does not advance the
// channel's.
func (v *Valve) Input(i int, wm int64) ValveOutput {
	c := &v.ch[i]
	if c.ended || c.idle || wm <= c.watermark {
		return v.output(false)
	}
	c.watermark = wm
	if wm >= v.current {
		c.aligned = true
	}
	return v.recompute()
}

// SetIdle records the watermark status of channel i: idle (IDLE) or not
// (ACTIVE). A status that does not change the channel's is ignored.
func (v *Valve) SetIdle(i int, idle bool) ValveOutput {
	c := &v.ch[i]
	if c.ended || c.idle == idle {
		return v.output(false)
	}
	c.idle = idle
	if !idle {
		c.aligned = c.watermark >= v.current
		out := v.recompute()
		if v.idle {
			v.idle = false
			out.StatusChanged, out.Idle = true, false
		}
		return out
	}
	c.aligned = false
	if v.hasActive() {
		return v.recompute()
	}
	// The last active channel went idle: nothing will advance the live
	// channels any more, so the highest of them is the input's watermark.
	top := op.MinWatermark
	for _, c := range v.ch {
		if !c.ended {
			top = max(top, c.watermark)
		}
	}
	out := v.advance(top)
	v.idle = true
	out.StatusChanged, out.Idle = true, true
	return out
}

// End marks channel i as ended; the others may now advance the watermark.
// When the live channels left are all idle the valve becomes idle, without
// the flush of SetIdle: ending never advances the watermark on its own.
func (v *Valve) End(i int) ValveOutput {
	c := &v.ch[i]
	if c.ended {
		return v.output(false)
	}
	c.ended = true
	out := v.recompute()
	if !v.idle && !v.hasActive() && v.hasLive() {
		v.idle = true
		out.StatusChanged, out.Idle = true, true
	}
	return out
}

// recompute advances the watermark to the minimum over the aligned
// channels, if there is one and it is higher.
func (v *Valve) recompute() ValveOutput {
	m, found := op.MaxWatermark, false
	for _, c := range v.ch {
		if !c.ended && !c.idle && c.aligned {
			m, found = min(m, c.watermark), true
		}
	}
	if !found {
		return v.output(false)
	}
	return v.advance(m)
}

func (v *Valve) advance(wm int64) ValveOutput {
	if wm <= v.current {
		return v.output(false)
	}
	v.current = wm
	return v.output(true)
}

func (v *Valve) output(advanced bool) ValveOutput {
	return ValveOutput{Watermark: v.current, Advanced: advanced, Idle: v.idle}
}

func (v *Valve) hasActive() bool {
	for _, c := range v.ch {
		if !c.ended && !c.idle {
			return true
		}
	}
	return false
}

func (v *Valve) hasLive() bool {
	for _, c := range v.ch {
		if !c.ended {
			return true
		}
	}
	return false
}

// Current is the combined watermark.
func (v *Valve) Current() int64 { return v.current }

// Idle reports whether every live channel is idle.
func (v *Valve) Idle() bool { return v.idle }
