package weir_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// click is an element of the session end-to-end test: user activity.
type click struct {
	I    int64 // position in the input
	User string
	TS   int64
	V    int64
}

const (
	clickUsers   = 13
	clickBlock   = 500 // elements per activity block
	clickSession = time.Second
	clickJitter  = 50 // ms out of order at most
)

// clickAt is the i-th element: in each block of clickBlock elements a
// third of the users is inactive (a different third each block), so each
// user's sessions end and start again; the timestamps advance 5ms per
// element, up to clickJitter out of order.
func clickAt(i int64) click {
	b := i / clickBlock
	var active []int64
	for u := range int64(clickUsers) {
		if (u+b)%3 != 0 {
			active = append(active, u)
		}
	}
	u := active[i%int64(len(active))]
	return click{I: i, User: fmt.Sprintf("u%02d", u), TS: i*5 + ((i*2654435761)>>7)%clickJitter, V: i % 10}
}

// referenceSessions computes the sessions of clicks 0..n-1 in plain Go: per
// user, the elements sorted by time, a session ending where the next
// element is a gap or more later.
func referenceSessions(n int64, gap int64) []string {
	byUser := map[string][]click{}
	for i := range n {
		c := clickAt(i)
		byUser[c.User] = append(byUser[c.User], c)
	}
	var out []string
	for user, cs := range byUser {
		slices.SortFunc(cs, func(a, b click) int { return cmpInt(a.TS, b.TS) })
		start, end, sum, count := cs[0].TS, cs[0].TS+gap, int64(0), 0
		for _, c := range cs {
			if c.TS > end {
				out = append(out, sessionLine(user, weir.TimeWindow{Start: start, End: end}, sum, count))
				start, sum, count = c.TS, 0, 0
			}
			end = max(end, c.TS+gap)
			sum += c.V
			count++
		}
		out = append(out, sessionLine(user, weir.TimeWindow{Start: start, End: end}, sum, count))
	}
	slices.Sort(out)
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sessionLine(user string, w weir.TimeWindow, sum int64, count int) string {
	return fmt.Sprintf("%s %v sum=%d count=%d", user, w, sum, count)
}

// sessionAcc is the sum and count of a session.
type sessionAcc struct{ Sum, Count int64 }

type sessionAgg struct{}

func (sessionAgg) CreateAccumulator() sessionAcc { return sessionAcc{} }
func (sessionAgg) Add(c click, a sessionAcc) (sessionAcc, error) {
	return sessionAcc{a.Sum + c.V, a.Count + 1}, nil
}
func (sessionAgg) GetResult(a sessionAcc) (sessionAcc, error) { return a, nil }
func (sessionAgg) Merge(a, b sessionAcc) (sessionAcc, error) {
	return sessionAcc{a.Sum + b.Sum, a.Count + b.Count}, nil
}

type sessionFormat struct{}

func (sessionFormat) Process(ctx *weir.WindowContext[string, string], rs []sessionAcc) error {
	ctx.Collect(sessionLine(ctx.Key(), ctx.Window(), rs[0].Sum, int(rs[0].Count)))
	return nil
}

// clickRun is what the source and the failing map of one job share with
// the test.
type clickRun struct {
	n int64
	// pauseAt, if > 0, is where the source waits (for a savepoint) once
	// the failure happened; paused is closed when it does.
	pauseAt    int64
	paused     chan struct{}
	pausedOnce sync.Once
	// failAt, if > 0, is where the map fails once, after a checkpoint
	// committed sessions.
	failAt    int64
	failed    atomic.Bool
	committed atomic.Bool
}

// windowJob builds the job: the clicks (one split, so that the
// watermark's bound holds), a map that fails once, windows at parallelism
// p, and the exactly-once file sink.
func windowJob(env *weir.Env, run *clickRun, p int, out string, job windowCase) {
	src := weir.FromSplits(env, weir.SplitSource[click, intsSplit]{
		Name:   "clicks",
		Splits: func(int) ([]intsSplit, error) { return []intsSplit{{}}, nil },
		Read: func(s *intsSplit, budget int, emit func(click) error) (bool, error) {
			for ; budget > 0 && s.Next < run.n; budget-- {
				wait := s.Next == run.failAt/2 && run.failAt > 0 && !run.committed.Load()
				if s.Next == run.pauseAt && run.pauseAt > 0 && run.failed.Load() {
					run.pausedOnce.Do(func() { close(run.paused) })
					wait = true
				}
				if wait {
					// The task's loop polls again after its mail, in
					// which the checkpoint barriers arrive.
					runtime.Gosched()
					return false, nil
				}
				if err := emit(clickAt(s.Next)); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next >= run.n, nil
		},
	}).UID("clicks").SetParallelism(1)
	src = weir.Map(src, func(c click) (click, error) {
		if c.I == run.failAt && run.failAt > 0 && run.failed.CompareAndSwap(false, true) {
			return c, fmt.Errorf("designated failure at %d", run.failAt)
		}
		return c, nil
	}).SetParallelism(1)
	// Chained with the source, so that each user's clicks arrive in
	// input order, as count windows need.
	src = weir.AssignTimestampsAndWatermarks(src, weir.WatermarkStrategy[click]{
		Timestamp: func(c click) int64 { return c.TS }, OutOfOrderness: job.outOfOrder, Interval: time.Millisecond, PerElement: job.perElement,
	}).SetParallelism(1)
	results := job.windows(weir.KeyBy(src, func(c click) string { return c.User })).UID("windows").SetParallelism(p)
	weir.SinkTo(results, &committedSignal{Sink: file.NewSink(out, func(s string) string { return s }), run: run}).UID("sink").SetParallelism(p)
}

// committedSignal is the file sink that tells run when a commit of data
// succeeded.
type committedSignal struct {
	*file.Sink[string]
	run *clickRun
}

func (s *committedSignal) CreateCommitter(ctx context.Context, info weir.SinkContext) (weir.Committer[file.Committable], error) {
	c, err := s.Sink.CreateCommitter(ctx, info)
	if err != nil {
		return nil, err
	}
	return committerSignal{Committer: c, run: s.run}, nil
}

type committerSignal struct {
	weir.Committer[file.Committable]
	run *clickRun
}

func (c committerSignal) Commit(ctx context.Context, cs []file.Committable) error {
	if err := c.Committer.Commit(ctx, cs); err != nil {
		return err
	}
	if len(cs) > 0 {
		c.run.committed.Store(true)
	}
	return nil
}

// Session windows through checkpoints, a failure, a stop with savepoint
// and a restore at another parallelism: a job at parallelism 2 with
// checkpoints every 10ms fails once (after a checkpoint committed
// sessions) and restarts from its latest checkpoint, then stops with a
// savepoint halfway; the job restored from the savepoint at parallelism 3
// reads the rest. The committed sessions are exactly those of the whole
// input, each once: the open sessions' accumulators and timers moved with
// their key groups.
//
// Count windows, whose trigger counts in per-window state and whose
// process function numbers the firings in per-window state, go the same
// way; so do tumbling windows with allowed lateness, whose late firings
// are numbered in per-window state and whose last firings hold all
// clicks.
func TestWindowsFailureAndRescale(t *testing.T) {
	const n = 12000
	jobs := []windowCase{
		{"sessions", clickJitter * time.Millisecond, false, func(ks weir.KeyedStream[string, click]) weir.DataStream[string] {
			ws := weir.Window(ks, weir.EventTimeSessionWindows(clickSession))
			return weir.WindowAggregateProcess(ws, weir.AggregateFunction[click, sessionAcc, sessionAcc](sessionAgg{}), sessionFormat{})
		}, nil, referenceSessions(n, clickSession.Milliseconds())},
		{"count windows", clickJitter * time.Millisecond, false, func(ks weir.KeyedStream[string, click]) weir.DataStream[string] {
			return weir.WindowProcess(weir.CountWindows(ks, clickCount), weir.ProcessWindowFunction[string, click, string](countFirings{}))
		}, nil, referenceCountWindows(n)},
		// The watermark, after every click, trails by 10ms, and the clicks
		// are up to 50ms out of order: many come late, all within the
		// allowed lateness.
		{"allowed lateness", 10 * time.Millisecond, true, func(ks weir.KeyedStream[string, click]) weir.DataStream[string] {
			ws := weir.Window(ks, weir.TumblingEventTimeWindows(time.Second)).AllowedLateness(clickJitter * time.Millisecond)
			return weir.WindowProcess(ws, weir.ProcessWindowFunction[string, click, string](numberedFirings{}))
		}, lastFirings, referenceTumbling(n, 1000)},
	}
	for _, job := range jobs {
		for _, backend := range []weir.StateBackendKind{weir.HashMap, weir.Pebble} {
			t.Run(job.name+"/"+backend.String(), func(t *testing.T) {
				testWindowJob(t, n, backend, job)
			})
		}
	}
}

// windowCase is a windowed job over the clicks and what it must commit.
type windowCase struct {
	name       string
	outOfOrder time.Duration // the watermark's bound
	perElement bool          // a watermark after every click
	windows    func(weir.KeyedStream[string, click]) weir.DataStream[string]
	// final, if set, checks the committed lines and returns the final
	// results to compare with want.
	final func(t *testing.T, lines []string) []string
	want  []string
}

func testWindowJob(t *testing.T, n int64, backend weir.StateBackendKind, job windowCase) {
	t.Helper()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sb := weir.WithStateBackend(weir.StateBackend{Kind: backend, LocalDir: t.TempDir()})

	first := &clickRun{n: n, pauseAt: n / 2, paused: make(chan struct{}), failAt: n / 3}
	env := weir.NewEnv(weir.WithParallelism(2), sb, weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(1, 10*time.Millisecond)))
	windowJob(env, first, 2, out, job)
	c, err := env.ExecuteAsync(ctx, "windows-first")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.paused:
	case <-c.Done():
		_, err := c.Wait()
		t.Fatalf("the job ended before it paused: %v", err)
	}
	savepoint, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("%d restarts, want 1", res.Restarts)
	}
	before := len(committedLines(t, out))

	rest := &clickRun{n: n}
	env = weir.NewEnv(weir.WithParallelism(3), sb, weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
		weir.WithRestoreFrom(savepoint, false))
	windowJob(env, rest, 3, out, job)
	if _, err := env.Execute(ctx, "windows-rest"); err != nil {
		t.Fatal(err)
	}
	got := committedLines(t, out)
	if job.final != nil {
		got = job.final(t, got)
	}
	want := job.want
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%d results committed, want %d:\n%s", len(got), len(want), diffLines(got, want))
	}
	if before == 0 {
		t.Errorf("%d of %d results committed before the savepoint: the restore carried no or all work", before, len(want))
	}
	t.Logf("%d results, %d before the savepoint", len(want), before)
}

