package restore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
)

// loaded is what the subtasks of one operator start from.
type loaded struct {
	Subtasks     []*op.Restored
	ChannelState []map[int][][]byte
}

// assign maps md to the targets (restore.Assign, as the JobMaster does)
// and reads every subtask's handles with read (restore.Load, as each task
// does).
func assign(md *storage.Metadata, targets []restore.Target, read restore.Reader, opts restore.Options) (map[string]*loaded, error) {
	ops, err := restore.Assign(md, targets, opts)
	if err != nil {
		return nil, err
	}
	out := map[string]*loaded{}
	for _, t := range targets {
		o := ops[t.UID]
		l := &loaded{}
		for i := range o.Subtasks {
			r := &storage.TaskRestore{CheckpointID: md.CheckpointID, Operators: o.Subtasks[i : i+1], ChannelState: o.ChannelState[i]}
			got, err := restore.Load(r, read, nil)
			if err != nil {
				return nil, err
			}
			l.Subtasks = append(l.Subtasks, got.Operators[t.UID])
			l.ChannelState = append(l.ChannelState, got.ChannelState)
		}
		out[t.UID] = l
	}
	return out, nil
}

// keyedOld builds the keyed state of an operator at parallelism p: key
// group kg's section is "kg<kg>".
func keyedOld(uid string, p, maxP int) (storage.OperatorState, map[string][]byte) {
	files := map[string][]byte{}
	o := storage.OperatorState{UID: uid, Parallelism: p, MaxParallelism: maxP}
	for i := 0; i < p; i++ {
		r := keygroup.RangeFor(maxP, p, i)
		var buf []byte
		var offsets []int64
		for kg := r.Start; kg <= r.End; kg++ {
			offsets = append(offsets, int64(len(buf)))
			buf = append(buf, fmt.Sprintf("kg%d", kg)...)
		}
		path := fmt.Sprintf("s%d", i)
		files[path] = buf
		o.Subtasks = append(o.Subtasks, storage.SubtaskState{Index: i, Keyed: []storage.KeyedStateHandle{{
			KeyGroupStart: r.Start, KeyGroupEnd: r.End, Offsets: offsets, Stream: storage.StreamHandle{Path: path},
		}}})
	}
	return o, files
}

