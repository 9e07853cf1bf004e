package weir_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

type keyCount struct {
	Key   int
	Count int64
}

// runKeyedSum sums n records over keys 0..keys-1 with a keyed reduce.
func runKeyedSum(t *testing.T, n, keys int, opts ...weir.Option) []keyCount {
	t.Helper()
	env := weir.NewEnv(append([]weir.Option{weir.WithParallelism(2)}, opts...)...)
	in := make([]keyCount, n)
	for i := range in {
		in[i] = keyCount{Key: i * 7 % keys, Count: 1}
	}
	sums := weir.Reduce(weir.KeyBy(weir.FromSlice(env, in), func(c keyCount) int { return c.Key }),
		func(a, b keyCount) (keyCount, error) { return keyCount{a.Key, a.Count + b.Count}, nil })
	got, err := weir.Collect(context.Background(), sums)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// finals keeps the last result per key.
func finals(rs []keyCount) map[int]int64 {
	m := map[int]int64{}
	for _, r := range rs {
		m[r.Key] = max(m[r.Key], r.Count)
	}
	return m
}

func TestBatchReduceEmitsOneFinalRecordPerKey(t *testing.T) {
	const n, keys = 40000, 101
	streaming := runKeyedSum(t, n, keys)
	// A sort memory of 4 KiB holds the partial sums of a few dozen keys:
	// every subtask flushes them to its sort and spills sorted runs, and
	// the Reduce combines a key's partial sums again.
	batch := runKeyedSum(t, n, keys, weir.WithMode(weir.Batch), weir.WithSortMemory(4<<10))
	if len(streaming) != n {
		t.Fatalf("streaming emitted %d records, want every running result: %d", len(streaming), n)
	}
	if len(batch) != keys {
		t.Fatalf("batch emitted %d records, want one per key: %d", len(batch), keys)
	}
	seen := map[int]bool{}
	for _, r := range batch {
		if seen[r.Key] {
			t.Fatalf("batch emitted key %d twice", r.Key)
		}
		seen[r.Key] = true
	}
	if b, s := finals(batch), finals(streaming); !maps.Equal(b, s) {
		t.Fatalf("final results differ: batch %v, streaming %v", b, s)
	}
}

func TestBatchWindowsFireAtEndOfKeyWithoutWatermarks(t *testing.T) {
	// Out of order by up to 200 ms, and the strategy allows none: in
	// streaming, elements are late and windows incomplete; in batch every
	// element counts, as the reference does.
	rs := readings(5, 5000, 200)
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMode(weir.Batch))
	src := weir.AssignTimestampsAndWatermarks(weir.FromSlice(env, rs), weir.WatermarkStrategy[reading]{
		Timestamp: func(r reading) int64 { return r.TS }, PerElement: true,
	})
	keyed := weir.KeyBy(src, func(r reading) string { return r.Sensor })
	sums := weir.WindowAggregateWith(weir.Window(keyed, weir.SlidingEventTimeWindows(3*time.Second, time.Second)),
		weir.AggregateFunction[reading, windowSum, windowSum](sumAgg{}),
		func(k string, w weir.TimeWindow, s windowSum) (windowSum, error) {
			s.Sensor, s.Start, s.End = k, w.Start, w.End
			return s, nil
		})
	got, err := weir.Collect(context.Background(), sums)
	if err != nil {
		t.Fatal(err)
	}
	sortWindows(got)
	if want := referenceWindows(rs, 3000, 1000); !slices.Equal(got, want) {
		t.Fatalf("got %d windows, want %d", len(got), len(want))
	}
}

// timerAtEnd registers an event-time timer far in the future for every
// element and emits, when it fires, how many elements its key saw.
type timerAtEnd struct{}

func (timerAtEnd) ProcessElement(ctx *weir.KeyedContext[string, string], r reading) error {
	ctx.TimerService().RegisterEventTimeTimer(1 << 40)
	return nil
}

func (timerAtEnd) OnTimer(ctx *weir.KeyedContext[string, string], ts int64) error {
	ctx.Collect(fmt.Sprintf("%s fired at %d", ctx.Key(), ts))
	return nil
}

