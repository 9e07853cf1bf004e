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
			return readAll(h, 0, h.Size)(st.ReadState(ctx, r.Location, h))
		}
		readRange := func(h storage.StreamHandle, off, n int64) ([]byte, error) {
			return readAll(h, off, n)(st.ReadStateRange(ctx, r.Location, h, off, n))
		}
		open := func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error) {
			return st.ReadShared(ctx, r.Location, f)
		}
		l, err := restore.LoadFrom(r, restore.Sources{Read: read, ReadRange: readRange, Open: open})
		if err != nil {
			return nil, nil, fail(err)
		}
		return l.Operators, l.ChannelState, nil
	}
}

// readAll returns a function reading all of an opened stream, n bytes of
// h from off, into one buffer of that size, and then to its end, where
// the storage's reader checks what the handle records.
func readAll(h storage.StreamHandle, off, n int64) func(rc io.ReadCloser, err error) ([]byte, error) {
	return func(rc io.ReadCloser, err error) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		buf := make([]byte, n)
		if _, err := io.ReadFull(rc, buf); err != nil {
			return nil, fmt.Errorf("read %s at %d: %w", h.Path, off, err)
		}
		var one [1]byte
		for {
			m, err := rc.Read(one[:])
			if m > 0 {
				return nil, fmt.Errorf("read %s at %d: %w: more than the %d bytes its handle records", h.Path, off, storage.ErrCorrupt, n)
			}
			if err == io.EOF {
				return buf, nil
			}
			if err != nil {
				return nil, fmt.Errorf("read %s at %d: %w", h.Path, off, err)
			}
		}
	}
}
