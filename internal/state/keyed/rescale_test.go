package keyed

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/state"
)

// The path a rescale takes through the real pieces, short of a cluster:
// subtasks snapshot into real checkpoint storage (keyedSnapshot.Write),
// the JobMaster's restore.Assign maps the metadata to the new
// parallelism, each new subtask reads its handles with restore.LoadFrom
// (ranged reads of its key groups, old subtasks in parallel) and opens
// its runtime on them (for Pebble: download, clip, ingest).

const (
	rescaleJob  = "0123456789abcdef0123456789abcdef"
	rescaleUID  = "count"
	rescaleMaxP = 64
)

func hashKey(k string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(k))
	return h.Sum32()
}

// rescaleSubtask opens subtask i of p with backend cfg, restored from r
// (nil: empty).
func rescaleSubtask(t *testing.T, cfg op.StateBackend, p, i int, r *op.Restored) *keyedBase[string, string] {
	t.Helper()
	ctx := &op.Context{JobID: rescaleJob, UID: rescaleUID, SubtaskIndex: i, Parallelism: p, MaxParallelism: rescaleMaxP,
		KeyGroups: keygroup.RangeFor(rescaleMaxP, p, i), StateBackend: cfg, Restored: r}
	b := &keyedBase[string, string]{}
	b.SetHash(hashKey)
	if err := b.OpenState(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.CloseState() })
	return b
}

// put sets the count of k and registers an event-time timer for it.
func put(t *testing.T, subs []*keyedBase[string, string], k string, n int64) {
	t.Helper()
	kg := keygroup.Of(hashKey(k), rescaleMaxP)
	for _, b := range subs {
		if b.ctx.KeyGroups.Contains(kg) {
			b.SetKey(k)
			v, err := state.Value[string, int64](b.backend, "count")
			if err != nil {
				t.Fatal(err)
			}
			v.Update(n)
			b.timers.RegisterEventTimeTimer(k, "ns", n)
			return
		}
	}
	t.Fatalf("no subtask owns key group %d", kg)
}

// checkpointSubtasks snapshots every subtask into checkpoint id of st and
// returns the committed metadata and its location; the subtasks are then
// told that it completed.
func checkpointSubtasks(t *testing.T, st *storage.Storage, subs []*keyedBase[string, string], id int64) (*storage.Metadata, string) {
	t.Helper()
	ctx := context.Background()
	dir, err := st.CreateCheckpointWriter(rescaleJob, id)
	if err != nil {
		t.Fatal(err)
	}
	o := storage.OperatorState{UID: rescaleUID, Parallelism: len(subs), MaxParallelism: rescaleMaxP}
	for i, b := range subs {
		snap, err := b.SnapshotState(id)
		if err != nil {
			t.Fatal(err)
		}
		h, err := snap.Keyed.Write(ctx, dir, fmt.Sprintf("%s-%d", rescaleUID, i))
		snap.Keyed.Release()
		if err != nil {
			t.Fatal(err)
		}
		o.Subtasks = append(o.Subtasks, storage.SubtaskState{Index: i, Keyed: []storage.KeyedStateHandle{h}})
	}
	md := &storage.Metadata{JobID: rescaleJob, CheckpointID: id, Kind: storage.KindCheckpoint, Operators: []storage.OperatorState{o}}
	loc, err := dir.Commit(ctx, md)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range subs {
		if err := b.NotifyCheckpointComplete(id); err != nil {
			t.Fatal(err)
		}
	}
	return md, loc
}

// storageSources reads a subtask's handles out of st as a TaskManager
// does: keyed streams by range, shared files on demand.
func storageSources(st *storage.Storage, loc string) restore.Sources {
	ctx := context.Background()
	all := func(rc io.ReadCloser, err error) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	return restore.Sources{
		Read: func(h storage.StreamHandle) ([]byte, error) { return all(st.ReadState(ctx, loc, h)) },
		ReadRange: func(h storage.StreamHandle, off, n int64) ([]byte, error) {
			return all(st.ReadStateRange(ctx, loc, h, off, n))
		},
		Open: func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error) {
			return st.ReadShared(ctx, loc, f)
		},
	}
}

// restoreSubtasks restores the checkpoint at loc at parallelism p.
func restoreSubtasks(t *testing.T, st *storage.Storage, md *storage.Metadata, loc string, cfg op.StateBackend, p int) []*keyedBase[string, string] {
	t.Helper()
	return restoreCounting(t, st, md, loc, cfg, p, new(atomic.Int64))
}

