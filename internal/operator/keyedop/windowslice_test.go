package keyedop

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
)

const sliceTestMaxP = 32

// sliceStep is one input of a random stream: an element, or a watermark
// (key "").
type sliceStep struct {
	ts int64
	v  kv
}

// randomWindowStream is n elements of a few keys whose timestamps run
// ahead at random, out of order by up to bound, with a watermark of the
// bounded out-of-orderness every few elements and, now and then, an
// element further behind the watermark (late, or within lateness).
func randomWindowStream(r *rand.Rand, n int, bound int64) []sliceStep {
	var steps []sliceStep
	var now, maxTs int64 = 100, 0
	for range n {
		now += r.Int64N(3)
		ts := now - r.Int64N(bound+1)
		if r.IntN(25) == 0 {
			ts = now - bound - 1 - r.Int64N(3*bound)
		}
		maxTs = max(maxTs, ts)
		steps = append(steps, sliceStep{ts, kv{K: fmt.Sprint("k", r.IntN(7)), V: 1 + r.IntN(9)}})
		if r.IntN(6) == 0 {
			steps = append(steps, sliceStep{ts: maxTs - bound - 1})
		}
	}
	return steps
}

// windowRun feeds a stream to window operators of one kind (sliced or per
// window) at parallelism 2, checkpoints them in the middle into real
// checkpoint storage, restores at parallelism 3 and goes on; it returns
// every emitted record, late element and the number of watermarks that
// preceded it, sorted (parallel subtasks and keys firing at the same
// time have no order).
type windowRun struct {
	t      *testing.T
	spec   WindowSpec[string, kv, Window]
	sliced bool
	out    *epochOutput
	late   *epochOutput
	subs   []*windowOperator[string, kv, int, string, Window]
	// fed says how elements reach the subtasks.
	fed feedMode
}

// feedMode is how a windowRun feeds elements.
type feedMode int

const (
	// oneByOne feeds an element at a time.
	oneByOne feedMode = iota
	// inBatches feeds each subtask's elements between two watermarks as
	// one batch (op.BatchInput), as the network's batch reader does.
	inBatches
	// inKeyedBatches is inBatches with the elements' key groups
	// (op.KeyedBatchInput), as the reader of a keyed exchange hands them.
	inKeyedBatches
)

// epochOutput records emissions with the watermark count at the time.
type epochOutput struct {
	epoch *int
	got   []string
}

func (o *epochOutput) Collect(ts int64, v string) error {
	o.got = append(o.got, fmt.Sprintf("%04d %d %s", *o.epoch, ts, v))
	return nil
}
func (o *epochOutput) EmitWatermark(int64) error { return nil }

type lateOutput struct{ *epochOutput }

func (o lateOutput) Collect(ts int64, v kv) error {
	return o.epochOutput.Collect(ts, fmt.Sprint("late ", v.K, v.V))
}

func sumFuncs() WindowFuncs[string, kv, int, string, Window] {
	return WindowFuncs[string, kv, int, string, Window]{
		NewAcc:      func() int { return 0 },
		Add:         func(v kv, acc int) (int, error) { return acc + v.V, nil },
		Merge:       func(a, b int) (int, error) { return a + b, nil },
		MergeSlices: true,
		Result: func(k string, w Window, acc int) (string, error) {
			return fmt.Sprintf("%s [%d, %d) %d", k, w.Start, w.End, acc), nil
		},
	}
}

func fnvHash(k string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(k))
	return h.Sum32()
}

// open opens p subtasks, restored from md when it is not nil, and
// returns the first error of Open.
func (w *windowRun) open(p int, r *storage.Storage, md *storage.Metadata, loc string) error {
	w.t.Helper()
	var assigned map[string]*restore.Operator
	if md != nil {
		var err error
		assigned, err = restore.Assign(md, []restore.Target{{UID: "window", Parallelism: p, MaxParallelism: sliceTestMaxP}}, restore.Options{})
		if err != nil {
			w.t.Fatal(err)
		}
	}
	w.subs = nil
	for i := range p {
		var restored *op.Restored
		if md != nil {
			tr := &storage.TaskRestore{CheckpointID: md.CheckpointID, Location: loc, Operators: []storage.OperatorRestore{assigned["window"].Subtasks[i]}}
			l, err := restore.LoadFrom(tr, readSources(r, loc))
			if err != nil {
				w.t.Fatal(err)
			}
			restored = l.Operators["window"]
		}
		o := newWindowOperator(w.spec, sumFuncs(), op.Output[string](w.out), w.sliced)
		ctx := &op.Context{JobID: "0123456789abcdef0123456789abcdef", UID: "window", SubtaskIndex: i, Parallelism: p,
			MaxParallelism: sliceTestMaxP, KeyGroups: keygroup.RangeFor(sliceTestMaxP, p, i), Restored: restored,
			SideOutputs: map[string]any{"late": op.Output[kv](lateOutput{w.late})}}
		if err := o.Open(ctx); err != nil {
			return err
		}
		w.t.Cleanup(func() { _ = o.Close() })
		w.subs = append(w.subs, o)
	}
	return nil
}

