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

// firingCounter counts, in per-window state, the firings of each window
// and, in keyed state, the firings of all windows of the key (Flink's
// windowState and globalState).
type firingCounter struct {
	total weir.ValueState[int]
}

func (f *firingCounter) Open(rc *weir.KeyedRuntimeContext[string]) error {
	var err error
	f.total, err = weir.GetValueState[int](rc, "total")
	return err
}

func (f *firingCounter) Process(ctx *weir.WindowContext[string, string], es []ev) error {
	n, err := weir.GetWindowState[int](ctx, "firings")
	if err != nil {
		return err
	}
	c, _ := n.Value()
	n.Update(c + 1)
	total, _ := f.total.Value()
	f.total.Update(total + 1)
	vs := make([]int64, len(es))
	for i, e := range es {
		vs[i] = e.V
	}
	ctx.Collect(fmt.Sprintf("%s %v firing %d of the window, %d of the key: %v", ctx.Key(), ctx.Window(), c+1, total+1, vs))
	return nil
}

func TestWindowProcessState(t *testing.T) {
	in := []ev{el("a", 100, 1), el("a", 1100, 2), wm(1000), el("a", 200, 4), wm(2000), el("a", 300, 8), el("a", 1300, 16), wm(5000), el("a", 400, 32)}
	got, late := runWindows(t, in, func(ks weir.KeyedStream[string, ev], tag weir.OutputTag[ev]) weir.DataStream[string] {
		ws := weir.Window(ks, weir.TumblingEventTimeWindows(time.Second)).AllowedLateness(1500 * time.Millisecond).SideOutputLateData(tag)
		return weir.WindowProcess(ws, weir.ProcessWindowFunction[string, ev, string](&firingCounter{}))
	})
	want := []string{
		"a [0, 1000) firing 1 of the window, 1 of the key: [1]",
		"a [0, 1000) firing 2 of the window, 2 of the key: [1 4]",
		"a [1000, 2000) firing 1 of the window, 3 of the key: [2]",
		"a [0, 1000) firing 3 of the window, 4 of the key: [1 4 8]",
		"a [1000, 2000) firing 2 of the window, 5 of the key: [2 16]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("fired\n%q\nwant\n%q", got, want)
	}
	if !slices.Equal(late, []string{"late a@400"}) {
		t.Errorf("late %q", late)
	}
}

// tagTrigger answers each element's Res: a custom trigger on GlobalWindows.
type tagTrigger struct{}

func (tagTrigger) OnElement(_ *weir.TriggerContext, e ev, _ int64, _ weir.TimeWindow) (weir.TriggerResult, error) {
	return e.Res, nil
}
func (tagTrigger) OnEventTime(*weir.TriggerContext, int64, weir.TimeWindow) (weir.TriggerResult, error) {
	return weir.Continue, nil
}
func (tagTrigger) OnProcessingTime(*weir.TriggerContext, int64, weir.TimeWindow) (weir.TriggerResult, error) {
	return weir.Continue, nil
}
func (tagTrigger) CanMerge() bool                                                         { return false }
func (tagTrigger) OnMerge(*weir.TriggerContext, weir.TimeWindow, []weir.TimeWindow) error { return nil }
func (tagTrigger) Clear(*weir.TriggerContext, weir.TimeWindow) error                      { return nil }

func res(key string, v int64, r weir.TriggerResult) ev { return ev{Key: key, V: v, Res: r} }

