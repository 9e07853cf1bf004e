package weir_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// kv is the element of the random programs: a key and a value.
type kv struct {
	K int
	V int64
	T int64
}

// program is a random map/filter/keyBy/reduce/window program over
// bounded input; it builds the same pipeline on any Env.
type program struct {
	seed  uint64
	input []kv
	pre   []stage
	// terminal: "none", "reduce" or "window".
	terminal string
	reduce   int // 0 sum, 1 max, 2 min
	post     []stage
	par      []int
	desc     []string
}

// stage is a map or a filter over kv; maps after a keyed step keep K.
type stage struct {
	name string
	fn   func(kv) (kv, bool)
}

func randomProgram(seed uint64) *program {
	r := rand.New(rand.NewPCG(seed, 42))
	p := &program{seed: seed}
	n := 200 + r.IntN(2000)
	keys := 1 + r.IntN(40)
	for i := range n {
		p.input = append(p.input, kv{K: r.IntN(keys), V: r.Int64N(1000), T: int64(i) * 10})
	}
	stages := func(keepKey bool) []stage {
		var out []stage
		for range r.IntN(4) {
			a, b, m := r.Int64N(7)+1, r.Int64N(100), r.Int64N(5)+2
			switch kind := r.IntN(3); {
			case kind == 0:
				out = append(out, stage{fmt.Sprintf("mapV(%d*v+%d)", a, b), func(e kv) (kv, bool) { e.V = (a*e.V + b) % 10007; return e, true }})
			case kind == 1 && !keepKey:
				out = append(out, stage{fmt.Sprintf("mapK((k+v)%%%d)", m+3), func(e kv) (kv, bool) { e.K = int((int64(e.K) + e.V) % (m + 3)); return e, true }})
			default:
				out = append(out, stage{fmt.Sprintf("filter(v%%%d!=0)", m), func(e kv) (kv, bool) { return e, e.V%m != 0 }})
			}
		}
		return out
	}
	p.pre = stages(false)
	p.terminal = []string{"none", "reduce", "window"}[r.IntN(3)]
	p.reduce = r.IntN(3)
	if p.terminal != "none" {
		p.post = stages(true)
		// A filter after a keyed step would drop some running results
		// and not others: the final ones are compared, so only maps.
		p.post = slices.DeleteFunc(p.post, func(s stage) bool { return strings.HasPrefix(s.name, "filter") })
	}
	for range 3 {
		p.par = append(p.par, 1+r.IntN(3))
	}
	for _, s := range p.pre {
		p.desc = append(p.desc, s.name)
	}
	p.desc = append(p.desc, fmt.Sprintf("%s/%d", p.terminal, p.reduce))
	for _, s := range p.post {
		p.desc = append(p.desc, s.name)
	}
	return p
}

func (p *program) String() string {
	return fmt.Sprintf("seed %d, %d records, parallelism %v: %s", p.seed, len(p.input), p.par, strings.Join(p.desc, " -> "))
}

// apply adds stages at parallelism par (0: the default).
func apply(s weir.DataStream[kv], stages []stage, par int) weir.DataStream[kv] {
	for _, st := range stages {
		fn := st.fn
		s = weir.FlatMap(s, func(e kv, out weir.Collector[kv]) error {
			if e, ok := fn(e); ok {
				out.Collect(e)
			}
			return nil
		})
		if par > 0 {
			s = s.SetParallelism(par)
		}
	}
	return s
}

func (p *program) reduceFn(a, b kv) (kv, error) {
	switch p.reduce {
	case 0:
		a.V += b.V
	case 1:
		a.V = max(a.V, b.V)
	default:
		a.V = min(a.V, b.V)
	}
	return a, nil
}

// run executes the program in mode and returns its final results: every
// output of a program without keyed step, sorted; else the last output
// per key (and window).
func (p *program) run(t *testing.T, mode weir.RuntimeMode) []string {
	t.Helper()
	env := weir.NewEnv(weir.WithParallelism(p.par[0]), weir.WithMode(mode), weir.WithSortMemory(16<<10))
	src := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, p.input).SetParallelism(1), weir.WatermarkStrategy[kv]{
		Timestamp: func(e kv) int64 { return e.T }, PerElement: true,
	})
	s := apply(src, p.pre, 0)
	keyed := weir.KeyBy(s, func(e kv) int { return e.K })
	switch p.terminal {
	case "reduce":
		s = weir.Reduce(keyed, p.reduceFn).SetParallelism(p.par[1])
	case "window":
		s = weir.WindowReduce(weir.Window(keyed, weir.TumblingEventTimeWindows(time.Second)), p.reduceFn).SetParallelism(p.par[1])
		s = weir.Map(s, func(e kv) (kv, error) { e.T = e.T / 1000; return e, nil })
	}
	// The stages after a keyed step keep its parallelism: forward edges
	// keep each key's results in order, so the last one is the final.
	s = apply(s, p.post, p.par[1])
	got, err := weir.Collect(context.Background(), s)
	if err != nil {
		t.Fatalf("%v, %v: %v", p, mode, err)
	}
	var out []string
	if p.terminal == "reduce" {
		last := map[int]int64{}
		for _, e := range got {
			last[e.K] = e.V
		}
		for _, k := range slices.Sorted(maps.Keys(last)) {
			out = append(out, fmt.Sprintf("%d=%d", k, last[k]))
		}
		return out
	}
	for _, e := range got {
		if p.terminal == "window" {
			out = append(out, fmt.Sprintf("%d@%d=%d", e.K, e.T, e.V))
		} else {
			out = append(out, fmt.Sprintf("%d=%d@%d", e.K, e.V, e.T))
		}
	}
	slices.Sort(out)
	return out
}

// TestBatchAndStreamingAgreeOnRandomPrograms: on bounded input, batch and
// streaming give the same final results. A reduce is compared by the last
// result per key (streaming emits the running ones before it); windows
// see in-order timestamps, so that none is late in streaming either.
func TestBatchAndStreamingAgreeOnRandomPrograms(t *testing.T) {
	cases := 30
	if testing.Short() {
		cases = 8
	}
	for i := range cases {
		p := randomProgram(uint64(i))
		streaming, batch := p.run(t, weir.Streaming), p.run(t, weir.Batch)
		if !slices.Equal(streaming, batch) {
			t.Fatalf("%v:\nstreaming %d results %v\nbatch     %d results %v", p, len(streaming), head(streaming), len(batch), head(batch))
		}
	}
}

func head(s []string) []string { return s[:min(len(s), 8)] }