func TestKeyedStateFollowsKeyGroups(t *testing.T) {
	const maxP = 16
	for _, tt := range []struct{ from, to int }{{1, 4}, {4, 2}, {3, 5}, {2, 2}} {
		old, files := keyedOld("op", tt.from, maxP)
		md := &storage.Metadata{CheckpointID: 7, Operators: []storage.OperatorState{old}}
		got, err := assign(md, []restore.Target{{UID: "op", Parallelism: tt.to, MaxParallelism: maxP}},
			func(h storage.StreamHandle) ([]byte, error) { return files[h.Path], nil }, restore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for i, r := range got["op"].Subtasks {
			rg := keygroup.RangeFor(maxP, tt.to, i)
			for kg, b := range r.KeyGroups {
				if !rg.Contains(kg) || string(b) != fmt.Sprintf("kg%d", kg) {
					t.Fatalf("%d->%d: subtask %d got key group %d = %q", tt.from, tt.to, i, kg, b)
				}
				seen++
			}
			if r.CheckpointID != 7 {
				t.Fatalf("checkpoint id %d", r.CheckpointID)
			}
		}
		if seen != maxP {
			t.Fatalf("%d->%d: %d key groups restored, want %d", tt.from, tt.to, seen, maxP)
		}
	}
}

func TestListModes(t *testing.T) {
	lists := func(entries ...string) []storage.OperatorListState {
		var out []storage.OperatorListState
		for _, mode := range []storage.Mode{storage.ModeSplit, storage.ModeUnion, storage.ModeBroadcast} {
			l := storage.OperatorListState{Name: mode.String(), Mode: mode}
			for _, e := range entries {
				l.Entries = append(l.Entries, []byte(e))
			}
			out = append(out, l)
		}
		return out
	}
	md := &storage.Metadata{Operators: []storage.OperatorState{{UID: "src", Parallelism: 2, Subtasks: []storage.SubtaskState{
		// Subtask 0 finished and left its broadcast copy empty (FLIP-147).
		{Index: 0, Finished: true, OperatorLists: []storage.OperatorListState{{Name: "split", Mode: storage.ModeSplit, Entries: [][]byte{[]byte("a")}}, {Name: "union", Mode: storage.ModeUnion, Entries: [][]byte{[]byte("a")}}, {Name: "broadcast", Mode: storage.ModeBroadcast}}},
		{Index: 1, OperatorLists: lists("b", "c")},
	}}}}
	got, err := assign(md, []restore.Target{{UID: "src", Parallelism: 3}}, nil, restore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var split []string
	for i, r := range got["src"].Subtasks {
		for _, e := range r.List("split") {
			split = append(split, string(e))
		}
		if u := r.List("union"); len(u) != 3 {
			t.Errorf("subtask %d union has %d entries, want all 3", i, len(u))
		}
		if b := r.List("broadcast"); len(b) != 2 || string(b[0]) != "b" {
			t.Errorf("subtask %d broadcast = %q, want the non-empty copy [b c]", i, b)
		}
	}
	if strings.Join(split, "") != "abc" {
		t.Errorf("split entries dealt out as %q, want each of a, b, c once", split)
	}
}

// At an unchanged parallelism a split list stays with its subtask, even
// when another subtask's list is empty: the in-flight output of an
// unaligned checkpoint is restored by subtask index, so a source split
// that moved to another subtask would send its next records on another
// channel than the ones still in flight. Seen as reordered counts in the
// sequence job after a source subtask had finished its split.
func TestSplitListsStayWithTheirSubtask(t *testing.T) {
	for _, tt := range []struct {
		name string
		old  [][]string // split list entries of each old subtask
		want [][]string // of each new subtask
	}{
		{name: "first subtask finished its splits", old: [][]string{{}, {"b"}}, want: [][]string{{}, {"b"}}},
		{name: "middle subtask empty", old: [][]string{{"a"}, {}, {"c", "d"}}, want: [][]string{{"a"}, {}, {"c", "d"}}},
		{name: "more entries than subtasks", old: [][]string{{"a", "b", "c"}, {"d"}}, want: [][]string{{"a", "b", "c"}, {"d"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := storage.OperatorState{UID: "src", Parallelism: len(tt.old), MaxParallelism: 128}
			for i, entries := range tt.old {
				l := storage.OperatorListState{Name: "splits", Mode: storage.ModeSplit}
				for _, e := range entries {
					l.Entries = append(l.Entries, []byte(e))
				}
				o.Subtasks = append(o.Subtasks, storage.SubtaskState{Index: i, OperatorLists: []storage.OperatorListState{l}})
			}
			md := &storage.Metadata{CheckpointID: 3, Operators: []storage.OperatorState{o}}
			got, err := assign(md, []restore.Target{{UID: "src", Parallelism: len(tt.old), MaxParallelism: 128}}, nil, restore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range got["src"].Subtasks {
				var entries []string
				for _, e := range r.List("splits") {
					entries = append(entries, string(e))
				}
				if strings.Join(entries, ",") != strings.Join(tt.want[i], ",") {
					t.Errorf("subtask %d restored splits %q, want %q", i, entries, tt.want[i])
				}
			}
		})
	}
}

func TestAssignErrors(t *testing.T) {
	old, files := keyedOld("op", 2, 16)
	read := func(h storage.StreamHandle) ([]byte, error) { return files[h.Path], nil }
	md := &storage.Metadata{Operators: []storage.OperatorState{old}}
	if _, err := assign(md, []restore.Target{{UID: "op", Parallelism: 2, MaxParallelism: 32}}, read, restore.Options{}); !errors.Is(err, restore.ErrMaxParallelism) {
		t.Errorf("changed max parallelism: err = %v", err)
	}
	_, err := assign(md, []restore.Target{{UID: "other", Parallelism: 2, MaxParallelism: 16}}, read, restore.Options{})
	if !errors.Is(err, restore.ErrUnclaimedState) || !strings.Contains(err.Error(), `"op"`) {
		t.Errorf("unclaimed state: err = %v", err)
	}
	if _, err := assign(md, []restore.Target{{UID: "other", Parallelism: 2, MaxParallelism: 16}}, read, restore.Options{AllowNonRestored: true}); err != nil {
		t.Errorf("allowed non-restored state: %v", err)
	}
	bad := old
	bad.Subtasks = []storage.SubtaskState{old.Subtasks[0]}
	bad.Subtasks[0].Keyed = []storage.KeyedStateHandle{{KeyGroupStart: 0, KeyGroupEnd: 7, Offsets: []int64{0, 999}, Stream: storage.StreamHandle{Path: "s0"}}}
	if _, err := assign(&storage.Metadata{Operators: []storage.OperatorState{bad}}, []restore.Target{{UID: "op", Parallelism: 1, MaxParallelism: 16}}, read, restore.Options{}); !errors.Is(err, restore.ErrCorrupt) {
		t.Errorf("bad offsets: err = %v", err)
	}
	ch := storage.OperatorState{UID: "op", Parallelism: 2, Subtasks: []storage.SubtaskState{{Index: 0, ChannelState: []storage.StreamHandle{{Inline: []byte{1, 'x'}}}}}}
	if _, err := assign(&storage.Metadata{Operators: []storage.OperatorState{ch}}, []restore.Target{{UID: "op", Parallelism: 3}}, read, restore.Options{}); !errors.Is(err, restore.ErrChannelState) {
		t.Errorf("unaligned state at another parallelism: err = %v", err)
	}
	// In-flight records of a keyed exchange carry key groups of the max
	// parallelism they were sent at, also to an operator without keyed
	// state.
	ch.MaxParallelism = 128
	md = &storage.Metadata{Operators: []storage.OperatorState{ch, {UID: "next", Parallelism: 2, MaxParallelism: 128}}}
	if _, err := assign(md, []restore.Target{{UID: "op", Parallelism: 2, MaxParallelism: 128}, {UID: "next", Parallelism: 2, MaxParallelism: 256}}, read, restore.Options{}); !errors.Is(err, restore.ErrMaxParallelism) {
		t.Errorf("unaligned state at another max parallelism: err = %v", err)
	}
	if _, err := assign(md, []restore.Target{{UID: "op", Parallelism: 2, MaxParallelism: 128}, {UID: "next", Parallelism: 2, MaxParallelism: 128}}, read, restore.Options{}); err != nil {
		t.Errorf("unaligned state at the same max parallelism: %v", err)
	}
}

// Restored buffers come from one stream; a producer appends to a restored
// output buffer once its consumer recycled it, which must not overwrite
// the next buffer, still in flight.
func TestDecodedBuffersDoNotOverlap(t *testing.T) {
	bufs, err := restore.DecodeBuffers(restore.EncodeBuffers([][]byte{[]byte("ab"), []byte("cd"), {}, []byte("ef")}))
	if err != nil {
		t.Fatal(err)
	}
	if len(bufs) != 4 {
		t.Fatalf("%d buffers, want 4", len(bufs))
	}
	for i := range bufs {
		_ = append(bufs[i], "XXXXXXXX"...) // a writer filling a reused buffer
	}
	var got []string
	for _, b := range bufs {
		got = append(got, string(b))
	}
	if strings.Join(got, ",") != "ab,cd,,ef" {
		t.Fatalf("buffers after appending to each: %q, want [ab cd  ef]", got)
	}
}

// TestAssignGivesHandles: Assign reads nothing; each new subtask gets its
// key-group range and exactly the old handles that overlap it.
func TestAssignGivesHandles(t *testing.T) {
	const maxP = 16
	for _, tt := range []struct{ from, to int }{{4, 2}, {2, 4}, {3, 3}} {
		old, _ := keyedOld("op", tt.from, maxP)
		md := &storage.Metadata{CheckpointID: 3, Operators: []storage.OperatorState{old}}
		ops, err := restore.Assign(md, []restore.Target{{UID: "op", Parallelism: tt.to, MaxParallelism: maxP}}, restore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range ops["op"].Subtasks {
			want := keygroup.RangeFor(maxP, tt.to, i)
			if r.UID != "op" || r.KeyGroupStart != want.Start || r.KeyGroupEnd != want.End {
				t.Fatalf("%d->%d: subtask %d restores %q [%d, %d], want [%d, %d]", tt.from, tt.to, i, r.UID, r.KeyGroupStart, r.KeyGroupEnd, want.Start, want.End)
			}
			var paths []string
			for _, h := range r.Keyed {
				paths = append(paths, h.Stream.Path)
			}
			var wantPaths []string
			for j := 0; j < tt.from; j++ {
				if o := keygroup.RangeFor(maxP, tt.from, j); o.Start <= want.End && want.Start <= o.End {
					wantPaths = append(wantPaths, fmt.Sprintf("s%d", j))
				}
			}
			if strings.Join(paths, ",") != strings.Join(wantPaths, ",") {
				t.Errorf("%d->%d: subtask %d gets streams %v, want %v", tt.from, tt.to, i, paths, wantPaths)
			}
		}
	}
}

// Load decodes each channel's in-flight buffers from its stream and
// refuses a stream whose framing is broken.
func TestLoadChannelState(t *testing.T) {
	bufs := [][]byte{[]byte("a"), []byte("bc")}
	for _, tt := range []struct {
		name    string
		stream  []byte
		wantErr error
	}{
		{"framed", restore.EncodeBuffers(bufs), nil},
		{"truncated", restore.EncodeBuffers(bufs)[:4], restore.ErrCorrupt},
	} {
		r := &storage.TaskRestore{ChannelState: []storage.StreamHandle{{}, {Inline: tt.stream, Size: int64(len(tt.stream))}}}
		got, err := restore.Load(r, func(h storage.StreamHandle) ([]byte, error) { return h.Inline, nil }, nil)
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("%s: err = %v, want %v", tt.name, err, tt.wantErr)
		}
		if err != nil {
			continue
		}
		if len(got.ChannelState) != 1 || fmt.Sprintf("%q", got.ChannelState[1]) != fmt.Sprintf("%q", bufs) {
			t.Errorf("%s: channel state %v, want channel 1 = %q", tt.name, got.ChannelState, bufs)
		}
	}
}