// restoreCounting restores as restoreSubtasks does and counts in opens
// the backend files read from checkpoint storage.
func restoreCounting(t *testing.T, st *storage.Storage, md *storage.Metadata, loc string, cfg op.StateBackend, p int, opens *atomic.Int64) []*keyedBase[string, string] {
	t.Helper()
	ops, err := restore.Assign(md, []restore.Target{{UID: rescaleUID, Parallelism: p, MaxParallelism: rescaleMaxP}}, restore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var subs []*keyedBase[string, string]
	for i, sub := range ops[rescaleUID].Subtasks {
		r := &storage.TaskRestore{CheckpointID: md.CheckpointID, Location: loc, Reusable: true, Operators: []storage.OperatorRestore{sub}}
		src := storageSources(st, loc)
		open := src.Open
		src.Open = func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error) {
			opens.Add(1)
			return open(ctx, f)
		}
		l, err := restore.LoadFrom(r, src)
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, rescaleSubtask(t, cfg, p, i, l.Operators[rescaleUID]))
	}
	return subs
}

// checkCounts checks that the subtasks hold exactly want: every key's
// count and timer in the subtask owning its key group, and nothing else.
func checkCounts(t *testing.T, subs []*keyedBase[string, string], want map[string]int64) {
	t.Helper()
	got := map[string]int64{}
	timers := map[string]int64{}
	for i, b := range subs {
		if _, err := state.Value[string, int64](b.backend, "count"); err != nil {
			t.Fatal(err)
		}
		rg := b.ctx.KeyGroups
		for kg := 0; kg < rescaleMaxP; kg++ {
			for k := range b.backend.Keys("count", kg) {
				if !rg.Contains(kg) {
					t.Fatalf("subtask %d holds key %s of key group %d outside %v", i, k, kg, rg)
				}
				b.SetKey(k)
				v, _ := state.Value[string, int64](b.backend, "count")
				n, ok := v.Value()
				if _, dup := got[k]; dup || !ok {
					t.Fatalf("key %s: twice or without a value", k)
				}
				got[k] = n
			}
		}
		for tm := range b.timers.EventTimeTimers() {
			if kg := keygroup.Of(hashKey(tm.Key), rescaleMaxP); !rg.Contains(kg) {
				t.Fatalf("subtask %d holds a timer of key %s (key group %d) outside %v", i, tm.Key, kg, rg)
			}
			timers[tm.Key] = tm.Timestamp
		}
	}
	if !maps.Equal(got, want) {
		t.Fatalf("restored %d counts, want %d: equal %v", len(got), len(want), maps.Equal(got, want))
	}
	if !maps.Equal(timers, want) {
		t.Fatalf("restored %d timers, want %d", len(timers), len(want))
	}
}

// Keyed state and timers rescale 2 -> 3 -> 1 through checkpoints, on the
// heap (sections) and in Pebble (its files: clipped and ingested), and
// come out exact; writes between the checkpoints are carried along.
func TestRescaleTwoThreeOne(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  op.StateBackend
	}{
		{"heap", op.StateBackend{}},
		{"pebble", op.StateBackend{Pebble: true}},
		{"pebble-incremental", op.StateBackend{Pebble: true, Incremental: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.LocalDir = t.TempDir()
			st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{InlineThreshold: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			want := map[string]int64{}
			var subs []*keyedBase[string, string]
			for i := range 2 {
				subs = append(subs, rescaleSubtask(t, cfg, 2, i, nil))
			}
			for i := range 300 {
				k := fmt.Sprint("key-", i)
				want[k] = int64(i)
				put(t, subs, k, want[k])
			}
			md, loc := checkpointSubtasks(t, st, subs, 1)
			subs = restoreSubtasks(t, st, md, loc, cfg, 3)
			checkCounts(t, subs, want)
			for i := 0; i < 400; i += 3 { // changes and new keys
				k := fmt.Sprint("key-", i)
				want[k] = int64(1000 + i)
				put(t, subs, k, want[k])
			}
			md, loc = checkpointSubtasks(t, st, subs, 2)
			subs = restoreSubtasks(t, st, md, loc, cfg, 1)
			checkCounts(t, subs, want)
		})
	}
}