func TestTriggerResults(t *testing.T) {
	in := []ev{res("a", 1, weir.Continue), res("a", 2, weir.Fire), res("b", 100, weir.Fire), res("a", 4, weir.Continue),
		res("a", 8, weir.FireAndPurge), res("a", 16, weir.Purge), res("a", 32, weir.Fire), res("a", 64, weir.Continue)}
	for _, e := range windowEvaluations {
		t.Run(e.name, func(t *testing.T) {
			got, _ := runWindows(t, in, func(ks weir.KeyedStream[string, ev], _ weir.OutputTag[ev]) weir.DataStream[string] {
				return e.eval(weir.Window(ks, weir.GlobalWindows()).Trigger(tagTrigger{}))
			})
			// FIRE keeps the contents, FIRE_AND_PURGE empties them,
			// PURGE empties them silently, CONTINUE waits; the global
			// window never fires by itself, not even at the end.
			g := weir.GlobalWindow.String()
			want := []string{"a " + g + " 3", "b " + g + " 100", "a " + g + " 15", "a " + g + " 32"}
			if !slices.Equal(got, want) {
				t.Errorf("fired %q, want %q", got, want)
			}
		})
	}
}

func TestCountWindows(t *testing.T) {
	var in []ev
	for i := range int64(8) {
		in = append(in, el("a", i, i+1), el("b", i, 100*(i+1)))
	}
	got, _ := runWindows(t, in, func(ks weir.KeyedStream[string, ev], _ weir.OutputTag[ev]) weir.DataStream[string] {
		return weir.WindowReduceProcess(weir.CountWindows(ks, 3), func(a, b ev) (ev, error) { a.V += b.V; return a, nil },
			weir.ProcessWindowFunction[string, ev, string](listProcess{}))
	})
	slices.Sort(got)
	// Every 3 elements of a key; the last 2 of each never fill a window.
	g := weir.GlobalWindow.String()
	want := []string{"a " + g + " 15", "a " + g + " 6", "b " + g + " 1500", "b " + g + " 600"}
	if !slices.Equal(got, want) {
		t.Errorf("fired %q, want %q", got, want)
	}
}

// A count trigger on session windows adds up the counts of sessions that
// merge (Flink's CountTrigger.onMerge).
func TestCountTriggerMerges(t *testing.T) {
	in := []ev{el("a", 0, 1), el("a", 5000, 2), el("a", 2500, 4), el("a", 9000, 8)}
	got, _ := runWindows(t, in, func(ks weir.KeyedStream[string, ev], _ weir.OutputTag[ev]) weir.DataStream[string] {
		ws := weir.Window(ks, weir.EventTimeSessionWindows(3*time.Second)).Trigger(weir.CountTrigger[ev](3))
		return weir.WindowProcess(ws, weir.ProcessWindowFunction[string, ev, string](listProcess{}))
	})
	// [0,3000) and [5000,8000) held one each; 2500 merges them into
	// [0,8000) with count 3, which fires; 9000 joins it ([0,12000)), count 1.
	want := []string{"a [0, 8000) 7"}
	if !slices.Equal(got, want) {
		t.Errorf("fired %q, want %q", got, want)
	}
}

