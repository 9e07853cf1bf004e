package weir_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/internal/clock"
)

// ptClick is an element of the processing-time window test: its position
// in the input, its user and its value.
type ptClick struct {
	I    int64
	User string
	V    int64
}

// The processing-time test's input: ptUsers users in turn, in three phases
// of ptPhase elements each, read while the fake clock shows ptPhaseAt
// (milliseconds after ptEpoch). The last ptUsers elements of a phase are
// one per user, so once they are through, every window subtask that has a
// user has processed all of its phase. A last element, ptEnd, is dropped
// before the windows: the source holds it back until the windows fired,
// so that the input ends after them (processing-time timers do not fire
// at the end of input, as in Flink).
const (
	ptUsers = 6
	ptPhase = 60
	ptEpoch = 1_000_000_000 // a multiple of every window size
	ptFail  = ptPhase + ptPhase/2
	ptEnd   = 3 * ptPhase
)

var ptPhaseAt = [3]int64{1_000, 12_000, 17_000}

func ptClicks() []ptClick {
	cs := make([]ptClick, ptEnd+1)
	for i := range cs {
		cs[i] = ptClick{I: int64(i), User: fmt.Sprintf("u%d", i%ptUsers), V: int64(i)}
	}
	return cs
}

// ptTime is when element i is read, in ms after ptEpoch.
func ptTime(i int64) int64 { return ptPhaseAt[i/ptPhase] }

// ptWindows is one processing-time assigner and its windows in plain Go.
type ptWindows struct {
	name     string
	assigner weir.WindowAssigner
	// windows returns the windows [start, end) of each user's times.
	windows func(times []int64) [][2]int64
}

func tumblingRef(size int64) func([]int64) [][2]int64 {
	return slidingRef(size, size)
}

func slidingRef(size, slide int64) func([]int64) [][2]int64 {
	return func(times []int64) [][2]int64 {
		var ws [][2]int64
		for _, t := range times {
			for s := t - t%slide; s > t-size; s -= slide {
				ws = append(ws, [2]int64{s, s + size})
			}
		}
		return ws
	}
}

// sessionRef merges [t, t+gap) of sorted times that overlap or touch, as
// Flink's TimeWindow.intersects.
func sessionRef(gap int64) func([]int64) [][2]int64 {
	return func(times []int64) [][2]int64 {
		var ws [][2]int64
		for _, t := range times {
			if n := len(ws); n > 0 && t <= ws[n-1][1] {
				ws[n-1][1] = max(ws[n-1][1], t+gap)
				continue
			}
			ws = append(ws, [2]int64{t, t + gap})
		}
		return ws
	}
}

// ptLine is the line of one firing: user, window (relative to ptEpoch),
// sum and count of its values.
func ptLine(user string, start, end, sum int64, n int) string {
	return fmt.Sprintf("%s [%d, %d) sum=%d n=%d", user, start, end, sum, n)
}

// reference returns the lines of all windows of cs.
func (pw ptWindows) reference(cs []ptClick) []string {
	byUser := map[string][]ptClick{}
	for _, c := range cs {
		byUser[c.User] = append(byUser[c.User], c)
	}
	var out []string
	for user, ucs := range byUser {
		var times []int64
		for _, c := range ucs {
			times = append(times, ptTime(c.I))
		}
		for _, w := range uniqueWindows(pw.windows(times)) {
			var sum int64
			n := 0
			for _, c := range ucs {
				if t := ptTime(c.I); t >= w[0] && t < w[1] {
					sum += c.V
					n++
				}
			}
			out = append(out, ptLine(user, w[0], w[1], sum, n))
		}
	}
	slices.Sort(out)
	return out
}

func uniqueWindows(ws [][2]int64) [][2]int64 {
	slices.SortFunc(ws, func(a, b [2]int64) int { return cmpInt(a[0], b[0]) })
	return slices.Compact(ws)
}

// firedBy counts the reference windows that end by ms (their max
// timestamp end-1 is before ms).
func (pw ptWindows) firedBy(cs []ptClick, ms int64) int {
	n := 0
	byUser := map[string][]int64{}
	for _, c := range cs {
		byUser[c.User] = append(byUser[c.User], ptTime(c.I))
	}
	for _, times := range byUser {
		for _, w := range uniqueWindows(pw.windows(times)) {
			if w[1] <= ms {
				n++
			}
		}
	}
	return n
}

