package weir_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// ev is an element of the window semantics tests; a Mark instead moves the
// watermark to TS (and is dropped before the windows), so that a test
// places its watermarks between elements exactly, as Flink's operator
// harness does.
type ev struct {
	Key  string
	TS   int64
	V    int64
	Mark bool
	// Res is what tagTrigger answers for the element.
	Res weir.TriggerResult
}

func el(key string, ts, v int64) ev { return ev{Key: key, TS: ts, V: v} }
func wm(ts int64) ev                { return ev{TS: ts, Mark: true} }

// markLead puts marks so far ahead that the watermark follows only them.
const markLead = int64(time.Hour / time.Millisecond)

// windowInput is evs as a keyed stream at parallelism 1, the watermark at
// each mark's TS.
func windowInput(env *weir.Env, evs []ev) weir.KeyedStream[string, ev] {
	in := make([]ev, len(evs))
	for i, e := range evs {
		if e.Mark {
			e.TS += markLead + 1
		}
		in[i] = e
	}
	src := weir.AssignTimestampsAndWatermarks(weir.FromIter(env, slices.Values(in)), weir.WatermarkStrategy[ev]{
		Timestamp: func(e ev) int64 { return e.TS }, OutOfOrderness: time.Duration(markLead) * time.Millisecond, PerElement: true,
	})
	return weir.KeyBy(weir.Filter(src, func(e ev) (bool, error) { return !e.Mark, nil }), func(e ev) string { return e.Key })
}

// runWindows runs build over evs at parallelism 1 and returns the main
// output in order and the late side output (tag "late") sorted.
func runWindows(t *testing.T, evs []ev, build func(ks weir.KeyedStream[string, ev], late weir.OutputTag[ev]) weir.DataStream[string]) (main, late []string) {
	t.Helper()
	env := weir.NewEnv(weir.WithParallelism(1))
	tag := weir.NewOutputTag[ev]("late")
	out := build(windowInput(env, evs), tag)
	lateOnes := weir.Map(weir.SideOutput(out, tag), func(e ev) (string, error) { return fmt.Sprintf("late %s@%d", e.Key, e.TS), nil })
	got, err := weir.Collect(context.Background(), weir.Union(out, lateOnes))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if strings.HasPrefix(s, "late ") {
			late = append(late, s)
		} else {
			main = append(main, s)
		}
	}
	slices.Sort(late)
	return main, late
}

// sumAggregate sums V; its accumulators merge, as sessions need.
type sumAggregate struct{}

func (sumAggregate) CreateAccumulator() int64               { return 0 }
func (sumAggregate) Add(e ev, acc int64) (int64, error)     { return acc + e.V, nil }
func (sumAggregate) GetResult(acc int64) (int64, error)     { return acc, nil }
func (sumAggregate) Merge(a, b int64) (int64, error)        { return a + b, nil }
func sumString(k string, w weir.TimeWindow, s int64) string { return fmt.Sprintf("%s %v %d", k, w, s) }

// listProcess emits each firing's key, window and elements' values.
type listProcess struct{}

func (listProcess) Process(ctx *weir.WindowContext[string, string], es []ev) error {
	var sum int64
	for _, e := range es {
		sum += e.V
	}
	ctx.Collect(fmt.Sprintf("%s %v %d", ctx.Key(), ctx.Window(), sum))
	return nil
}

// Each way to evaluate windows, producing "key window sum".
var windowEvaluations = []struct {
	name string
	eval func(weir.WindowedStream[string, ev]) weir.DataStream[string]
}{
	{"aggregate", func(ws weir.WindowedStream[string, ev]) weir.DataStream[string] {
		return weir.WindowAggregateWith(ws, weir.AggregateFunction[ev, int64, int64](sumAggregate{}),
			func(k string, w weir.TimeWindow, s int64) (string, error) { return sumString(k, w, s), nil })
	}},
	{"reduce", func(ws weir.WindowedStream[string, ev]) weir.DataStream[string] {
		return weir.WindowReduceProcess(ws, func(a, b ev) (ev, error) { a.V += b.V; return a, nil },
			weir.ProcessWindowFunction[string, ev, string](listProcess{}))
	}},
	{"process", func(ws weir.WindowedStream[string, ev]) weir.DataStream[string] {
		return weir.WindowProcess(ws, weir.ProcessWindowFunction[string, ev, string](listProcess{}))
	}},
	{"aggregate and process", func(ws weir.WindowedStream[string, ev]) weir.DataStream[string] {
		return weir.WindowAggregateProcess(ws, weir.AggregateFunction[ev, int64, int64](sumAggregate{}), sumProcess{})
	}},
}

type sumProcess struct{}

func (sumProcess) Process(ctx *weir.WindowContext[string, string], sums []int64) error {
	if len(sums) != 1 {
		return fmt.Errorf("%d results of an incremental aggregate, want 1", len(sums))
	}
	ctx.Collect(sumString(ctx.Key(), ctx.Window(), sums[0]))
	return nil
}