// mustOpen is open that fails the test on an error.
func (w *windowRun) mustOpen(p int, r *storage.Storage, md *storage.Metadata, loc string) {
	w.t.Helper()
	if err := w.open(p, r, md, loc); err != nil {
		w.t.Fatal(err)
	}
}

func (w *windowRun) feed(steps []sliceStep) {
	w.t.Helper()
	p := len(w.subs)
	ts, vs, groups := make([][]int64, p), make([][]kv, p), make([][]uint16, p)
	flush := func() error {
		for i, o := range w.subs {
			if len(vs[i]) > 0 {
				var err error
				if w.fed == inKeyedBatches {
					err = o.CollectKeyedBatch(ts[i], groups[i], vs[i])
				} else {
					err = o.CollectBatch(ts[i], vs[i])
				}
				if err != nil {
					return err
				}
			}
			ts[i], vs[i], groups[i] = ts[i][:0], vs[i][:0], groups[i][:0]
		}
		return nil
	}
	for _, s := range steps {
		var err error
		if s.v.K == "" {
			if err = flush(); err != nil {
				w.t.Fatal(err)
			}
			*w.out.epoch++
			for _, o := range w.subs {
				if err = o.ProcessWatermark(s.ts); err != nil {
					break
				}
			}
		} else {
			kg := keygroup.Of(fnvHash(s.v.K), sliceTestMaxP)
			i := keygroup.OperatorIndex(sliceTestMaxP, p, kg)
			if w.fed != oneByOne {
				ts[i], vs[i], groups[i] = append(ts[i], s.ts), append(vs[i], s.v), append(groups[i], uint16(kg))
			} else {
				err = w.subs[i].ProcessElement(s.ts, s.v)
			}
		}
		if err != nil {
			w.t.Fatal(err)
		}
	}
	if err := flush(); err != nil {
		w.t.Fatal(err)
	}
}

// checkpoint writes the subtasks' keyed state into st as checkpoint id.
func (w *windowRun) checkpoint(st *storage.Storage, id int64) (*storage.Metadata, string) {
	w.t.Helper()
	ctx := context.Background()
	dir, err := st.CreateCheckpointWriter("0123456789abcdef0123456789abcdef", id)
	if err != nil {
		w.t.Fatal(err)
	}
	o := storage.OperatorState{UID: "window", Parallelism: len(w.subs), MaxParallelism: sliceTestMaxP}
	for i, sub := range w.subs {
		snap, err := sub.SnapshotState(id)
		if err != nil {
			w.t.Fatal(err)
		}
		h, err := snap.Keyed.Write(ctx, dir, fmt.Sprint("window-", i))
		snap.Keyed.Release()
		if err != nil {
			w.t.Fatal(err)
		}
		o.Subtasks = append(o.Subtasks, storage.SubtaskState{Index: i, Keyed: []storage.KeyedStateHandle{h}})
	}
	md := &storage.Metadata{JobID: "0123456789abcdef0123456789abcdef", CheckpointID: id, Kind: storage.KindCheckpoint, Operators: []storage.OperatorState{o}}
	loc, err := dir.Commit(ctx, md)
	if err != nil {
		w.t.Fatal(err)
	}
	return md, loc
}

// readSources reads checkpoint handles out of st.
func readSources(st *storage.Storage, loc string) restore.Sources {
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
	}
}

// runWindows runs steps through one kind of window operator, with a
// checkpoint after half of them and a restore at another parallelism,
// and returns what came out, sorted within each watermark.
func runWindows(t *testing.T, spec WindowSpec[string, kv, Window], sliced bool, steps []sliceStep) []string {
	return runWindowsFed(t, spec, sliced, oneByOne, steps)
}

// runWindowsFed is runWindows, with elements fed as fed says.
func runWindowsFed(t *testing.T, spec WindowSpec[string, kv, Window], sliced bool, fed feedMode, steps []sliceStep) []string {
	t.Helper()
	w, st := newWindowRun(t, spec, sliced)
	w.fed = fed
	w.mustOpen(2, st, nil, "")
	half := len(steps) / 2
	w.feed(steps[:half])
	md, loc := w.checkpoint(st, 1)
	w.close()
	w.mustOpen(3, st, md, loc)
	w.feed(steps[half:])
	return w.results()
}