// ptFormat emits a firing's line.
type ptFormat struct{}

func (ptFormat) Process(ctx *weir.WindowContext[string, string], cs []ptClick) error {
	var sum int64
	for _, c := range cs {
		sum += c.V
	}
	w := ctx.Window()
	ctx.Collect(ptLine(ctx.Key(), w.Start-ptEpoch, w.End-ptEpoch, sum, len(cs)))
	return nil
}

// seenTrigger is the assigner's default trigger that also records each
// element the window operator added, for the test to await.
type seenTrigger struct {
	weir.Trigger[ptClick]
	seen *seenSet
}

func (s seenTrigger) OnElement(ctx *weir.TriggerContext, c ptClick, ts int64, w weir.TimeWindow) (weir.TriggerResult, error) {
	s.seen.add(c.I)
	return s.Trigger.OnElement(ctx, c, ts, w)
}

// seenSet is the set of element positions the windows processed.
type seenSet struct {
	mu      sync.Mutex
	seen    map[int64]bool
	changed chan struct{}
}

func newSeenSet() *seenSet {
	return &seenSet{seen: map[int64]bool{}, changed: make(chan struct{}, 1)}
}

func (s *seenSet) add(i int64) {
	s.mu.Lock()
	s.seen[i] = true
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// await waits until the last round of phase (one element per user) was
// processed.
func (s *seenSet) await(ctx context.Context, phase int) error {
	end := int64(phase+1) * ptPhase
	for {
		s.mu.Lock()
		missing := int64(-1)
		for i := end - ptUsers; i < end; i++ {
			if !s.seen[i] {
				missing = i
				break
			}
		}
		s.mu.Unlock()
		if missing < 0 {
			return nil
		}
		select {
		case <-s.changed:
		case <-ctx.Done():
			return fmt.Errorf("element %d of phase %d not processed: %w", missing, phase, ctx.Err())
		}
	}
}

// commitSignal is the file sink that signals every commit of data.
type commitSignal struct {
	*file.Sink[string]
	committed chan struct{}
}

func (s *commitSignal) CreateCommitter(ctx context.Context, info weir.SinkContext) (weir.Committer[file.Committable], error) {
	c, err := s.Sink.CreateCommitter(ctx, info)
	if err != nil {
		return nil, err
	}
	return committerNotify{Committer: c, committed: s.committed}, nil
}

type committerNotify struct {
	weir.Committer[file.Committable]
	committed chan struct{}
}

func (c committerNotify) Commit(ctx context.Context, cs []file.Committable) error {
	if err := c.Committer.Commit(ctx, cs); err != nil {
		return err
	}
	if len(cs) > 0 {
		select {
		case c.committed <- struct{}{}:
		default:
		}
	}
	return nil
}

// awaitCommitted waits until dir holds at least n committed lines.
func awaitCommitted(ctx context.Context, t *testing.T, dir string, committed <-chan struct{}, n int) {
	t.Helper()
	for {
		got := len(committedLines(t, dir))
		if got >= n {
			return
		}
		select {
		case <-committed:
		case <-ctx.Done():
			t.Fatalf("%d lines committed, want %d: %v", got, n, ctx.Err())
		}
	}
}

// Processing-time windows (tumbling, sliding, sessions) on a fake task
// clock, through checkpoints, a failure, a stop with savepoint and a
// restore at another parallelism. Phase 1 is read at 0:01 and its windows
// fire when the clock moves to 0:12 (awaited until committed, so later
// checkpoints hold no phase-1 work); phase 2 is read at 0:12 and fails
// once halfway, the job restarts from its latest checkpoint (at the same
// clock, so the replayed elements fall in the same windows), then stops
// with a savepoint with phase 2's windows open. The job restored from it
// at parallelism 3 instead of 2 at 0:17 (some restored timers due) reads
// phase 3 into windows partly restored and fires all at 0:30. The
// committed lines are exactly those of the plain-Go reference, each once.
func TestProcessingTimeWindowsFailureAndRescale(t *testing.T) {
	cs := ptClicks()
	cases := []ptWindows{
		{"tumbling", weir.TumblingProcessingTimeWindows(10 * time.Second), tumblingRef(10_000)},
		{"sliding", weir.SlidingProcessingTimeWindows(10*time.Second, 5*time.Second), slidingRef(10_000, 5_000)},
		{"sessions", weir.ProcessingTimeSessionWindows(4 * time.Second), sessionRef(4_000)},
	}
	for _, pw := range cases {
		for _, backend := range []weir.StateBackendKind{weir.HashMap, weir.Pebble} {
			t.Run(pw.name+"/"+backend.String(), func(t *testing.T) {
				testProcessingTimeWindows(t, cs, pw, backend)
			})
		}
	}
}

func testProcessingTimeWindows(t *testing.T, cs []ptClick, pw ptWindows, backend weir.StateBackendKind) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := t.TempDir()
	committed := make(chan struct{}, 1)
	sb := weir.WithStateBackend(weir.StateBackend{Kind: backend, LocalDir: t.TempDir()})
	clk := clock.NewFake(time.UnixMilli(ptEpoch + ptPhaseAt[0]))
	var gate atomic.Int64
	var failed atomic.Bool
	seen := newSeenSet()
	job := func(env *weir.Env, p int) {
		src := weir.Filter(gatedSource(env, cs, &gate), func(c ptClick) (bool, error) {
			if c.I == ptFail && failed.CompareAndSwap(false, true) {
				return false, fmt.Errorf("element %d: %w", c.I, errDesignated)
			}
			return c.I != ptEnd, nil
		}).SetParallelism(1)
		ws := weir.Window(weir.KeyBy(src, func(c ptClick) string { return c.User }), pw.assigner).
			Trigger(seenTrigger{weir.ProcessingTimeTrigger[ptClick](), seen})
		lines := weir.WindowProcess(ws, weir.ProcessWindowFunction[string, ptClick, string](ptFormat{})).UID("windows").SetParallelism(p)
		weir.SinkTo(lines, &commitSignal{Sink: file.NewSink(out, func(s string) string { return s }), committed: committed}).
			UID("sink").SetParallelism(p)
	}
	checkpoints := weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond})

	env := weir.NewEnv(weir.WithParallelism(2), weir.WithTaskClock(clk), sb, checkpoints,
		weir.WithRestartStrategy(weir.FixedDelayRestart(1, 0)))
	job(env, 2)
	c, err := env.ExecuteAsync(ctx, "pt-windows")
	if err != nil {
		t.Fatal(err)
	}
	gate.Store(ptPhase)
	if err := seen.await(ctx, 0); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Duration(ptPhaseAt[1]-ptPhaseAt[0]) * time.Millisecond)
	fired := pw.firedBy(cs[:ptPhase], ptPhaseAt[1]+1)
	awaitCommitted(ctx, t, out, committed, fired)
	gate.Store(2 * ptPhase)
	if err := seen.await(ctx, 1); err != nil {
		t.Fatal(err)
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
		t.Fatalf("%d restarts, want the designated failure's 1", res.Restarts)
	}
	if got := len(committedLines(t, out)); got != fired {
		t.Fatalf("%d lines committed before the savepoint, want phase 1's %d", got, fired)
	}

	clk.Advance(time.Duration(ptPhaseAt[2]-ptPhaseAt[1]) * time.Millisecond)
	env = weir.NewEnv(weir.WithParallelism(3), weir.WithTaskClock(clk), sb, checkpoints, weir.WithRestoreFrom(savepoint, false))
	job(env, 3)
	c, err = env.ExecuteAsync(ctx, "pt-windows-restored")
	if err != nil {
		t.Fatal(err)
	}
	gate.Store(ptEnd)
	if err := seen.await(ctx, 2); err != nil {
		t.Fatal(err)
	}
	clk.Advance(13 * time.Second)
	want := pw.reference(cs[:ptEnd])
	awaitCommitted(ctx, t, out, committed, len(want))
	gate.Store(ptEnd + 1)
	if _, err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	got := committedLines(t, out)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("%d lines committed, want %d:\n%s", len(got), len(want), diffLines(got, want))
	}
}
