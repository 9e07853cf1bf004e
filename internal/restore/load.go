package restore

import (
	"context"
	"fmt"
	"io"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
)

// OpenShared opens a shared file of an incremental backend.
type OpenShared func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error)

// RangeReader returns n bytes of a state stream from offset off.
type RangeReader func(h storage.StreamHandle, off, n int64) ([]byte, error)

// DefaultReadParallelism is how many streams Load reads at once when
// Sources.Parallelism is not set.
const DefaultReadParallelism = 4

// Sources is how Load reads a subtask's handles.
type Sources struct {
	// Read returns the bytes of a whole stream (channel state, and keyed
	// streams when ReadRange is nil).
	Read Reader
	// ReadRange, when set, reads only the sections of the key groups the
	// subtask owns out of each keyed stream: one contiguous range per
	// stream, found by the handle's key-group offsets. Without it each
	// keyed stream is read whole (once) and cut.
	ReadRange RangeReader
	// Open opens a shared file of an incremental backend; the backend
	// calls it when it opens.
	Open OpenShared
	// Parallelism bounds how many keyed streams (of several old subtasks)
	// are read at once; DefaultReadParallelism when zero or less.
	Parallelism int
}

// Loaded is what a subtask's operators start from, read from its handles.
type Loaded struct {
	// Operators holds each operator's state by uid.
	Operators map[string]*op.Restored
	// ChannelState holds the in-flight input data per input channel.
	ChannelState map[int][][]byte
}

// Load reads the state of one subtask from its handles with read and
// open: see LoadFrom, here with whole-stream reads.
func Load(r *storage.TaskRestore, read Reader, open OpenShared) (*Loaded, error) {
	return LoadFrom(r, Sources{Read: read, Open: open})
}

// LoadFrom reads the state of one subtask from its handles: the sections
// of the key groups it owns from every keyed stream (with src.ReadRange
// only those bytes, several streams at once), the backends' own files as
// handles that open (the backend downloads them), list entries, and
// channel state. It runs where the subtask runs.
func LoadFrom(r *storage.TaskRestore, src Sources) (*Loaded, error) {
	out := &Loaded{Operators: make(map[string]*op.Restored, len(r.Operators))}
	var reads keyedReads
	for _, o := range r.Operators {
		res := &op.Restored{CheckpointID: r.CheckpointID, KeyGroups: map[int][]byte{}}
		for _, h := range o.Keyed {
			if err := reads.plan(res, o, h, src.ReadRange != nil); err != nil {
				return nil, fmt.Errorf("restore uid %q: %w", o.UID, err)
			}
			if len(h.Shared) > 0 {
				res.Native = append(res.Native, op.NativeKeyed{KeyGroupStart: h.KeyGroupStart, KeyGroupEnd: h.KeyGroupEnd,
					Files: h.Shared, Open: src.Open, Reusable: r.Reusable})
			}
		}
		for _, l := range o.Lists {
			res.Lists = append(res.Lists, op.NamedList{Name: l.Name, Mode: OpListMode(l.Mode), Entries: l.Entries})
		}
		out.Operators[o.UID] = res
	}
	if err := reads.run(src); err != nil {
		return nil, err
	}
	for ch, h := range r.ChannelState {
		if h.IsEmpty() {
			continue
		}
		data, err := src.Read(h)
		if err != nil {
			return nil, fmt.Errorf("restore channel state %d: %w", ch, err)
		}
		bufs, err := DecodeBuffers(data)
		if err != nil {
			return nil, fmt.Errorf("restore channel state %d: %w", ch, err)
		}
		if out.ChannelState == nil {
			out.ChannelState = make(map[int][][]byte)
		}
		out.ChannelState[ch] = bufs
	}
	return out, nil
}

// OpListMode maps a stored list mode to the operator's.
func OpListMode(m storage.Mode) op.ListMode {
	switch m {
	case storage.ModeUnion:
		return op.UnionList
	case storage.ModeBroadcast:
		return op.BroadcastList
	}
	return op.SplitList
}

// StoredListMode maps an operator's list mode to the stored one.
func StoredListMode(m op.ListMode) storage.Mode {
	switch m {
	case op.UnionList:
		return storage.ModeUnion
	case op.BroadcastList:
		return storage.ModeBroadcast
	}
	return storage.ModeSplit
}
