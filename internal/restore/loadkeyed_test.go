package restore_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/restore"
)

// writeKeyed writes the keyed streams of an operator at parallelism p
// into a real checkpoint: key group kg's section is kg's number repeated
// 100+kg times (sizes differ per key group). It returns the committed
// metadata's location and every section.
func writeKeyed(t *testing.T, st *storage.Storage, p, maxP int) (*storage.Metadata, string, map[int][]byte) {
	t.Helper()
	ctx := context.Background()
	dir, err := st.CreateCheckpointWriter("0123456789abcdef0123456789abcdef", 3)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[int][]byte{}
	o := storage.OperatorState{UID: "op", Parallelism: p, MaxParallelism: maxP}
	for i := 0; i < p; i++ {
		r := keygroup.RangeFor(maxP, p, i)
		h, err := dir.WriteKeyGroups(ctx, fmt.Sprintf("op-%d", i), r.Start, r.End, func(kg int) ([]byte, error) {
			if kg%5 == 3 {
				return nil, nil // an empty key group takes no bytes
			}
			sections[kg] = bytes.Repeat(fmt.Appendf(nil, "%d,", kg), 100+kg)
			return sections[kg], nil
		})
		if err != nil {
			t.Fatal(err)
		}
		o.Subtasks = append(o.Subtasks, storage.SubtaskState{Index: i, Keyed: []storage.KeyedStateHandle{h}})
	}
	md := &storage.Metadata{JobID: "0123456789abcdef0123456789abcdef", CheckpointID: 3, Kind: storage.KindCheckpoint, Operators: []storage.OperatorState{o}}
	loc, err := dir.Commit(ctx, md)
	if err != nil {
		t.Fatal(err)
	}
	return md, loc, sections
}

// countingSources reads through st, counting the bytes every read
// returned, and never reads a whole stream (Read fails the test).
func countingSources(t *testing.T, st *storage.Storage, loc string, n *atomic.Int64) restore.Sources {
	readAll := func(rc io.ReadCloser, err error) ([]byte, error) {
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		n.Add(int64(len(b)))
		return b, err
	}
	return restore.Sources{
		Read: func(h storage.StreamHandle) ([]byte, error) {
			t.Errorf("stream %s read whole", h.Path)
			return readAll(st.ReadState(context.Background(), loc, h))
		},
		ReadRange: func(h storage.StreamHandle, off, n int64) ([]byte, error) {
			return readAll(st.ReadStateRange(context.Background(), loc, h, off, n))
		},
	}
}

// After a rescale each new subtask reads from checkpoint storage exactly
// the bytes of the key groups it owns, counted at the storage's readers:
// together the new subtasks read every stream once, not every stream once
// each. What they read is each key group's section, exactly.
func TestLoadReadsOnlyOwnedKeyGroups(t *testing.T) {
	const maxP = 64
	for _, tt := range []struct{ from, to int }{{2, 3}, {3, 1}, {2, 4}, {4, 2}, {3, 3}} {
		t.Run(fmt.Sprintf("%d->%d", tt.from, tt.to), func(t *testing.T) {
			st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{InlineThreshold: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			md, loc, sections := writeKeyed(t, st, tt.from, maxP)
			ops, err := restore.Assign(md, []restore.Target{{UID: "op", Parallelism: tt.to, MaxParallelism: maxP}}, restore.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var total int64
			for _, s := range md.Operators[0].Subtasks {
				total += s.Keyed[0].Stream.Size
			}
			var all int64
			for i, sub := range ops["op"].Subtasks {
				var n atomic.Int64
				r := &storage.TaskRestore{CheckpointID: 3, Location: loc, Operators: []storage.OperatorRestore{sub}}
				got, err := restore.LoadFrom(r, countingSources(t, st, loc, &n))
				if err != nil {
					t.Fatal(err)
				}
				rg := keygroup.RangeFor(maxP, tt.to, i)
				var own int64
				nonEmpty := 0
				for kg := rg.Start; kg <= rg.End; kg++ {
					own += int64(len(sections[kg]))
					if len(sections[kg]) > 0 {
						nonEmpty++
					}
					if !bytes.Equal(got.Operators["op"].KeyGroups[kg], sections[kg]) {
						t.Fatalf("subtask %d, key group %d: %d bytes, want %d", i, kg, len(got.Operators["op"].KeyGroups[kg]), len(sections[kg]))
					}
				}
				if len(got.Operators["op"].KeyGroups) != nonEmpty {
					t.Fatalf("subtask %d restored %d key groups, owns %d non-empty ones", i, len(got.Operators["op"].KeyGroups), nonEmpty)
				}
				if n.Load() != own {
					t.Errorf("subtask %d read %d bytes from storage, its key groups take %d", i, n.Load(), own)
				}
				all += n.Load()
			}
			if all != total {
				t.Errorf("the %d new subtasks read %d bytes together, the %d old streams hold %d", tt.to, all, tt.from, total)
			}
		})
	}
}

// The streams of several old subtasks are read at the same time: here
// every read waits until all of them have started, which only ends if they
// run in parallel.
func TestLoadReadsOldSubtasksInParallel(t *testing.T) {
	const maxP, from = 32, 4
	st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	md, loc, _ := writeKeyed(t, st, from, maxP)
	ops, err := restore.Assign(md, []restore.Target{{UID: "op", Parallelism: 1, MaxParallelism: maxP}}, restore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	src := countingSources(t, st, loc, &n)
	var started sync.WaitGroup
	started.Add(from)
	inner := src.ReadRange
	src.ReadRange = func(h storage.StreamHandle, off, n int64) ([]byte, error) {
		started.Done()
		started.Wait()
		return inner(h, off, n)
	}
	src.Parallelism = from
	r := &storage.TaskRestore{CheckpointID: 3, Location: loc, Operators: ops["op"].Subtasks}
	if _, err := restore.LoadFrom(r, src); err != nil {
		t.Fatal(err)
	}
}