const clickCount = 37

// countFirings numbers the firings of each user's count window in
// per-window state.
type countFirings struct{}

func (countFirings) Process(ctx *weir.WindowContext[string, string], cs []click) error {
	st, err := weir.GetWindowState[int](ctx, "firings")
	if err != nil {
		return err
	}
	k, _ := st.Value()
	st.Update(k + 1)
	var sum int64
	for _, c := range cs {
		sum += c.V
	}
	ctx.Collect(fmt.Sprintf("%s firing %d: %d elements, sum %d, first %d", ctx.Key(), k+1, len(cs), sum, cs[0].I))
	return nil
}

// referenceCountWindows computes the count windows of clicks 0..n-1: each user's
// clicks in input order, clickCount at a time; the rest never fires.
func referenceCountWindows(n int64) []string {
	byUser := map[string][]click{}
	firings := map[string]int{}
	var out []string
	for i := range n {
		c := clickAt(i)
		cs := append(byUser[c.User], c)
		byUser[c.User] = cs
		if len(cs) < clickCount {
			continue
		}
		var sum int64
		for _, c := range cs {
			sum += c.V
		}
		firings[c.User]++
		out = append(out, fmt.Sprintf("%s firing %d: %d elements, sum %d, first %d", c.User, firings[c.User], len(cs), sum, cs[0].I))
		byUser[c.User] = nil
	}
	slices.Sort(out)
	return out
}