func TestBatchEventTimeTimersFireAtEndOfEachKey(t *testing.T) {
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMode(weir.Batch))
	rs := readings(9, 1000, 10)
	// No watermark strategy: batch mode needs none.
	src := weir.FromSlice(env, rs)
	out := weir.Process(weir.KeyBy(src, func(r reading) string { return r.Sensor }), weir.KeyedProcessFunction[string, reading, string](timerAtEnd{}))
	got, err := weir.Collect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	var want []string
	for s := range 7 {
		want = append(want, fmt.Sprintf("s%d fired at %d", s, int64(1<<40)))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestBatchExchangesAreBlockingAndRemovedAtTheEnd(t *testing.T) {
	const n = 5000
	dir := t.TempDir()
	var produced atomic.Int64
	var seenAtFirst atomic.Int64
	seenAtFirst.Store(-1)
	var filesWhileRunning atomic.Int64
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMode(weir.Batch), weir.WithStateBackend(weir.StateBackend{LocalDir: dir}))
	in := make([]int, n)
	for i := range in {
		in[i] = i
	}
	src := weir.Map(weir.FromSlice(env, in), func(v int) (int, error) { produced.Add(1); return v, nil })
	// The map after keyBy is a separate vertex, across a blocking edge.
	out := weir.Map(weir.KeyBy(src, func(v int) int { return v % 10 }).DataStream, func(v int) (int, error) {
		if seenAtFirst.CompareAndSwap(-1, produced.Load()) {
			files, _ := filepath.Glob(filepath.Join(dir, "weir-partitions", "*.data"))
			filesWhileRunning.Store(int64(len(files)))
		}
		return v, nil
	})
	got, err := weir.Collect(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("collected %d records, want %d", len(got), n)
	}
	if s := seenAtFirst.Load(); s != n {
		t.Fatalf("the consumer's first record came when the producers had emitted %d of %d: the exchange did not block", s, n)
	}
	if filesWhileRunning.Load() == 0 {
		t.Fatal("no blocking partition file was on disk while the consumer ran")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "weir-partitions", "*")); len(left) != 0 {
		t.Fatalf("partition files left after the job: %v", left)
	}
}

func TestBatchJobWiderThanTheClusterRunsStageByStage(t *testing.T) {
	// Parallelism 4 on 2 slots: streaming cannot place it; batch runs two
	// subtasks at a time, each stage after the one it reads from.
	const n, keys = 20000, 101
	got := runKeyedSum(t, n, keys, weir.WithParallelism(4), weir.WithMiniCluster(1, 2), weir.WithMode(weir.Batch))
	if len(got) != keys {
		t.Fatalf("batch emitted %d records, want %d", len(got), keys)
	}
	var total int64
	for _, r := range got {
		total += r.Count
	}
	if total != n {
		t.Fatalf("counts add up to %d, want %d", total, n)
	}
	env := weir.NewEnv(weir.WithParallelism(4), weir.WithMiniCluster(1, 2), weir.WithScheduler("default", ""))
	weir.Print(weir.FromSlice(env, []int{1}))
	if _, err := env.Execute(context.Background(), "streaming"); !contains(err, "not enough slots") {
		t.Fatalf("streaming on 2 slots on the default scheduler: err = %v, want not enough slots (else the batch test shows nothing)", err)
	}
}

func TestBatchFailureRerunsOnlyTheFailedRegion(t *testing.T) {
	const n, keys = 10000, 101
	var produced, failures atomic.Int64
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMode(weir.Batch),
		weir.WithRestartStrategy(weir.FixedDelayRestart(3, time.Millisecond)))
	in := make([]keyCount, n)
	for i := range in {
		in[i] = keyCount{Key: i % keys, Count: 1}
	}
	src := weir.Map(weir.FromSlice(env, in), func(c keyCount) (keyCount, error) { produced.Add(1); return c, nil })
	sums := weir.Reduce(weir.KeyBy(src, func(c keyCount) int { return c.Key }),
		func(a, b keyCount) (keyCount, error) { return keyCount{a.Key, a.Count + b.Count}, nil })
	// The downstream region fails once, after the sources finished.
	checked := weir.Map(sums, func(c keyCount) (keyCount, error) {
		if c.Key == 7 && failures.CompareAndSwap(0, 1) {
			return c, errors.New("injected failure")
		}
		return c, nil
	})
	got, err := weir.Collect(context.Background(), checked)
	if err != nil {
		t.Fatal(err)
	}
	if failures.Load() != 1 {
		t.Fatal("the injected failure did not happen")
	}
	if p := produced.Load(); p != n {
		t.Fatalf("the sources emitted %d records, want %d: they ran again", p, n)
	}
	if len(got) != keys {
		t.Fatalf("collected %d results, want %d", len(got), keys)
	}
	for _, r := range got {
		if r.Count != n/keys && r.Count != n/keys+1 {
			t.Fatalf("key %d counted %d", r.Key, r.Count)
		}
	}
}

