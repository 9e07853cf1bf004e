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

// Loaded is what a subtask's operators start from, read from its handles.
type Loaded struct {
	// Operators holds each operator's state by uid.
	Operators map[string]*op.Restored
	// ChannelState holds the in-flight input data per input channel.
	ChannelState map[int][][]byte
}

// Load reads the state of one subtask from its handles: the sections of
// the key groups it owns from every keyed stream (each stream read once),
// the backends' own files as handles that open (the backend downloads
// them), list entries, and channel state. It runs where the subtask runs.
func Load(r *storage.TaskRestore, read Reader, open OpenShared) (*Loaded, error) {
	out := &Loaded{Operators: make(map[string]*op.Restored, len(r.Operators))}
	streams := map[string][]byte{}
	readOnce := func(h storage.StreamHandle) ([]byte, error) {
		if h.IsInline() || h.IsEmpty() {
			return read(h)
		}
		if b, ok := streams[h.Path]; ok {
			return b, nil
		}
		b, err := read(h)
		if err != nil {
			return nil, err
		}
		streams[h.Path] = b
		return b, nil
	}
	for _, o := range r.Operators {
		res := &op.Restored{CheckpointID: r.CheckpointID, KeyGroups: map[int][]byte{}}
		for _, h := range o.Keyed {
			if err := loadKeyed(res, o, h, readOnce); err != nil {
				return nil, fmt.Errorf("restore uid %q: %w", o.UID, err)
			}
			if len(h.Shared) > 0 {
				res.Native = append(res.Native, op.NativeKeyed{KeyGroupStart: h.KeyGroupStart, KeyGroupEnd: h.KeyGroupEnd,
					Files: h.Shared, Open: open, Reusable: r.Reusable})
			}
		}
		for _, l := range o.Lists {
			res.Lists = append(res.Lists, op.NamedList{Name: l.Name, Mode: OpListMode(l.Mode), Entries: l.Entries})
		}
		out.Operators[o.UID] = res
	}
	for ch, h := range r.ChannelState {
		if h.IsEmpty() {
			continue
		}
		data, err := readOnce(h)
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

// loadKeyed takes from h's stream the non-empty sections of the key groups
// o owns, checking every offset against the stream.
func loadKeyed(res *op.Restored, o storage.OperatorRestore, h storage.KeyedStateHandle, read Reader) error {
	n := h.KeyGroupEnd - h.KeyGroupStart + 1
	if n <= 0 || len(h.Offsets) != n {
		return fmt.Errorf("%w: key groups [%d, %d] with %d offsets", ErrCorrupt, h.KeyGroupStart, h.KeyGroupEnd, len(h.Offsets))
	}
	data, err := read(h.Stream)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		start, end := h.Offsets[i], int64(len(data))
		if i+1 < n {
			end = h.Offsets[i+1]
		}
		if start < 0 || start > end || end > int64(len(data)) {
			return fmt.Errorf("%w: key group %d at [%d, %d) of a %d-byte stream", ErrCorrupt, h.KeyGroupStart+i, start, end, len(data))
		}
		if kg := h.KeyGroupStart + i; start < end && kg >= o.KeyGroupStart && kg <= o.KeyGroupEnd {
			res.KeyGroups[kg] = data[start:end]
		}
	}
	return nil
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
