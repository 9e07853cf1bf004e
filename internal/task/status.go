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

// WatermarkStatusSource is implemented by operators that know when they
// are idle: sources, and timestamp assigners with idleness. Before Open
// the task hands the last of them in its chain announce, which tells every
// output of the task that the operator is idle (true) or active again
// (false); the operator calls it from PollNext, an element or its timers,
// ACTIVE before the first record or watermark that follows IDLE. Such an
// operator owns the status of its task, as Flink's
// TimestampsAndWatermarksOperator ignores the status of its inputs: the
// operators before it in the chain are not handed announce, and the status
// of the task's input channels is no longer forwarded.
type WatermarkStatusSource interface {
	SetWatermarkStatus(announce func(idle bool) error)
}

// handWatermarkStatus hands announce to the last operator of the chain
// that takes it.
func (t *Task) handWatermarkStatus() {
	for i := len(t.chain) - 1; i >= 0; i-- {
		if ws, ok := t.chain[i].inst.(WatermarkStatusSource); ok {
			ws.SetWatermarkStatus(t.emitWatermarkStatus)
			t.ownStatus = true
			return
		}
	}
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
	if t.ownStatus {
		out.StatusChanged = false
	}
	if out.StatusChanged && !out.Idle {
		if err := t.emitWatermarkStatus(false); err != nil {
			return err
		}
	}
	if out.Advanced {
		t.Metrics.InputWatermark.Store(out.Watermark)
		if err := t.headWatermark(out.Watermark); err != nil {
			return err
		}
	}
	if out.StatusChanged && out.Idle {
		return t.emitWatermarkStatus(true)
	}
	return nil
}
