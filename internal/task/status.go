package task

import (
	"fmt"

	"github.com/weir-engine/weir/internal/network"
)

// Watermark status (Flink's WatermarkStatus). A subtask whose input has
// nothing to say about event time for now, because every split of its
// source is idle or every channel of its input gate is, announces IDLE on
// all its outputs, and ACTIVE when that ends; downstream valves then leave
// its channels out of their minimum, so one quiet subtask does not hold
// back event time for the whole job.
//
// The status is the task's, not an operator's: operators in the chain do
// not see it, as Flink's forward it unchanged (the task's one valve already
// combines the channels of every input). It goes straight to the task's
// record writers, in order with what the operators emitted before it,
// since the chain runs on the task's goroutine. A writer that announced
// IDLE announces ACTIVE by itself before its next watermark, so a
// watermark an operator emits on its own (a final MaxWatermark, a
// periodic assigner) always counts downstream.

// WatermarkStatusSource is implemented by source operators that know when
// they are idle. Before Open the task hands them announce, which tells
// every output of the task that the source is idle (true) or active again
// (false); the source calls it from PollNext or its timers, ACTIVE before
// the first record or watermark that follows IDLE.
type WatermarkStatusSource interface {
	SetWatermarkStatus(announce func(idle bool) error)
}

// emitWatermarkStatus announces idle or active on every output.
func (t *Task) emitWatermarkStatus(idle bool) error {
	for _, w := range t.writers {
		if err := w.EmitWatermarkStatus(idle); err != nil {
			return fmt.Errorf("task %s: watermark status: %w", t.Name(), err)
		}
	}
	return nil
}

// forwardValve forwards what the input valve asks: ACTIVE before the
// watermark, IDLE after it.
func (t *Task) forwardValve(out network.ValveOutput) error {
	if out.StatusChanged && !out.Idle {
		if err := t.emitWatermarkStatus(false); err != nil {
			return err
		}
	}
	if out.Advanced {
		if err := t.headWatermark(out.Watermark); err != nil {
			return err
		}
	}
	if out.StatusChanged && out.Idle {
		return t.emitWatermarkStatus(true)
	}
	return nil
}
