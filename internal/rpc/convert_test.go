package rpc_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/scheduler"
)

// through returns m as a receiver decodes it from its bytes.
func through[M proto.Message](t *testing.T, m M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := m.ProtoReflect().New().Interface().(M)
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// State handles come back as they were after crossing as bytes.
func TestStateHandlesRoundTrip(t *testing.T) {
	cases := map[string]storage.TaskState{
		"none":         {},
		"nothing kept": {Location: "/ckpt/job/chk-4", Operators: map[string]storage.SubtaskState{}},
		"full": {Location: "/ckpt/job/chk-4", Operators: map[string]storage.SubtaskState{
			"uid-1": {Index: 3, Finished: true, Keyed: []storage.KeyedStateHandle{{
				KeyGroupStart: 4, KeyGroupEnd: 9, Offsets: []int64{0, 10, 20},
				Stream: storage.StreamHandle{Path: "v1-o0-s3-keyed", Size: 30, CRC: 7},
				Shared: []storage.SharedFile{{Key: "uid/3/000042.sst", Path: "shared/abc", Size: 99, CRC: 5, HasCRC: true}},
			}}, OperatorLists: []storage.OperatorListState{
				{Name: "offsets", Mode: storage.ModeUnion, Entries: [][]byte{[]byte("a"), []byte("b")}},
				{Name: "pending", Mode: storage.ModeSplit, Entries: [][]byte{[]byte("c")}},
				{Name: "rules", Mode: storage.ModeBroadcast, Entries: [][]byte{[]byte("d")}},
			}, ChannelState: []storage.StreamHandle{{}, {Inline: []byte("in-flight"), Size: 9, CRC: 1}}},
			"uid-2": {Index: 3, Keyed: []storage.KeyedStateHandle{{KeyGroupStart: 0, KeyGroupEnd: 0, Stream: storage.StreamHandle{Path: "p", Size: 1}}}},
		}},
	}
	for name, states := range cases {
		t.Run(name, func(t *testing.T) {
			got := rpc.FromStateHandles(through(t, rpc.StateHandles(states)))
			if fmt.Sprint(got) != fmt.Sprint(states) {
				t.Fatalf("got %v\nwant %v", got, states)
			}
		})
	}
}

// A deployment's restore handles come back as they were after crossing as
// bytes; no handles (a fresh start) come back as none.
func TestTaskRestoreRoundTrip(t *testing.T) {
	cases := map[string]*storage.TaskRestore{
		"fresh start": nil,
		"no state":    {CheckpointID: 3, Location: "/sp/savepoint-1"},
		"full": {CheckpointID: 12, Location: "/ckpt/job/chk-12", Reusable: true,
			Operators: []storage.OperatorRestore{
				{UID: "src", KeyGroupStart: 4, KeyGroupEnd: 7, Keyed: []storage.KeyedStateHandle{
					{KeyGroupStart: 0, KeyGroupEnd: 5, Offsets: []int64{0, 3, 6, 9, 12, 15}, Stream: storage.StreamHandle{Path: "v0-o0-s0-keyed", Size: 18, CRC: 2}},
					{KeyGroupStart: 6, KeyGroupEnd: 9, Offsets: []int64{0, 1, 2, 3}, Stream: storage.StreamHandle{Inline: []byte("abcd"), Size: 4, CRC: 8},
						Shared: []storage.SharedFile{{Key: "src/1/000007.sst", Path: "shared/x", Size: 70, CRC: 1, HasCRC: true}}},
				}, Lists: []storage.OperatorListState{{Name: "offsets", Mode: storage.ModeSplit, Entries: [][]byte{[]byte("p0@5")}}}},
				{UID: "map", KeyGroupStart: 4, KeyGroupEnd: 7},
			},
			ChannelState: []storage.StreamHandle{{}, {Path: "v1-s0-ch1", Size: 40, CRC: 3}},
		},
	}
	for name, r := range cases {
		t.Run(name, func(t *testing.T) {
			m := through(t, rpc.TaskRestore(r))
			got := rpc.FromTaskRestore(m)
			if (got == nil) != (r == nil) || (r != nil && fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *r)) {
				t.Fatalf("got %+v\nwant %+v", got, r)
			}
			if r != nil && m.GetCheckpointId() != r.CheckpointID {
				t.Fatalf("message names checkpoint %d, want %d", m.GetCheckpointId(), r.CheckpointID)
			}
		})
	}
}

// A barrier keeps every field.
func TestBarrierRoundTrip(t *testing.T) {
	for _, b := range []network.CheckpointBarrier{
		{ID: 1, Timestamp: 1700000000000},
		{ID: 7, Timestamp: 5, Unaligned: true, AlignedTimeoutMillis: 250},
		{ID: 9, Savepoint: true, Drain: true},
		{ID: 10, Savepoint: true, Terminate: true},
		{ID: 11, Location: "/ckpt/job/chk-11"},
	} {
		if got := rpc.FromBarrier(through(t, rpc.Barrier(b))); got != b {
			t.Errorf("got %+v, want %+v", got, b)
		}
	}
}