// newWindowRun returns a run of spec with real checkpoint storage.
func newWindowRun(t *testing.T, spec WindowSpec[string, kv, Window], sliced bool) (*windowRun, *storage.Storage) {
	t.Helper()
	st, err := storage.Open(context.Background(), t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	epoch := 0
	return &windowRun{t: t, spec: spec, sliced: sliced, out: &epochOutput{epoch: &epoch}, late: &epochOutput{epoch: &epoch}}, st
}

// close closes the subtasks.
func (w *windowRun) close() {
	for _, o := range w.subs {
		_ = o.Close()
	}
}

// results ends the input and returns everything that came out, sorted.
func (w *windowRun) results() []string {
	w.feed([]sliceStep{{ts: op.MaxWatermark}})
	got := slices.Concat(w.out.got, w.late.got)
	slices.Sort(got)
	return got
}

// diff fails t when got is not want, showing where they part.
func diff(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	t.Fatalf("%s: %d outputs, want %d; first difference at %d:\ngot  %q\nwant %q", what, len(got), len(want), i,
		got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
}

// Sliced windows emit exactly what per-window state emits: the same
// results, at the same timestamps, between the same watermarks, on random
// out-of-order streams with late elements, with and without allowed
// lateness, through a checkpoint and a restore at another parallelism.
func TestSlicedWindowsMatchPerWindow(t *testing.T) {
	tests := []struct {
		name     string
		a        Assigner
		lateness int64
	}{
		{"sliding", Assigner{Size: 10, Slide: 2}, 0},
		{"sliding-offset", Assigner{Size: 12, Slide: 3, Offset: 1}, 0},
		{"sliding-lateness", Assigner{Size: 10, Slide: 5}, 7},
		{"tumbling", Assigner{Size: 5, Slide: 5}, 0},
		{"tumbling-lateness", Assigner{Size: 5, Slide: 5}, 4},
		{"one-slice-windows", Assigner{Size: 4, Slide: 1}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := WindowSpec[string, kv, Window]{Assigner: tt.a, AllowedLateness: tt.lateness, LateTag: "late",
				Key: func(v kv) string { return v.K }, Hash: fnvHash}
			if !sliceable(spec, sumFuncs()) {
				t.Fatal("the spec does not run sliced")
			}
			for seed := range uint64(5) {
				steps := randomWindowStream(rand.New(rand.NewPCG(seed, 14)), 1500, 6)
				want := runWindows(t, spec, false, steps)
				got := runWindows(t, spec, true, steps)
				if len(want) < 100 {
					t.Fatalf("seed %d: only %d outputs; the stream checks little", seed, len(want))
				}
				diff(t, fmt.Sprint("seed ", seed), got, want)
			}
		})
	}
}

// TestWindowBatchesMatchRecords: elements given a batch at a time between
// watermarks (from the network's batch reader) give what they give a
// record at a time, on both paths, across a rescaling restore.
func TestWindowBatchesMatchRecords(t *testing.T) {
	spec := WindowSpec[string, kv, Window]{Assigner: Assigner{Size: 10, Slide: 5}, AllowedLateness: 7, LateTag: "late",
		Key: func(v kv) string { return v.K }, Hash: fnvHash}
	for _, sliced := range []bool{false, true} {
		for seed := range uint64(3) {
			steps := randomWindowStream(rand.New(rand.NewPCG(seed, 15)), 1500, 6)
			want := runWindowsFed(t, spec, sliced, oneByOne, steps)
			if len(want) < 100 {
				t.Fatalf("seed %d: only %d outputs; the stream checks little", seed, len(want))
			}
			for _, fed := range []feedMode{inBatches, inKeyedBatches} {
				got := runWindowsFed(t, spec, sliced, fed, steps)
				diff(t, fmt.Sprint("sliced ", sliced, " seed ", seed, " fed ", fed), got, want)
			}
		}
	}
}

// Only the forms whose accumulators combine run sliced.
func TestSliceable(t *testing.T) {
	fns := sumFuncs()
	noSlices := fns
	noSlices.MergeSlices = false
	process := fns
	process.Process = func(*WindowContext[string, string, Window], int) error { return nil }
	spec := func(a Assigner) WindowSpec[string, kv, Window] { return WindowSpec[string, kv, Window]{Assigner: a} }
	tests := []struct {
		name string
		spec WindowSpec[string, kv, Window]
		fns  WindowFuncs[string, kv, int, string, Window]
		want bool
	}{
		{"sliding aggregate that merges", spec(Assigner{Size: 10, Slide: 2}), fns, true},
		{"tumbling without merge", spec(Assigner{Size: 10, Slide: 10}), noSlices, true},
		{"sliding reduce (merge not declared for slices)", spec(Assigner{Size: 10, Slide: 2}), noSlices, false},
		{"slide does not divide size", spec(Assigner{Size: 10, Slide: 3}), fns, false},
		{"process function", spec(Assigner{Size: 10, Slide: 2}), process, false},
		{"processing time", spec(Assigner{Size: 10, Slide: 2, Processing: true}), fns, false},
		{"sessions", spec(Assigner{Session: true, Gap: 5}), fns, false},
		{"global", spec(Assigner{Global: true}), fns, false},
		{"custom trigger", WindowSpec[string, kv, Window]{Assigner: Assigner{Size: 10, Slide: 2}, Trigger: EventTimeTrigger[kv, Window]{}}, fns, false},
	}
	for _, tt := range tests {
		if got := sliceable(tt.spec, tt.fns); got != tt.want {
			t.Errorf("%s: sliceable %v, want %v", tt.name, got, tt.want)
		}
	}
}
