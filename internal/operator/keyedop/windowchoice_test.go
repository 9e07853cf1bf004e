package keyedop

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/op"
)

// slidingSpecs are sliding windows that slice, with and without allowed
// lateness.
var slidingSpecs = []struct {
	name     string
	a        Assigner
	lateness int64
}{
	{"sliding", Assigner{Size: 10, Slide: 2}, 0},
	{"sliding-lateness", Assigner{Size: 10, Slide: 5}, 7},
}

// lastWatermark is the last watermark of steps.
func lastWatermark(steps []sliceStep) int64 {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].v.K == "" {
			return steps[i].ts
		}
	}
	return op.MinWatermark
}

func slidingSpec(a Assigner, lateness int64) WindowSpec[string, kv, Window] {
	return WindowSpec[string, kv, Window]{Assigner: a, AllowedLateness: lateness, LateTag: "late",
		Key: func(v kv) string { return v.K }, Hash: fnvHash}
}

// A checkpoint of sliding windows kept per window (taken before slicing)
// restores into the operator that would slice with every open window: the
// subtasks that hold such windows keep every window for the run, and the
// output is exactly that of an uninterrupted run (the restored run gets
// the watermark of the checkpoint again first, as from a source that
// restores its watermark; a watermark repeated is no change to the
// uninterrupted run) and that of the old program restored alike.
func TestWindowUpgradeToSlicesLosesNothing(t *testing.T) {
	for _, tt := range slidingSpecs {
		t.Run(tt.name, func(t *testing.T) {
			spec := slidingSpec(tt.a, tt.lateness)
			for seed := range uint64(3) {
				steps := randomWindowStream(rand.New(rand.NewPCG(seed, 41)), 1500, 6)
				// The cut of runWindows, at the repeated watermark.
				half := (len(steps) + 1) / 2
				steps = slices.Insert(steps, half, sliceStep{ts: lastWatermark(steps[:half])})

				whole, _ := newWindowRun(t, spec, true)
				whole.mustOpen(2, nil, nil, "")
				whole.feed(steps)
				want := whole.results()
				diff(t, fmt.Sprint("seed ", seed, ", old program restored"), runWindows(t, spec, false, steps), want)

				w, st := newWindowRun(t, spec, false)
				w.mustOpen(2, st, nil, "")
				w.feed(steps[:half])
				md, loc := w.checkpoint(st, 1)
				w.close()
				w.sliced = true
				w.mustOpen(3, st, md, loc)
				perWindow := 0
				for _, o := range w.subs {
					if _, ok := o.path.(*windowOp[string, kv, int, string, Window]); ok {
						perWindow++
					}
				}
				if perWindow == 0 {
					t.Fatalf("seed %d: no subtask restored open windows kept per window; the test checks nothing", seed)
				}
				w.feed(steps[half:])
				diff(t, fmt.Sprint("seed ", seed), w.results(), want)
			}
		})
	}
}

// Without restored per-window windows, a sliceable window slices after a
// restore (the choice is not stuck on the per-window path).
func TestWindowRestoreWithoutOpenWindowsSlices(t *testing.T) {
	spec := slidingSpec(Assigner{Size: 10, Slide: 2}, 0)
	w, st := newWindowRun(t, spec, false)
	w.mustOpen(2, st, nil, "")
	w.feed([]sliceStep{{ts: 3, v: kv{K: "a", V: 1}}, {ts: 100}})
	md, loc := w.checkpoint(st, 1)
	w.close()
	w.sliced = true
	w.mustOpen(2, st, md, loc)
	for i, o := range w.subs {
		if _, ok := o.path.(*slicedWindowOp[string, kv, int, string, Window]); !ok {
			t.Errorf("subtask %d runs %T, want the sliced path", i, o.path)
		}
	}
}

// A checkpoint of sliced sliding windows restored by a program whose
// window does not slice fails to open, naming the operator, instead of
// dropping the open windows.
func TestWindowSlicesRestoredWithoutSlicingFail(t *testing.T) {
	spec := slidingSpec(Assigner{Size: 10, Slide: 2}, 0)
	w, st := newWindowRun(t, spec, true)
	w.mustOpen(2, st, nil, "")
	w.feed(randomWindowStream(rand.New(rand.NewPCG(1, 2)), 200, 6))
	md, loc := w.checkpoint(st, 1)
	w.close()
	w.sliced = false
	err := w.open(2, st, md, loc)
	if err == nil {
		t.Fatal("restoring sliced windows into a window that does not slice succeeded")
	}
	for _, want := range []string{`window operator "window"`, "kept as slices", "does not slice"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