// The conversion names every field on both sides: a field added to the
// message or to network.CheckpointBarrier but not to rpc.Barrier and
// rpc.FromBarrier is lost on one of these round trips.
func TestBarrierConversionCoversEveryField(t *testing.T) {
	m := &rpcpb.CheckpointBarrier{}
	fill(m.ProtoReflect(), 1, 0)
	if got := rpc.Barrier(rpc.FromBarrier(m)); !proto.Equal(got, m) {
		t.Errorf("message round trip: got %v, want %v", got, m)
	}
	var b network.CheckpointBarrier
	v := reflect.ValueOf(&b).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.String:
			f.SetString(fmt.Sprintf("s%d", i))
		default:
			t.Fatalf("field %s: kind %s has no test value", v.Type().Field(i).Name, f.Kind())
		}
	}
	if got := rpc.FromBarrier(through(t, rpc.Barrier(b))); got != b {
		t.Errorf("barrier round trip: got %+v, want %+v", got, b)
	}
}

var errUser = errors.New("user sentinel")

// A task's state change crosses with its error: in the same process the
// error itself comes back (errors.Is finds a user's sentinel); from a
// message whose reference does not resolve (another process), the text
// and the kinds that decide about restarts.
func TestTaskStateRoundTrip(t *testing.T) {
	now := time.Unix(1700000000, 123456789)
	for _, st := range []scheduler.ExecutionState{scheduler.ExecRunning, scheduler.ExecFinished, scheduler.ExecCanceled} {
		ts := scheduler.TaskState{ID: graph.SubtaskID{Vertex: 2, Subtask: 5}, Generation: 3, State: st, Now: now}
		job, got, err := rpc.FromTaskState(through(t, rpc.TaskState("job-1", ts, &rpcpb.TaskMetrics{RecordsIn: 4})))
		if err != nil || job != "job-1" || !reflect.DeepEqual(got, ts) {
			t.Fatalf("%s: got %s %+v %v; want %+v", st, job, got, err, ts)
		}
	}
	failure := fmt.Errorf("operator %q: %w", "fragile", fmt.Errorf("%w: %w", errUser, scheduler.ErrUnrecoverable))
	ts := scheduler.TaskState{ID: graph.SubtaskID{Vertex: 1}, State: scheduler.ExecFailed, Now: now, Err: failure}
	_, got, err := rpc.FromTaskState(through(t, rpc.TaskState("job", ts, nil)))
	if err != nil || got.Err != failure {
		t.Fatalf("in process: err %v, %v; want the original error", got.Err, err)
	}

	remote := through(t, rpc.TaskState("job", ts, nil))
	if _, ok := rpc.TakeLocal(remote.GetError().GetEmbeddedRef()); !ok {
		t.Fatal("the error's reference was not kept")
	}
	_, got, _ = rpc.FromTaskState(remote) // its reference is gone: as in another process
	if got.Err == nil || got.Err.Error() != failure.Error() || !errors.Is(got.Err, scheduler.ErrUnrecoverable) ||
		errors.Is(got.Err, errUser) || errors.Is(got.Err, context.Canceled) {
		t.Fatalf("remote error %v: want its text, unrecoverable, nothing else", got.Err)
	}
	for _, sentinel := range []error{fs.ErrNotExist, fs.ErrPermission, context.Canceled, context.DeadlineExceeded, scheduler.ErrConsequence} {
		m := rpc.EncodeError(fmt.Errorf("wrapped: %w", sentinel))
		rpc.TakeLocal(m.GetEmbeddedRef())
		if err := rpc.DecodeError(through(t, m)); !errors.Is(err, sentinel) {
			t.Errorf("remote %v does not match %v", err, sentinel)
		}
	}
	if _, _, err := rpc.FromTaskState(&rpcpb.TaskExecutionState{State: rpcpb.ExecutionState(99)}); err == nil {
		t.Fatal("an unknown execution state decoded without error")
	}
}

// A job's state backend crosses without the submitter's LocalDir (the
// TaskManager's is the one that counts), and its absence stays absent:
// the TaskManager's own backend then applies.
func TestStateBackendRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   *op.StateBackend
		want *op.StateBackend
	}{
		{"absent", nil, nil},
		{"heap", &op.StateBackend{}, &op.StateBackend{}},
		{"pebble", &op.StateBackend{Pebble: true}, &op.StateBackend{Pebble: true}},
		{"incremental, local dir dropped", &op.StateBackend{Pebble: true, Incremental: true, LocalDir: "/submitter/dir"},
			&op.StateBackend{Pebble: true, Incremental: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := rpc.StateBackend(tt.in)
			if m != nil {
				m = through(t, m)
			}
			if got := rpc.FromStateBackend(m); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
