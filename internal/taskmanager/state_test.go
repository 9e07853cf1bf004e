package taskmanager_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// statefulSource emits nothing and never ends; its snapshot holds keyed
// state (section "kg<n>" for every key group it owns) and one list entry,
// and it hands what it restored from to the test when it opens.
type statefulSource struct {
	op.Base
	never    chan struct{}
	restored chan<- *op.Restored
	groups   [2]int
}

func (s *statefulSource) Open(ctx *op.Context) error {
	s.groups = [2]int{ctx.KeyGroups.Start, ctx.KeyGroups.End}
	s.restored <- ctx.Restored
	return nil
}

func (s *statefulSource) Available() <-chan struct{}   { return s.never }
func (s *statefulSource) PollNext() (op.Status, error) { return op.NothingAvailable, nil }

func (s *statefulSource) SnapshotState(id int64) (*op.Snapshot, error) {
	return &op.Snapshot{
		Keyed: sections{start: s.groups[0], end: s.groups[1]},
		Lists: []op.NamedList{{Name: "offsets", Mode: op.SplitList, Entries: [][]byte{fmt.Appendf(nil, "at-%d", id)}}},
	}, nil
}

// sections is a keyed snapshot written as key-group sections.
type sections struct{ start, end int }

func (k sections) Write(ctx context.Context, dir *storage.CheckpointDir, name string) (storage.KeyedStateHandle, error) {
	return dir.WriteKeyGroups(ctx, name, k.start, k.end, func(kg int) ([]byte, error) { return fmt.Appendf(nil, "kg%d", kg), nil })
}

func (sections) Release() {}

func statefulJob(t *testing.T, restored chan<- *op.Restored) *graph.JobGraph {
	t.Helper()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", UID: "src", OutType: typeinfo.New[int](),
		Factory: func(any) (any, error) {
			return &statefulSource{never: make(chan struct{}), restored: restored}, nil
		}}
	sg, err := graph.Translate([]*graph.Transformation{src}, graph.Config{Parallelism: 1, MaxParallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}

// A subtask writes its own snapshot into the directory its trigger names
// and acknowledges with handles only; deployed again with the handles of
// the committed checkpoint, it reads its state back itself. A damaged
// state file fails the restored subtask unrecoverably, naming the file.
func TestSubtaskWritesAndRestoresItsOwnState(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := storage.Open(ctx, root, storage.Options{InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tm, _ := newTM(t, plenty)
	tm.UseStorage(st)
	opened := make(chan *op.Restored, 1)
	jg := statefulJob(t, opened)
	deploy := func(gen int, r *storage.TaskRestore) (taskmanager.Deployment, reports, *acks) {
		d, rep := deployment(job{graph: jg}, gen, 0)
		a := newAcks()
		d.Init = taskmanager.Init{Checkpointing: true, Checkpoints: a, CheckpointStorage: st.Root(), Restore: r}
		if r != nil {
			d.Init.LastCheckpointID = r.CheckpointID
		}
		if err := tm.Submit(d); err != nil {
			t.Fatal(err)
		}
		return d, rep, a
	}

	d, rep, a := deploy(0, nil)
	if r := <-opened; r != nil {
		t.Fatalf("a fresh subtask restored %+v", r)
	}
	rep.expect(t, scheduler.ExecRunning)
	b := checkpointAt(t, st, 1)
	if !tm.TriggerCheckpoint("job", 0, d.ID, b) {
		t.Fatal("trigger refused")
	}
	<-a.acked
	ack := <-a.states
	sub, ok := ack.Operators["src"]
	if !ok || len(sub.Keyed) != 1 || len(sub.OperatorLists) != 1 {
		t.Fatalf("acknowledged %+v, want the keyed handle and the list of src", ack)
	}
	stream := sub.Keyed[0].Stream
	if stream.Inline != nil || stream.Path == "" {
		t.Fatalf("keyed stream %+v: want a file, its bytes not in the acknowledgement", stream)
	}
	file := filepath.Join(root, "job", "chk-1", stream.Path)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the subtask did not write its state file: %v", err)
	}
	tm.Cancel("job", 0, d.ID)
	rep.expect(t, scheduler.ExecCanceled)

	// What the JobMaster does: metadata from the handles, committed.
	v := jg.Vertices[0]
	md := &storage.Metadata{JobID: "job", CheckpointID: 1, Kind: storage.KindCheckpoint, Operators: []storage.OperatorState{{
		UID: "src", Parallelism: 1, MaxParallelism: v.Chain[0].MaxParallelism, Subtasks: []storage.SubtaskState{sub},
	}}}
	dir, err := st.CreateCheckpointWriter("job", 1)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := dir.Commit(ctx, md)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := restore.Assign(md, []restore.Target{{UID: "src", Parallelism: 1, MaxParallelism: v.Chain[0].MaxParallelism}}, restore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	handles := &storage.TaskRestore{CheckpointID: 1, Location: loc, Operators: ops["src"].Subtasks}

	_, rep, _ = deploy(1, handles)
	got := <-opened
	rep.expect(t, scheduler.ExecRunning)
	if got == nil || got.CheckpointID != 1 || len(got.KeyGroups) != v.Chain[0].MaxParallelism {
		t.Fatalf("restored %+v, want every key group of checkpoint 1", got)
	}
	for kg, b := range got.KeyGroups {
		if string(b) != fmt.Sprintf("kg%d", kg) {
			t.Errorf("key group %d restored %q", kg, b)
		}
	}
	if l := got.List("offsets"); len(l) != 1 || string(l[0]) != "at-1" {
		t.Errorf("list restored %q, want [at-1]", l)
	}
	tm.Cancel("job", 1, d.ID)
	rep.expect(t, scheduler.ExecCanceled)

	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, make([]byte, fi.Size()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, rep, _ = deploy(2, handles)
	r := rep.next(t)
	if r.State != scheduler.ExecFailed || !errors.Is(r.Err, scheduler.ErrUnrecoverable) || !errors.Is(r.Err, storage.ErrCorrupt) ||
		!strings.Contains(r.Err.Error(), stream.Path) {
		t.Fatalf("restore from a damaged file: %s %v, want FAILED, unrecoverable, corrupt, naming %s", r.State, r.Err, stream.Path)
	}
	if len(opened) != 0 {
		t.Error("the subtask opened its operator on damaged state")
	}
}
