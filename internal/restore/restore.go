// Package restore decides what every subtask of a job starts from when the
// job is restored from a checkpoint or savepoint, possibly at another
// parallelism. Assign is pure: it runs where the metadata is (the
// JobMaster) and gives every subtask handles; LoadFrom runs where the
// subtask runs and reads them through the readers it is handed: of each
// old keyed stream only the byte range of the key groups it owns, the
// streams of several old subtasks at once (see loadkeyed.go).
//
// Operators are matched by uid. Keyed state is redistributed by key group:
// a new subtask takes, from every old subtask's keyed stream, the sections
// of the key groups in its new range (the max parallelism must not have
// changed: it fixes the key groups). Operator list state is redistributed
// by its mode: split lists stay with their subtask at an unchanged
// parallelism and are dealt out entry by entry otherwise, union lists go
// whole to everyone, and broadcast state is taken from any non-empty copy
// (FLIP-147: subtasks that finished may have left theirs empty). In-flight
// channel state of unaligned checkpoints restores only at the same
// parallelism.
package restore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/keygroup"
)

// Errors of a restore.
var (
	ErrUnclaimedState = errors.New("restore: state without an operator")
	ErrMaxParallelism = errors.New("restore: max parallelism changed")
	ErrChannelState   = errors.New("restore: in-flight data cannot be redistributed")
	ErrCorrupt        = errors.New("restore: corrupt state")
)

// Target is an operator of the job being restored.
type Target struct {
	UID            string
	Name           string
	Parallelism    int
	MaxParallelism int
}

// Options of an assignment.
type Options struct {
	// AllowNonRestored drops state that no operator claims instead of
	// failing (Flink's --allowNonRestoredState).
	AllowNonRestored bool
}

// Operator is what one operator's subtasks restore, as handles: the task
// of each subtask reads them (see Load).
type Operator struct {
	// Subtasks holds each new subtask's state, UID and key-group range set.
	Subtasks []storage.OperatorRestore
	// ChannelState holds, per new subtask, the streams of its in-flight
	// input data per input channel (nil when there is none).
	ChannelState [][]storage.StreamHandle
	// FullyFinished is set when every subtask of the operator had finished
	// at the checkpoint: its subtasks finish at once on restore.
	FullyFinished bool
}

// Reader returns the bytes of a state stream.
type Reader func(h storage.StreamHandle) ([]byte, error)

// Assign maps the state in md to every target operator's subtasks. It
// reads nothing: what it checks it checks on the metadata alone, and the
// streams are read where the subtasks run (Load).
func Assign(md *storage.Metadata, targets []Target, opts Options) (map[string]*Operator, error) {
	byUID := make(map[string]*storage.OperatorState, len(md.Operators))
	for i := range md.Operators {
		byUID[md.Operators[i].UID] = &md.Operators[i]
	}
	inflight := hasChannelState(md)
	out := make(map[string]*Operator, len(targets))
	claimed := make(map[string]bool)
	for _, t := range targets {
		o := &Operator{Subtasks: make([]storage.OperatorRestore, t.Parallelism), ChannelState: make([][]storage.StreamHandle, t.Parallelism)}
		for i := range o.Subtasks {
			o.Subtasks[i] = storage.OperatorRestore{UID: t.UID, KeyGroupStart: 0, KeyGroupEnd: -1}
		}
		out[t.UID] = o
		old, ok := byUID[t.UID]
		if !ok {
			continue // a new operator starts empty
		}
		claimed[t.UID] = true
		if inflight && old.MaxParallelism != t.MaxParallelism {
			return nil, fmt.Errorf("restore %s (uid %q): %w: it was %d and is %d, and the checkpoint holds in-flight records of keyed exchanges, which carry key groups of the old one; restore from an aligned checkpoint or a savepoint",
				t.Name, t.UID, ErrMaxParallelism, old.MaxParallelism, t.MaxParallelism)
		}
		if err := assignOperator(o, old, t); err != nil {
			return nil, fmt.Errorf("restore %s (uid %q): %w", t.Name, t.UID, err)
		}
	}
	if !opts.AllowNonRestored {
		var unclaimed []string
		for _, o := range md.Operators {
			if !claimed[o.UID] && hasState(&o) {
				unclaimed = append(unclaimed, fmt.Sprintf("%q (%s)", o.UID, o.Name))
			}
		}
		if len(unclaimed) > 0 {
			sort.Strings(unclaimed)
			return nil, fmt.Errorf("%w: the checkpoint has state for operator uids %v that no operator of this job has; give the operators their old uids, or allow dropping the state (weir run --allow-non-restored-state, or -n; WithRestoreFrom(location, true) in the API)", ErrUnclaimedState, unclaimed)
		}
	}
	return out, nil
}

