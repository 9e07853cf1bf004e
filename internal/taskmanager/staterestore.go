package taskmanager

import (
	"context"
	"fmt"
	"io"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
)

// restorer reads the state a deployment's handles point at, on the
// subtask's goroutine before its operators open: the keyed streams and
// channel state through checkpoint storage; the files of incremental
// backends are opened later by the backend itself. The storage is the
// job's checkpoint storage, or one opened on the snapshot's location for
// a job without checkpoints. A snapshot that cannot be read fails the
// subtask unrecoverably, as a restore that failed before deployment does:
// a restart would meet the same damage.
func (tm *TaskManager) restorer(r *storage.TaskRestore, root string) task.Restorer {
	if root == "" {
		root = r.Location
	}
	return func(ctx context.Context) (map[string]*op.Restored, map[int][][]byte, error) {
		fail := func(err error) error {
			if ctx.Err() != nil {
				return fmt.Errorf("%w: %w", ctx.Err(), err)
			}
			return fmt.Errorf("%w: restore from %s: %w", scheduler.ErrUnrecoverable, r.Location, err)
		}
		st, err := tm.storages.get(ctx, root)
		if err != nil {
			return nil, nil, fail(err)
		}
		read := func(h storage.StreamHandle) ([]byte, error) {
			if h.IsInline() {
				return h.Inline, nil
			}
			rc, err := st.ReadState(ctx, r.Location, h)
			if err != nil {
				return nil, err
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", h.Path, err)
			}
			return b, nil
		}
		open := func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error) {
			return st.ReadShared(ctx, r.Location, f)
		}
		l, err := restore.Load(r, read, open)
		if err != nil {
			return nil, nil, fail(err)
		}
		return l.Operators, l.ChannelState, nil
	}
}