func TestWindowAll(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(3))
	var in []reading
	for i := range int64(3000) {
		in = append(in, reading{Sensor: fmt.Sprint("s", i%7), TS: i, Value: 1})
	}
	src := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, in), weir.MonotonousTimestamps(func(r reading) int64 { return r.TS }))
	sums := weir.WindowAggregateWith(weir.WindowAll(src, weir.TumblingEventTimeWindows(time.Second)), weir.AggregateFunction[reading, windowSum, windowSum](sumAgg{}),
		func(_ weir.AllKey, w weir.TimeWindow, s windowSum) (string, error) {
			return fmt.Sprintf("%v %d", w, s.Count), nil
		})
	got, err := weir.Collect(context.Background(), sums)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if want := []string{"[0, 1000) 1000", "[1000, 2000) 1000", "[2000, 3000) 1000"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// plainSum sums V; its accumulators do not merge.
type plainSum struct{}

func (plainSum) CreateAccumulator() int64           { return 0 }
func (plainSum) Add(e ev, acc int64) (int64, error) { return acc + e.V, nil }
func (plainSum) GetResult(acc int64) (int64, error) { return acc, nil }

func TestWindowErrors(t *testing.T) {
	process := weir.ProcessWindowFunction[string, ev, string](listProcess{})
	tests := []struct {
		name  string
		build func(ks weir.KeyedStream[string, ev]) weir.DataStream[string]
		want  string
	}{
		{"session aggregate without merge", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowAggregateWith(weir.Window(ks, weir.EventTimeSessionWindows(time.Second)), weir.AggregateFunction[ev, int64, int64](plainSum{}),
				func(k string, w weir.TimeWindow, s int64) (string, error) { return sumString(k, w, s), nil })
		}, "Merge"},
		{"zero gap", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowProcess(weir.Window(ks, weir.EventTimeSessionWindows(0)), process)
		}, "session gap"},
		{"negative lateness", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowProcess(weir.Window(ks, weir.TumblingEventTimeWindows(time.Second)).AllowedLateness(-time.Second), process)
		}, "lateness"},
		{"trigger that cannot merge on sessions", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowProcess(weir.Window(ks, weir.EventTimeSessionWindows(time.Second)).Trigger(tagTrigger{}), process)
		}, "cannot merge"},
		{"per-window state of sessions", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowProcess(weir.Window(ks, weir.EventTimeSessionWindows(time.Second)),
				weir.ProcessWindowFunction[string, ev, string](&firingCounter{}))
		}, "per-window state"},
		{"count window of 0", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowProcess(weir.CountWindows(ks, 0), process)
		}, "count window size"},
		{"window join of sessions", func(ks weir.KeyedStream[string, ev]) weir.DataStream[string] {
			return weir.WindowJoin(ks, ks, weir.EventTimeSessionWindows(time.Second), func(a, b ev) (string, error) { return "", nil })
		}, "tumbling or sliding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv()
			_, err := weir.Collect(context.Background(), tt.build(windowInput(env, []ev{el("a", 1, 1)})))
			if !contains(err, tt.want) {
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}

func TestEvictors(t *testing.T) {
	var in []ev
	for i := range int64(7) {
		in = append(in, el("a", i*100, i+1))
	}
	tests := []struct {
		name   string
		window func(weir.KeyedStream[string, ev]) weir.WindowedStream[string, ev]
		want   []string
	}{
		// Flink's countWindow(3, 2): the last 3 elements every 2.
		{"sliding count windows", func(ks weir.KeyedStream[string, ev]) weir.WindowedStream[string, ev] {
			return weir.SlidingCountWindows(ks, 3, 2)
		}, []string{"3", "9", "15"}},
		// A count evictor after the function: each firing sees what the
		// previous one kept plus the new elements.
		{"count evictor after", func(ks weir.KeyedStream[string, ev]) weir.WindowedStream[string, ev] {
			return weir.Window(ks, weir.GlobalWindows()).Trigger(weir.CountTrigger[ev](2)).Evictor(weir.CountEvictor[ev](1, true))
		}, []string{"3", "9", "15"}},
		// A time evictor keeps the elements less than 250ms older than
		// the newest: of [0, 1000), those at 400..600.
		{"time evictor", func(ks weir.KeyedStream[string, ev]) weir.WindowedStream[string, ev] {
			return weir.Window(ks, weir.TumblingEventTimeWindows(time.Second)).Evictor(weir.TimeEvictor[ev](250*time.Millisecond, false))
		}, []string{"18"}},
	}
	for _, tt := range tests {
		for _, e := range windowEvaluations {
			t.Run(tt.name+"/"+e.name, func(t *testing.T) {
				got, _ := runWindows(t, in, func(ks weir.KeyedStream[string, ev], _ weir.OutputTag[ev]) weir.DataStream[string] {
					return e.eval(tt.window(ks))
				})
				for i, g := range got {
					got[i] = g[strings.LastIndex(g, " ")+1:]
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("fired %q, want %q", got, tt.want)
				}
			})
		}
	}
}
