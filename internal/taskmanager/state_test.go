package taskmanager_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
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

// A subtask deployed through the gateway writes its own snapshot into the
// directory its trigger names and acknowledges with handles only, as an
// AcknowledgeCheckpoint message; a trigger that names no directory comes
// back as a DeclineCheckpoint. Deployed again with the handles of the
// committed checkpoint in its TaskRestore message, it reads its state back
// itself, through the storage the deployment names. A damaged state file
// fails the restored subtask unrecoverably, naming the file.
func TestSubtaskWritesAndRestoresItsOwnState(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := storage.Open(ctx, root, storage.Options{InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opened := make(chan *op.Restored, 1)
	jg := statefulJob(t, opened)
	rig := newGatewayRig(t, job{graph: jg})
	// As in the embedded cluster: the subtasks write through the job's
	// storage and its options (here: no inline streams).
	rig.tm.UseStorage(st)
	key := func(gen int) *rpcpb.TaskKey { return rpc.TaskKey("job", gen, graph.SubtaskID{}) }
	deploy := func(gen int, r *storage.TaskRestore) {
		d := rig.descriptor(gen, rig.spec)
		d.Checkpointing = &rpcpb.CheckpointingConfig{Enabled: true, Storage: root}
		d.Restore = rpc.TaskRestore(r)
		if err := rig.submit(t, d); err != nil {
			t.Fatal(err)
		}
	}
	trigger := func(gen int, b network.CheckpointBarrier) {
		resp, err := rig.te.TriggerCheckpoint(ctx, &rpcpb.TriggerCheckpointRequest{Task: key(gen), Barrier: rpc.Barrier(b)}).Wait(ctx)
		if err != nil || !resp.GetAccepted() {
			t.Fatalf("trigger of checkpoint %d: %v, accepted %v", b.ID, err, resp.GetAccepted())
		}
	}
	cancel := func(gen int) {
		if _, err := rig.te.CancelTask(ctx, &rpcpb.CancelTaskRequest{Task: key(gen)}).Wait(ctx); err != nil {
			t.Fatal(err)
		}
		rig.updates.expect(t, scheduler.ExecCanceled)
	}

	deploy(0, nil)
	if r := <-opened; r != nil {
		t.Fatalf("a fresh subtask restored %+v", r)
	}
	rig.updates.expect(t, scheduler.ExecRunning)
	b := checkpointAt(t, st, 1)
	trigger(0, b)
	m := <-rig.jm.acks
	if !proto.Equal(m.GetTask(), key(0)) || m.GetCheckpointId() != 1 {
		t.Fatalf("acknowledgement of %v, checkpoint %d; want subtask %v, checkpoint 1", m.GetTask(), m.GetCheckpointId(), key(0))
	}
	ack := rpc.FromStateHandles(m.GetState())
	sub, ok := ack.Operators["src"]
	if ack.Location != b.Location || !ok || len(sub.Keyed) != 1 || len(sub.OperatorLists) != 1 {
		t.Fatalf("acknowledged %+v, want the keyed handle and the list of src at %s", ack, b.Location)
	}
	stream := sub.Keyed[0].Stream
	if stream.Inline != nil || stream.Path == "" {
		t.Fatalf("keyed stream %+v: want a file, its bytes not in the acknowledgement", stream)
	}
	file := filepath.Join(root, "job", "chk-1", stream.Path)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the subtask did not write its state file: %v", err)
	}
	trigger(0, network.CheckpointBarrier{ID: 2})
	dm := <-rig.jm.declines
	if reason := rpc.DecodeError(dm.GetReason()); dm.GetCheckpointId() != 2 || reason == nil || !strings.Contains(reason.Error(), "no snapshot location") {
		t.Fatalf("decline of checkpoint %d: %v; want checkpoint 2 declined for want of a location", dm.GetCheckpointId(), reason)
	}
	cancel(0)

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

	deploy(1, handles)
	got := <-opened
	rig.updates.expect(t, scheduler.ExecRunning)
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
	cancel(1)

	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, make([]byte, fi.Size()), 0o644); err != nil {
		t.Fatal(err)
	}
	deploy(2, handles)
	r := rig.updates.next(t)
	if r.State != scheduler.ExecFailed || !errors.Is(r.Err, scheduler.ErrUnrecoverable) || !errors.Is(r.Err, storage.ErrCorrupt) ||
		!strings.Contains(r.Err.Error(), stream.Path) {
		t.Fatalf("restore from a damaged file: %s %v, want FAILED, unrecoverable, corrupt, naming %s", r.State, r.Err, stream.Path)
	}
	if len(opened) != 0 {
		t.Error("the subtask opened its operator on damaged state")
	}
	if n := rpc.PendingLocal(); n != 0 {
		t.Fatalf("%d embedded references left in the process", n)
	}
}

// A subtask whose operators finished tells its JobMaster so by an
// EndOfData message, before it reports FINISHED.
func TestSubtaskSendsEndOfData(t *testing.T) {
	rig := newGatewayRig(t, sourceOnly(t, sourceSpec{n: 1}))
	d := rig.descriptor(0, rig.spec)
	d.Checkpointing = &rpcpb.CheckpointingConfig{Enabled: true, NoFinalCheckpoint: true, Storage: t.TempDir()}
	if err := rig.submit(t, d); err != nil {
		t.Fatal(err)
	}
	rig.updates.expect(t, scheduler.ExecRunning)
	rig.updates.expect(t, scheduler.ExecFinished)
	// One sender's calls arrive in their order: the end of data is there.
	select {
	case m := <-rig.jm.endOfData:
		if !proto.Equal(m.GetTask(), d.GetTask()) {
			t.Fatalf("end of data of %v, want %v", m.GetTask(), d.GetTask())
		}
	default:
		t.Fatal("FINISHED reported without an end of data before it")
	}
}
