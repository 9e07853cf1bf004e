package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// sample is a CPU sample of d on the stack frames (innermost first),
// labelled run=label unless label is empty.
func sample(d time.Duration, label string, frames ...string) *profile.Sample {
	sm := &profile.Sample{Value: []int64{1, int64(d)}}
	for _, f := range frames {
		sm.Location = append(sm.Location, &profile.Location{Line: []profile.Line{{Function: &profile.Function{Name: f}}}})
	}
	if label != "" {
		sm.Label = map[string][]string{"run": {label}}
	}
	return sm
}

// cpuProfile is a CPU profile of the samples, their locations and
// functions numbered across the profile so that it can be written.
func cpuProfile(samples ...*profile.Sample) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Sample:     samples,
	}
	for _, sm := range samples {
		for _, loc := range sm.Location {
			fn := loc.Line[0].Function
			loc.ID, fn.ID = uint64(len(p.Location)+1), uint64(len(p.Function)+1)
			p.Location, p.Function = append(p.Location, loc), append(p.Function, fn)
		}
	}
	return p
}

const (
	task   = "github.com/weir-engine/weir/internal/task.(*Task).loop"
	window = "github.com/weir-engine/weir/internal/operator/keyedop.(*slicedWindowOp[...]).ProcessBatch"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []string
		want   string
	}{
		{"generator under the source", []string{"github.com/weir-engine/weir/bench/nexmark.(*plan).bid", "github.com/weir-engine/weir/internal/operator/source.(*splitSourceOp[...]).readBatch", task}, "generator"},
		{"the source's fill of the query package", []string{"github.com/weir-engine/weir/bench/nexmark/queries.(*split).fill", task}, "generator"},
		{"a map lookup counts for its caller", []string{"runtime.mapaccess1_fast64", "github.com/weir-engine/weir/bench/nexmark/queries.(*q5LocalCount).ProcessElement", "github.com/weir-engine/weir/internal/operator/watermark.(*Op[...]).CollectBatch", task}, "the query's own functions and operators"},
		{"state under the window operator", []string{"github.com/weir-engine/weir/internal/state.(*mapCellTable[...]).all", window, task}, "keyed state"},
		{"the window operator itself", []string{window, task}, "window operator: slices, firing"},
		{"timers", []string{"github.com/weir-engine/weir/internal/timer.(*queue[...]).push", window, task}, "timers"},
		{"encoding", []string{"github.com/weir-engine/weir/internal/codec.encodeFlat", "github.com/weir-engine/weir/internal/network.(*RecordWriter[...]).Emit", task}, "record encoding and send"},
		{"decoding", []string{"github.com/weir-engine/weir/internal/codec.decodeFlat", "github.com/weir-engine/weir/internal/network.(*BatchReader[...]).DeliverUntil", task}, "record decoding and receive"},
		{"allocation", []string{"runtime.mallocgc", "runtime.newobject", task}, "allocation and GC assist"},
		{"the task loop", []string{task}, "task loop, mailbox"},
		{"nothing matches", []string{"runtime.futex", "runtime.mcall"}, other},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(sample(time.Millisecond, "", tc.frames...)); got != tc.want {
				t.Fatalf("classify(%v) = %q, want %q", tc.frames, got, tc.want)
			}
		})
	}
}

func TestShareCountsLabelledSamples(t *testing.T) {
	p := cpuProfile(
		sample(30*time.Millisecond, "engine", "github.com/weir-engine/weir/bench/nexmark.(*plan).bid"),
		sample(10*time.Millisecond, "engine", task),
		sample(50*time.Millisecond, "reference", "github.com/weir-engine/weir/bench/nexmark/reference.Q5"),
		sample(20*time.Millisecond, "", "runtime.gcBgMarkWorker"),
	)
	s, err := Share(p, "run", "engine")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]time.Duration{"generator": 30 * time.Millisecond, "task loop, mailbox": 10 * time.Millisecond}
	if s.Total != 40*time.Millisecond || len(s.Group) != len(want) {
		t.Fatalf("shares %+v, want %v in all 40ms", s, want)
	}
	for g, d := range want {
		if s.Group[g] != d {
			t.Fatalf("group %q: %v, want %v", g, s.Group[g], d)
		}
	}
	all, err := Share(p, "", "")
	if err != nil || all.Total != 110*time.Millisecond || all.Group[other] != 20*time.Millisecond {
		t.Fatalf("without a tag: %+v, %v; want all 110ms, the GC worker's 20ms as other", all, err)
	}
	heap := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}}
	if _, err := Share(heap, "", ""); err == nil || !strings.Contains(err.Error(), "not a CPU profile") {
		t.Fatalf("a heap profile: %v, want not a CPU profile", err)
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "q5.prof")
	p := cpuProfile(
		sample(30*time.Millisecond, "engine", "github.com/weir-engine/weir/internal/timer.(*queue[...]).push"),
		sample(10*time.Millisecond, "engine", window),
	)
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(&out, "run=engine", []string{"q5=" + path}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| timers | 75 |", "| window operator: slices, firing | 25 |", "| generator | — |", "Counted samples: q5 0.04 s."} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("table lacks %q:\n%s", want, out.String())
		}
	}
	garbage := filepath.Join(dir, "garbage.prof")
	if err := os.WriteFile(garbage, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tag  string
		args []string
		want string
	}{
		{"run=engine", nil, "no profiles"},
		{"run=engine", []string{path}, "want name=file.prof"},
		{"run", []string{"q5=" + path}, "want key=value"},
		{"run=engine", []string{"q5=" + filepath.Join(dir, "missing.prof")}, "no such file"},
		{"run=engine", []string{"q5=" + garbage}, "parse"},
	} {
		if err := run(&bytes.Buffer{}, tc.tag, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q, %q) = %v, want an error with %q", tc.tag, tc.args, err, tc.want)
		}
	}
}
