package taskmanager

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/task"
)

// CheckpointResponder is where a subtask's checkpoint messages go: for a
// deployment through the Gateway, the JobMaster's gateway, as messages
// (gatewayResponder). An acknowledgement carries the handles of the state
// the subtask wrote, never the state. Its methods must not block; they are
// called from the subtask's goroutine and from its writers'.
type CheckpointResponder interface {
	Acknowledge(checkpointID int64, state storage.TaskState)
	// Decline carries, in partial, what the subtask wrote before it
	// failed, so that its files do not stay behind.
	Decline(checkpointID int64, err error, partial storage.TaskState)
	// EndOfData reports that the subtask finished its operators and is
	// waiting for its final checkpoint.
	EndOfData()
}

// stateWriter is a subtask's task.Responder on the TaskManager: it writes
// each snapshot into checkpoint storage in a goroutine of its own, so the
// task goes on meanwhile, and acknowledges with handles. The TaskManager
// reports the subtask's end only after every write returned (wait), so
// that the JobMaster has every acknowledgement of a subtask before it
// learns the subtask ended.
type stateWriter struct {
	ctx     context.Context
	storage func(context.Context) (*storage.Storage, error)
	jobID   string
	vertex  *graph.JobVertex
	subtask int
	to      CheckpointResponder
	wg      sync.WaitGroup
}

func (w *stateWriter) Acknowledge(s *task.Snapshot) {
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		st, err := w.write(s)
		if err != nil {
			w.to.Decline(s.CheckpointID, fmt.Errorf("write the state of checkpoint %d: %w", s.CheckpointID, err), st)
			return
		}
		w.to.Acknowledge(s.CheckpointID, st)
	}()
}

func (w *stateWriter) Decline(id int64, err error) { w.to.Decline(id, err, storage.TaskState{}) }

func (w *stateWriter) EndOfData() { w.to.EndOfData() }

// wait returns once every write started has returned.
func (w *stateWriter) wait() { w.wg.Wait() }

// write stores the snapshot's streams and returns the subtask state of
// each operator; on error, what it wrote until then.
func (w *stateWriter) write(s *task.Snapshot) (storage.TaskState, error) {
	defer s.Release()
	out := storage.TaskState{Location: s.Location, Operators: make(map[string]storage.SubtaskState, len(s.Operators))}
	if s.Location == "" {
		return out, errors.New("the barrier named no snapshot location")
	}
	st, err := w.storage(w.ctx)
	if err != nil {
		return out, err
	}
	kind := storage.KindCheckpoint
	if s.Savepoint {
		kind = storage.KindSavepoint
	}
	dir, err := st.WriterAt(w.ctx, w.jobID, s.CheckpointID, kind, s.Location)
	if err != nil {
		return out, err
	}
	for i, n := range w.vertex.Chain {
		snap := s.Operators[n.UID]
		// Finished: the operators had finished before the snapshot (the
		// task waits for its final checkpoint); the JobMaster needs it
		// for union list state (FLIP-147).
		sub := storage.SubtaskState{Index: w.subtask, Finished: s.Finished}
		if snap != nil {
			if snap.Keyed != nil {
				h, err := snap.Keyed.Write(w.ctx, dir, fmt.Sprintf("v%d-o%d-s%d-keyed", w.vertex.ID, i, w.subtask))
				if err != nil {
					// h holds the shared files written before the error.
					out.Operators[n.UID] = storage.SubtaskState{Index: w.subtask, Keyed: []storage.KeyedStateHandle{h}}
					return out, err
				}
				sub.Keyed = []storage.KeyedStateHandle{h}
			}
			for _, l := range snap.Lists {
				sub.OperatorLists = append(sub.OperatorLists, storage.OperatorListState{Name: l.Name, Mode: restore.StoredListMode(l.Mode), Entries: l.Entries})
			}
		}
		if i == 0 && len(s.ChannelState) > 0 {
			if sub.ChannelState, err = w.writeChannels(dir, s.ChannelState); err != nil {
				if snap != nil {
					out.Operators[n.UID] = sub
				}
				return out, err
			}
		}
		if snap != nil || sub.ChannelState != nil {
			out.Operators[n.UID] = sub
		}
	}
	return out, nil
}

// writeChannels writes the in-flight data of each input channel as one
// stream and returns the handles by channel.
func (w *stateWriter) writeChannels(dir *storage.CheckpointDir, chans map[int][][]byte) ([]storage.StreamHandle, error) {
	ids := make([]int, 0, len(chans))
	for ch := range chans {
		ids = append(ids, ch)
	}
	sort.Ints(ids)
	out := make([]storage.StreamHandle, ids[len(ids)-1]+1)
	for _, ch := range ids {
		h, err := dir.WriteState(w.ctx, fmt.Sprintf("v%d-s%d-ch%d", w.vertex.ID, w.subtask, ch), bytes.NewReader(restore.EncodeBuffers(chans[ch])))
		if err != nil {
			return out, fmt.Errorf("write channel state: %w", err)
		}
		out[ch] = h
	}
	return out, nil
}