// hasChannelState reports whether any subtask of md kept in-flight data
// (an unaligned checkpoint).
func hasChannelState(md *storage.Metadata) bool {
	for _, o := range md.Operators {
		for _, s := range o.Subtasks {
			if len(s.ChannelState) > 0 {
				return true
			}
		}
	}
	return false
}

func hasState(o *storage.OperatorState) bool {
	for _, s := range o.Subtasks {
		if len(s.Keyed) > 0 || len(s.ChannelState) > 0 || len(s.Raw) > 0 {
			return true
		}
		for _, l := range s.OperatorLists {
			if len(l.Entries) > 0 {
				return true
			}
		}
	}
	return false
}

func assignOperator(o *Operator, old *storage.OperatorState, t Target) error {
	o.FullyFinished = old.FullyFinished
	if err := assignKeyed(o, old, t); err != nil {
		return err
	}
	if err := assignLists(o, old, t); err != nil {
		return err
	}
	return assignChannels(o, old, t)
}

// assignKeyed gives every new subtask its key-group range and the handles
// that overlap it. A handle's key groups are checked here; its offsets
// against its stream where it is read.
func assignKeyed(o *Operator, old *storage.OperatorState, t Target) error {
	var any bool
	for _, s := range old.Subtasks {
		if len(s.Keyed) > 0 {
			any = true
		}
	}
	if !any {
		return nil
	}
	if old.MaxParallelism != t.MaxParallelism {
		return fmt.Errorf("%w: it was %d and is %d; keyed state is split into max-parallelism key groups, so it must stay the same",
			ErrMaxParallelism, old.MaxParallelism, t.MaxParallelism)
	}
	for i := range o.Subtasks {
		r := keygroup.RangeFor(t.MaxParallelism, t.Parallelism, i)
		o.Subtasks[i].KeyGroupStart, o.Subtasks[i].KeyGroupEnd = r.Start, r.End
	}
	for _, s := range old.Subtasks {
		for _, h := range s.Keyed {
			if err := checkKeyed(h, t.MaxParallelism); err != nil {
				return err
			}
			for i := range o.Subtasks {
				if r := &o.Subtasks[i]; h.KeyGroupStart <= r.KeyGroupEnd && r.KeyGroupStart <= h.KeyGroupEnd {
					r.Keyed = append(r.Keyed, h)
				}
			}
		}
	}
	return nil
}

// checkKeyed checks a keyed handle's key groups and offsets on their own.
func checkKeyed(h storage.KeyedStateHandle, maxParallelism int) error {
	n := h.KeyGroupEnd - h.KeyGroupStart + 1
	if n <= 0 || len(h.Offsets) != n || h.KeyGroupStart < 0 {
		return fmt.Errorf("%w: key groups [%d, %d] with %d offsets", ErrCorrupt, h.KeyGroupStart, h.KeyGroupEnd, len(h.Offsets))
	}
	if h.KeyGroupEnd >= maxParallelism {
		return fmt.Errorf("%w: key group %d beyond max parallelism %d", ErrCorrupt, h.KeyGroupEnd, maxParallelism)
	}
	return nil
}