func TestWindowSemantics(t *testing.T) {
	tests := []struct {
		name     string
		assigner weir.WindowAssigner
		lateness time.Duration
		in       []ev
		want     []string // in order, unless unordered
		late     []string
		// unordered: windows of several keys fire at one watermark.
		unordered bool
	}{{
		// Flink's WindowOperatorTest.testSessionWindows: out of order
		// within the watermark, sessions merge; the gap is 3s.
		name:     "sessions merge out of order",
		assigner: weir.EventTimeSessionWindows(3 * time.Second),
		in: []ev{el("key2", 0, 1), el("key2", 1000, 2), el("key2", 2500, 3), el("key1", 10, 1), el("key1", 1000, 2), wm(3000),
			el("key1", 2500, 3), el("key2", 5501, 4), el("key2", 6000, 5), el("key2", 6000, 5), el("key2", 6050, 6), wm(12000)},
		want:      []string{"key1 [10, 5500) 6", "key2 [0, 5500) 6", "key2 [5501, 9050) 20"},
		unordered: true,
	}, {
		// An element between two sessions bridges them into one.
		name:     "a session bridges two",
		assigner: weir.EventTimeSessionWindows(1000 * time.Millisecond),
		in:       []ev{el("a", 0, 1), el("a", 2500, 2), el("a", 900, 4), wm(1500), el("a", 1700, 8), el("a", 5000, 16)},
		// [0,1900) and [2500,3500) are apart until 1700 ([1700,2700))
		// touches both.
		want: []string{"a [0, 3500) 15", "a [5000, 6000) 16"},
	}, {
		// Windows that only touch merge too (Flink's intersects).
		name:     "touching sessions merge",
		assigner: weir.EventTimeSessionWindows(time.Second),
		in:       []ev{el("a", 0, 1), el("a", 1000, 2), el("a", 3000, 4)},
		want:     []string{"a [0, 2000) 3", "a [3000, 4000) 4"},
	}, {
		// A late element within the allowed lateness fires its window
		// again with all its contents; one past it goes to the side
		// output, and so does one whose window was cleaned up.
		name:     "allowed lateness",
		assigner: weir.TumblingEventTimeWindows(time.Second),
		lateness: 500 * time.Millisecond,
		in: []ev{el("a", 100, 1), el("a", 500, 2), wm(1000), el("a", 700, 4), el("a", 1200, 16), wm(1499),
			el("a", 800, 8), el("a", 400, 32)},
		want: []string{"a [0, 1000) 3", "a [0, 1000) 7", "a [1000, 2000) 16"},
		late: []string{"late a@400", "late a@800"},
	}, {
		name:     "no allowed lateness",
		assigner: weir.TumblingEventTimeWindows(time.Second),
		in:       []ev{el("a", 100, 1), wm(999), el("a", 700, 4), el("a", 1000, 2)},
		want:     []string{"a [0, 1000) 1", "a [1000, 2000) 2"},
		late:     []string{"late a@700"},
	}, {
		// A late element merges into a session that fired: the merged
		// session is not late, and fires when the watermark passes it.
		name:     "late element extends a fired session",
		assigner: weir.EventTimeSessionWindows(time.Second),
		lateness: 2 * time.Second,
		in:       []ev{el("a", 0, 1), wm(1500), el("a", 900, 2), wm(1800), wm(1899), el("a", 100, 4), wm(5000), el("a", 200, 8)},
		want:     []string{"a [0, 1000) 1", "a [0, 1900) 3", "a [0, 1900) 7"},
		late:     []string{"late a@200"},
	}, {
		name:     "sliding windows with lateness",
		assigner: weir.SlidingEventTimeWindows(2*time.Second, time.Second),
		lateness: time.Second,
		in:       []ev{el("a", 1500, 1), wm(2500), el("a", 1600, 2)},
		// [0,2000) fired with 1 at 1999, again with 3 for the late 1600
		// (its window [1000,3000) is not late); [1000,3000) fires at end.
		want: []string{"a [0, 2000) 1", "a [0, 2000) 3", "a [1000, 3000) 3"},
	}}
	for _, tt := range tests {
		for _, e := range windowEvaluations {
			t.Run(tt.name+"/"+e.name, func(t *testing.T) {
				got, late := runWindows(t, tt.in, func(ks weir.KeyedStream[string, ev], tag weir.OutputTag[ev]) weir.DataStream[string] {
					return e.eval(weir.Window(ks, tt.assigner).AllowedLateness(tt.lateness).SideOutputLateData(tag))
				})
				if tt.unordered {
					slices.Sort(got)
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("fired %q, want %q", got, tt.want)
				}
				if !slices.Equal(late, tt.late) {
					t.Errorf("late %q, want %q", late, tt.late)
				}
			})
		}
	}
}