// numberedFirings numbers the firings of each window in per-window state
// and reports the count and sum of the window's clicks.
type numberedFirings struct{}

func (numberedFirings) Process(ctx *weir.WindowContext[string, string], cs []click) error {
	st, err := weir.GetWindowState[int](ctx, "firings")
	if err != nil {
		return err
	}
	k, _ := st.Value()
	st.Update(k + 1)
	var sum int64
	for _, c := range cs {
		sum += c.V
	}
	ctx.Collect(fmt.Sprintf("%s %v|%d|count %d sum %d", ctx.Key(), ctx.Window(), k+1, len(cs), sum))
	return nil
}

// lastFirings checks that each window's firings are numbered 1, 2, ...
// once each (the per-window state and the output exactly once through
// the failure and the restore) with growing counts (each late firing has
// one more click), and returns each window's last result.
func lastFirings(t *testing.T, lines []string) []string {
	t.Helper()
	type firing struct {
		n      int
		result string
	}
	byWindow := map[string][]firing{}
	for _, l := range lines {
		parts := strings.Split(l, "|")
		if len(parts) != 3 {
			t.Fatalf("bad line %q", l)
		}
		var n int
		fmt.Sscan(parts[1], &n)
		byWindow[parts[0]] = append(byWindow[parts[0]], firing{n, parts[2]})
	}
	var out []string
	late := 0
	for w, fs := range byWindow {
		slices.SortFunc(fs, func(a, b firing) int { return a.n - b.n })
		var prev int
		for i, f := range fs {
			var count int
			fmt.Sscanf(f.result, "count %d", &count)
			if f.n != i+1 || count <= prev {
				t.Fatalf("window %s: firings %v, want numbered from 1 with growing counts", w, fs)
			}
			prev = count
		}
		late += len(fs) - 1
		out = append(out, w+" "+fs[len(fs)-1].result)
	}
	if late == 0 {
		t.Error("no late firing: the test does not test allowed lateness")
	}
	t.Logf("%d late firings", late)
	return out
}