func assignLists(o *Operator, old *storage.OperatorState, t Target) error {
	type list struct {
		mode    storage.Mode
		entries [][]byte
		copies  [][][]byte
		// own holds each old subtask's entries by its index.
		own map[int][][]byte
	}
	// At an unchanged parallelism each subtask keeps its own split list,
	// as in Flink, which redistributes split lists only when the
	// parallelism changed. The in-flight output of an unaligned checkpoint
	// goes back to the subtask of the same index, so a split dealt to
	// another subtask would send its next records on another channel than
	// those still in flight, and a consumer could read them first (a
	// source that finished its splits leaves an empty list, which shifted
	// every later entry to a lower subtask).
	keep := old.Parallelism == t.Parallelism
	lists := map[string]*list{}
	var names []string
	for _, s := range old.Subtasks {
		if keep && (s.Index < 0 || s.Index >= t.Parallelism) {
			return fmt.Errorf("%w: subtask index %d at parallelism %d", ErrCorrupt, s.Index, t.Parallelism)
		}
		for _, l := range s.OperatorLists {
			cur, ok := lists[l.Name]
			if !ok {
				cur = &list{mode: l.Mode, own: make(map[int][][]byte)}
				lists[l.Name] = cur
				names = append(names, l.Name)
			}
			cur.entries = append(cur.entries, l.Entries...)
			cur.copies = append(cur.copies, l.Entries)
			cur.own[s.Index] = append(cur.own[s.Index], l.Entries...)
		}
	}
	for _, name := range names {
		l := lists[name]
		switch l.mode {
		case storage.ModeUnion:
			for i := range o.Subtasks {
				o.Subtasks[i].Lists = append(o.Subtasks[i].Lists, storage.OperatorListState{Name: name, Mode: l.mode, Entries: l.entries})
			}
		case storage.ModeBroadcast:
			var copy [][]byte
			for _, c := range l.copies {
				if len(c) > 0 {
					copy = c
					break
				}
			}
			for i := range o.Subtasks {
				o.Subtasks[i].Lists = append(o.Subtasks[i].Lists, storage.OperatorListState{Name: name, Mode: l.mode, Entries: copy})
			}
		default:
			dealt := make([][][]byte, t.Parallelism)
			if keep {
				for i, e := range l.own {
					dealt[i] = e
				}
			} else {
				for i, e := range l.entries {
					dealt[i%t.Parallelism] = append(dealt[i%t.Parallelism], e)
				}
			}
			for i := range o.Subtasks {
				o.Subtasks[i].Lists = append(o.Subtasks[i].Lists, storage.OperatorListState{Name: name, Mode: storage.ModeSplit, Entries: dealt[i]})
			}
		}
	}
	return nil
}

func assignChannels(o *Operator, old *storage.OperatorState, t Target) error {
	for _, s := range old.Subtasks {
		if len(s.ChannelState) == 0 {
			continue
		}
		if old.Parallelism != t.Parallelism {
			return fmt.Errorf("%w: the checkpoint was unaligned at parallelism %d and the job now runs at %d; restore from an aligned checkpoint or a savepoint",
				ErrChannelState, old.Parallelism, t.Parallelism)
		}
		if s.Index < 0 || s.Index >= t.Parallelism {
			return fmt.Errorf("%w: channel state of subtask %d at parallelism %d", ErrCorrupt, s.Index, t.Parallelism)
		}
		o.ChannelState[s.Index] = s.ChannelState
	}
	return nil
}

// EncodeBuffers frames a channel's buffers as one stream: each buffer is
// a uvarint length followed by its bytes.
func EncodeBuffers(bufs [][]byte) []byte {
	var out []byte
	for _, b := range bufs {
		out = binary.AppendUvarint(out, uint64(len(b)))
		out = append(out, b...)
	}
	return out
}

// DecodeBuffers reverses EncodeBuffers. The buffers share data's memory,
// each capped at its own length: a restored output buffer goes to a
// subpartition, and once its consumer recycles it the producer appends to
// it, which must not write into the buffers after it.
func DecodeBuffers(data []byte) ([][]byte, error) {
	var bufs [][]byte
	for len(data) > 0 {
		n, m := binary.Uvarint(data)
		if m <= 0 || uint64(len(data)-m) < n {
			return nil, fmt.Errorf("%w: channel state framing", ErrCorrupt)
		}
		bufs = append(bufs, data[m:m+int(n):m+int(n)])
		data = data[m+int(n):]
	}
	return bufs, nil
}
