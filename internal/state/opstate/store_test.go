package opstate_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/state/opstate"
)

// rescale snapshots every store, redistributes the lists with
// internal/restore as a restore at parallelism p does, and returns the new
// subtasks' restored state.
func rescale(t *testing.T, stores []*opstate.Store, p int) []*op.Restored {
	t.Helper()
	old := storage.OperatorState{UID: "op", Name: "op", Parallelism: len(stores), MaxParallelism: 128}
	for i, s := range stores {
		lists, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		sub := storage.SubtaskState{Index: i}
		for _, l := range lists {
			sub.OperatorLists = append(sub.OperatorLists, storage.OperatorListState{Name: l.Name, Mode: restore.StoredListMode(l.Mode), Entries: l.Entries})
		}
		old.Subtasks = append(old.Subtasks, sub)
	}
	md := &storage.Metadata{Operators: []storage.OperatorState{old}}
	assigned, err := restore.Assign(md, []restore.Target{{UID: "op", Name: "op", Parallelism: p, MaxParallelism: 128}}, restore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]*op.Restored, p)
	for i, sub := range assigned["op"].Subtasks {
		loaded, err := restore.Load(&storage.TaskRestore{Operators: []storage.OperatorRestore{sub}}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = loaded.Operators["op"]
	}
	return out
}

type lists struct {
	split, union *opstate.ListState[int]
}

func open(t *testing.T, r *op.Restored) (*opstate.Store, lists) {
	t.Helper()
	s := opstate.NewStore(r)
	split, err := opstate.List[int](s, "split", op.SplitList)
	if err != nil {
		t.Fatal(err)
	}
	union, err := opstate.List[int](s, "union", op.UnionList)
	if err != nil {
		t.Fatal(err)
	}
	return s, lists{split, union}
}

// Split list entries are dealt out round-robin, each to one subtask; union
// list entries go to every subtask, at 2 -> 3 -> 1 as Flink does.
func TestSplitAndUnionRedistribution(t *testing.T) {
	var stores []*opstate.Store
	for i := range 2 {
		s, l := open(t, nil)
		for v := range 5 {
			l.split.Add(10*i + v)
		}
		l.union.Add(100 + i)
		stores = append(stores, s)
	}
	three := rescale(t, stores, 3)
	stores = nil
	var all []int
	for i, r := range three {
		s, l := open(t, r)
		if !s.IsRestored() {
			t.Fatal("a restored store says it is not")
		}
		if got := len(l.split.Get()); got < 3 || got > 4 {
			t.Errorf("subtask %d of 3 got %d split entries, want 3 or 4 of 10", i, got)
		}
		all = append(all, l.split.Get()...)
		if got := l.union.Get(); !slices.Equal(got, []int{100, 101}) {
			t.Errorf("subtask %d of 3 got union %v, want [100 101]", i, got)
		}
		// Each new subtask keeps its own union entry only, as a source
		// keeps the offsets of its own partitions.
		l.union.Update([]int{200 + i})
		stores = append(stores, s)
	}
	slices.Sort(all)
	if want := []int{0, 1, 2, 3, 4, 10, 11, 12, 13, 14}; !slices.Equal(all, want) {
		t.Fatalf("split entries at 3: %v, want each of %v once", all, want)
	}
	one := rescale(t, stores, 1)
	_, l := open(t, one[0])
	got := slices.Sorted(slices.Values(l.split.Get()))
	if !slices.Equal(got, all) {
		t.Errorf("split entries at 1: %v, want %v", got, all)
	}
	if got := l.union.Get(); !slices.Equal(got, []int{200, 201, 202}) {
		t.Errorf("union at 1: %v, want [200 201 202]", got)
	}
}

// Broadcast state is one copy on every subtask, whatever the parallelism;
// a subtask that left it empty (FLIP-147: it finished) does not matter.
func TestBroadcastStateOnEverySubtask(t *testing.T) {
	var stores []*opstate.Store
	for i := range 3 {
		s := opstate.NewStore(nil)
		m, err := opstate.Map[string, int](s, "rules")
		if err != nil {
			t.Fatal(err)
		}
		if i != 1 {
			m.Put("a", 1)
			m.Put("b", 2)
			m.Put("c", 3)
		}
		stores = append(stores, s)
	}
	for _, p := range []int{1, 2, 5} {
		for i, r := range rescale(t, stores, p) {
			m, err := opstate.Map[string, int](opstate.NewStore(r), "rules")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			for k, v := range m.All() {
				got[k] = v
			}
			if len(got) != 3 || got["a"] != 1 || got["b"] != 2 || got["c"] != 3 {
				t.Errorf("p=%d subtask %d: %v, want a=1 b=2 c=3", p, i, got)
			}
		}
	}
}

func TestRegistrationErrors(t *testing.T) {
	s := opstate.NewStore(nil)
	if _, err := opstate.List[int](s, "x", op.SplitList); err != nil {
		t.Fatal(err)
	}
	restored := &op.Restored{Lists: []op.NamedList{{Name: "u", Mode: op.UnionList, Entries: [][]byte{{1}}}, {Name: "bad", Mode: op.SplitList, Entries: [][]byte{{0xff, 0xff}}}}}
	for _, tt := range []struct {
		name string
		reg  func() error
	}{
		{"same name, other mode", func() error { _, err := opstate.List[int](s, "x", op.UnionList); return err }},
		{"same name, other type", func() error { _, err := opstate.List[string](s, "x", op.SplitList); return err }},
		{"no name", func() error { _, err := opstate.List[int](s, "", op.SplitList); return err }},
		{"broadcast mode as a list", func() error { _, err := opstate.List[int](s, "y", op.BroadcastList); return err }},
		{"union restored as split", func() error {
			_, err := opstate.List[int](opstate.NewStore(restored), "u", op.SplitList)
			return err
		}},
		{"corrupt entry", func() error {
			_, err := opstate.List[string](opstate.NewStore(restored), "bad", op.SplitList)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.reg(); !errors.Is(err, opstate.ErrState) {
				t.Fatalf("error %v, want one wrapping ErrState", err)
			}
		})
	}
}

// A restored state that the function does not register again is kept,
// unless it is a union list (every subtask holds all of its entries).
func TestUnregisteredRestoredState(t *testing.T) {
	restored := &op.Restored{Lists: []op.NamedList{
		{Name: "split", Mode: op.SplitList, Entries: [][]byte{{2}}},
		{Name: "union", Mode: op.UnionList, Entries: [][]byte{{4}}},
		{Name: "rules", Mode: op.BroadcastList, Entries: [][]byte{{6}}},
	}}
	lists, err := opstate.NewStore(restored).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range lists {
		names = append(names, l.Name)
	}
	if want := []string{"split", "rules"}; !slices.Equal(names, want) {
		t.Fatalf("snapshot of a store that registered nothing holds %v, want %v", names, want)
	}
}
