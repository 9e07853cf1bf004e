package task

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/op"
)

// Restorer reads the state a subtask starts from: each operator's by uid,
// and the in-flight input data per input channel. The TaskManager gives
// one that reads the handles of its deployment from checkpoint storage.
type Restorer func(ctx context.Context) (restored map[string]*op.Restored, channelState map[int][][]byte, err error)

// loadRestored reads the restored state, when the descriptor says how, on
// the task's own goroutine: Flink restores in the task thread too, and a
// cancel of the task stops the reads.
func (t *Task) loadRestored(ctx context.Context) error {
	if t.desc.Restore == nil {
		return nil
	}
	restored, chans, err := t.desc.Restore(ctx)
	if err != nil {
		return fmt.Errorf("task %s: restore: %w", t.Name(), err)
	}
	t.desc.Restored, t.desc.ChannelState = restored, chans
	return nil
}