func TestBatchCorruptPartitionRerunsItsProducers(t *testing.T) {
	const n, keys = 10000, 101
	dir := t.TempDir()
	var produced, corrupted atomic.Int64
	var logs syncBuffer
	// One slot: the sources run one after the other, so the second finds
	// the first one's partition complete on disk and damages it.
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMiniCluster(1, 1), weir.WithMode(weir.Batch),
		weir.WithStateBackend(weir.StateBackend{LocalDir: dir}),
		weir.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		weir.WithRestartStrategy(weir.FixedDelayRestart(3, time.Millisecond)))
	in := make([]keyCount, n)
	for i := range in {
		in[i] = keyCount{Key: i % keys, Count: 1}
	}
	src := weir.Map(weir.FromSlice(env, in), func(c keyCount) (keyCount, error) {
		produced.Add(1)
		// The index is written when the partition is complete.
		index, _ := filepath.Glob(filepath.Join(dir, "weir-partitions", "*-s0-o0.index"))
		if len(index) == 1 && corrupted.CompareAndSwap(0, 1) {
			data := strings.TrimSuffix(index[0], ".index") + ".data"
			b, err := os.ReadFile(data)
			if err != nil {
				return c, err
			}
			b[len(b)/2] ^= 0xff
			if err := os.WriteFile(data, b, 0o644); err != nil {
				return c, err
			}
		}
		return c, nil
	})
	sums := weir.Reduce(weir.KeyBy(src, func(c keyCount) int { return c.Key }),
		func(a, b keyCount) (keyCount, error) { return keyCount{a.Key, a.Count + b.Count}, nil })
	got, err := weir.Collect(context.Background(), sums)
	if err != nil {
		t.Fatal(err)
	}
	if corrupted.Load() != 1 {
		t.Fatal("no partition was damaged")
	}
	if !strings.Contains(logs.String(), "corrupt") {
		t.Fatalf("the damage was not detected; log:\n%s", logs.String())
	}
	if p := produced.Load(); p != 2*n {
		t.Fatalf("the sources emitted %d records, want %d: both run again after the loss", p, 2*n)
	}
	if b, want := finals(got), finals(runKeyedSum(t, n, keys)); len(got) != keys || !maps.Equal(b, want) {
		t.Fatalf("after the failover: %d results, want %d equal to streaming's", len(got), keys)
	}
}

// syncBuffer is a bytes.Buffer safe for the engine's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAutomaticModeIsBatchWhenEverySourceIsBounded(t *testing.T) {
	const n, keys = 4000, 101
	if got := runKeyedSum(t, n, keys, weir.WithMode(weir.Automatic)); len(got) != keys {
		t.Fatalf("automatic mode on bounded input emitted %d records, want batch's %d", len(got), keys)
	}
	// An unbounded source makes it streaming: running results come at
	// once, before the input ends.
	env := weir.NewEnv(weir.WithParallelism(1), weir.WithMode(weir.Automatic))
	src := weir.Generate(env, weir.Generator[keyCount]{Fn: func(i int64) (keyCount, error) { return keyCount{int(i % 3), 1}, nil }})
	sums := weir.Reduce(weir.KeyBy(src, func(c keyCount) int { return c.Key }),
		func(a, b keyCount) (keyCount, error) { return keyCount{a.Key, a.Count + b.Count}, nil })
	got, err := weir.CollectN(context.Background(), sums, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 {
		t.Fatalf("automatic mode on an unbounded source collected %d running results, want 10", len(got))
	}
}