// referenceTumbling computes each user's tumbling windows of the clicks
// 0..n-1: count and sum.
func referenceTumbling(n, size int64) []string {
	type acc struct{ count, sum int64 }
	ws := map[string]acc{}
	for i := range n {
		c := clickAt(i)
		start := c.TS - c.TS%size
		k := fmt.Sprintf("%s %v", c.User, weir.TimeWindow{Start: start, End: start + size})
		a := ws[k]
		ws[k] = acc{a.count + 1, a.sum + c.V}
	}
	var out []string
	for k, a := range ws {
		out = append(out, fmt.Sprintf("%s count %d sum %d", k, a.count, a.sum))
	}
	slices.Sort(out)
	return out
}

// diffLines describes the first differences of two sorted lists.
func diffLines(got, want []string) string {
	var s string
	extra, missing := 0, 0
	for _, g := range got {
		if _, ok := slices.BinarySearch(want, g); !ok {
			if extra++; extra <= 5 {
				s += "extra: " + g + "\n"
			}
		}
	}
	for _, w := range want {
		if _, ok := slices.BinarySearch(got, w); !ok {
			if missing++; missing <= 5 {
				s += "missing: " + w + "\n"
			}
		}
	}
	return fmt.Sprintf("%s%d extra, %d missing", s, extra, missing)
}
