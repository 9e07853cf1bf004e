package weir_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// intsSplit is one source's position in 0..n-1.
type intsSplit struct{ Next int64 }

// onceFailingSource is Flink's FileSinkITBase setup: sources subtasks,
// each emitting the ints 0..records-1. Every subtask emits the first 20%,
// then waits until the sink committed something (a checkpoint completed
// with data), so that a failure at 40% restores from a checkpoint with
// progress in it, as Flink's StreamingExecutionTestSource waits for a
// checkpoint before it goes on.
func onceFailingSource(env *weir.Env, sources int, records int64, sink *observedSink) weir.DataStream[int64] {
	return weir.FromSplits(env, weir.SplitSource[int64, intsSplit]{
		Name:   "ints",
		Splits: func(int) ([]intsSplit, error) { return make([]intsSplit, sources), nil },
		Read: func(s *intsSplit, budget int, emit func(int64) error) (bool, error) {
			for ; budget > 0 && s.Next < records; budget-- {
				if s.Next == records/5 && !sink.committed.Load() {
					// The task's loop polls again after its mail, in
					// which the checkpoint barriers arrive.
					runtime.Gosched()
					return false, nil
				}
				if err := emit(s.Next); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next >= records, nil
		},
	})
}

// onceFailingMap fails once, at the first element of 40% or more of the
// records that it sees while the part file of its subtask's sink writer
// (chained after it) is open, so that the failure leaves a partly written
// file behind; at the last record if that never happens.
type onceFailingMap struct {
	records  int64
	sink     *observedSink
	failed   *atomic.Bool
	whenOpen *atomic.Bool
	subtask  int
}

func (m *onceFailingMap) Open(rc *weir.RuntimeContext) error { m.subtask = rc.SubtaskIndex; return nil }

func (m *onceFailingMap) Map(v int64) (int64, error) {
	open := m.sink.open[m.subtask].Load()
	if (v >= m.records*4/10 && open || v == m.records-1) && m.failed.CompareAndSwap(false, true) {
		m.whenOpen.Store(open)
		return 0, fmt.Errorf("designated failure at %d", v)
	}
	return v, nil
}

// Four sources of 10,000 ints each, a map that fails once at 40%, the file
// sink at parallelism 3 and checkpoints every 10 ms: every int is committed
// exactly four times, and no pending file is left when Execute returns.
// Modelled on Flink's FileSinkITBase (NUM_SOURCES 4, NUM_SINKS 3,
// NUM_RECORDS 10000, FAILOVER_RATIO 0.4: sources, a rebalance, the
// once-failing map chained with the sink); without the failure it is the
// plain finish.
func TestFileSinkExactlyOnce(t *testing.T) {
	const sources, sinks, records = 4, 3, 10000
	for _, tt := range []struct {
		name     string
		failover bool
	}{{"finish", false}, {"failure then finish", true}} {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			sink := newObservedSink(out, 0)
			env := weir.NewEnv(weir.WithParallelism(sources),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(1, 10*time.Millisecond)))
			var failed, whenOpen atomic.Bool
			failed.Store(!tt.failover)
			ints := weir.MapWith(onceFailingSource(env, sources, records, sink),
				weir.MapFunction[int64, int64](&onceFailingMap{records: records, sink: sink, failed: &failed, whenOpen: &whenOpen}))
			ints.SetParallelism(sinks)
			weir.SinkTo(ints, sink).UID("sink").SetParallelism(sinks)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := env.Execute(ctx, "file-sink-exactly-once")
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{false: 0, true: 1}[tt.failover]; res.Restarts != want {
				t.Errorf("%d restarts, want %d", res.Restarts, want)
			}
			if tt.failover && !whenOpen.Load() {
				t.Log("the map failed at the last record, with no part file open")
			}
			checkEachTimes(t, committedInts(t, out), records, sources)
			if h := hiddenFiles(t, out); len(h) > 0 {
				t.Errorf("%d pending files left: %q", len(h), h)
			}
			t.Logf("%d checkpoints, %d restarts, %v", res.Checkpoints.Completed, res.Restarts, res.Duration)
		})
	}
}

// A cancelled job (a cancelled context, as Ctrl-C in weir run) removes the
// part file its sink had open: no checkpoint references it.
func TestFileSinkCancelRemovesTheOpenFile(t *testing.T) {
	out := t.TempDir()
	sink := newObservedSink(out, 100)
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	ints := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, RatePerSecond: 20000})
	weir.SinkTo(ints, sink).UID("sink")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	jobCtx, cancelJob := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := env.Execute(jobCtx, "file-sink-cancel"); done <- err }()
	select {
	case <-sink.wrote:
	case err := <-done:
		t.Fatalf("the job ended before its sink wrote: %v", err)
	}
	if h := hiddenFiles(t, out); len(h) == 0 {
		t.Fatal("no part file open while the sink writes")
	}
	cancelJob()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute = %v, want it cancelled", err)
	}
	if h := hiddenFiles(t, out); len(h) > 0 {
		t.Errorf("pending files left after the cancel: %q", h)
	}
}

// A job restored from a savepoint of a job with another output directory
// commits the restored part files in their own directory (it used to sync
// its own, not yet created, and restart forever), discards the pending
// files the old job wrote after the savepoint, leaves other jobs' and
// other sinks' pending files alone, and finishes with each record
// committed once over the two directories.
func TestFileSinkRestoreIntoAnotherDirectory(t *testing.T) {
	const total = 3000
	oldDir, newDir := t.TempDir(), filepath.Join(t.TempDir(), "new")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	identity := func(i int64) (int64, error) { return i, nil }

	sink := newObservedSink(oldDir, 200)
	old := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	weir.SinkTo(weir.Generate(old, weir.Generator[int64]{Fn: identity, RatePerSecond: 5000}), sink).UID("sink")
	c, err := old.ExecuteAsync(ctx, "file-sink-old")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-sink.wrote:
	case <-c.Done():
		_, err := c.Wait()
		t.Fatalf("the job ended before its sink wrote: %v", err)
	}
	savepoint, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	// What a crash of the old job after the savepoint would leave: a file
	// of subtask 0 opened later, one of a restarted attempt. Besides them,
	// another job's and another sink's pending files.
	job := c.JobID()[:8]
	orphans := []string{".part-sink-" + job + "-0-0-999", ".part-sink-" + job + "-1-1-0"}
	kept := []string{".part-other-" + job + "-0-0-0", ".part-sink-0123abcd-0-0-0"}
	for _, name := range append(slices.Clone(orphans), kept...) {
		if err := os.WriteFile(filepath.Join(oldDir, name), []byte("999999\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	restored := weir.NewEnv(weir.WithParallelism(3), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}),
		weir.WithRestoreFrom(savepoint, false), weir.WithRestartStrategy(weir.NoRestart()))
	weir.SinkTo(weir.Generate(restored, weir.Generator[int64]{Fn: identity, Count: total}), file.NewSink(newDir, formatInt)).UID("sink")
	if _, err := restored.Execute(ctx, "file-sink-restored"); err != nil {
		t.Fatalf("restored into %s from a savepoint of a job writing into %s: %v", newDir, oldDir, err)
	}

	counts := committedInts(t, oldDir)
	if len(counts) == 0 {
		t.Fatal("nothing committed in the old directory: the savepoint's files were not committed there")
	}
	for v, n := range committedInts(t, newDir) {
		counts[v] += n
	}
	checkEachTimes(t, counts, total, 1)
	if got := hiddenFiles(t, oldDir); !slices.Equal(got, kept) {
		t.Errorf("pending files in the old directory: %q, want only %q", got, kept)
	}
	if got := hiddenFiles(t, newDir); len(got) > 0 {
		t.Errorf("pending files in the new directory: %q", got)
	}
}

// Stop-with-savepoint without drain, as a user of the file sink sees it:
// when StopWithSavepoint returns, the records before the savepoint are
// committed (each source subtask's a gapless prefix), no record reached a
// sink after the savepoint's barrier, and no hidden file is left; a job
// restored from the savepoint commits the rest, each record once.
func TestFileSinkStopWithSavepoint(t *testing.T) {
	out := t.TempDir()
	sink := newObservedSink(out, 100)
	// Only the savepoint prepares commits: a write after a PrepareCommit is
	// a write after the savepoint's barrier.
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	identity := func(i int64) (int64, error) { return i, nil }
	weir.SinkTo(weir.Generate(env, weir.Generator[int64]{Fn: identity, RatePerSecond: 20000}), sink).UID("sink")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := env.ExecuteAsync(ctx, "stop")
	if err != nil {
		t.Fatal(err)
	}
	<-sink.wrote
	loc, err := c.StopWithSavepoint(ctx, t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	counts := committedInts(t, out)
	hidden := hiddenFiles(t, out)
	if _, err := c.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := sink.afterPrepare.Load(); n > 0 {
		t.Errorf("%d records reached the sink after the savepoint's barrier", n)
	}
	if len(hidden) > 0 {
		t.Errorf("hidden files left when the stop returned: %q", hidden)
	}
	// Source subtask i generates i, i+2, ...: each committed a prefix.
	var next [2]int64
	for next[0] = 0; counts[next[0]] == 1; next[0] += 2 {
	}
	for next[1] = 1; counts[next[1]] == 1; next[1] += 2 {
	}
	if len(counts) == 0 || int64(len(counts)) != next[0]/2+(next[1]-1)/2 {
		t.Fatalf("committed at the stop: %d ints, not two gapless prefixes (up to %d and %d)", len(counts), next[0], next[1])
	}

	total := max(next[0], next[1]) + 1000
	env = weir.NewEnv(weir.WithParallelism(2), weir.WithRestoreFrom(loc, false),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	weir.SinkTo(weir.Generate(env, weir.Generator[int64]{Fn: identity, Count: total}), file.NewSink(out, formatInt)).UID("sink")
	if _, err := env.Execute(ctx, "stop-restored"); err != nil {
		t.Fatal(err)
	}
	checkEachTimes(t, committedInts(t, out), total, 1)
	if h := hiddenFiles(t, out); len(h) > 0 {
		t.Errorf("hidden files left after the restored job: %q", h)
	}
}

// Sink subtasks that finish at different times, through checkpoints, still
// commit everything once. (The file sink's writer states are not union
// list state, which FLIP-147 refuses in a checkpoint where some of an
// operator's subtasks finished; under -race, TestFileSinkRestoreIntoAnotherDirectory
// met that refusal when they were.)
func TestFileSinkSubtasksFinishingApart(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	var long strings.Builder
	for i := range 800 {
		fmt.Fprintln(&long, i)
	}
	if err := os.WriteFile(filepath.Join(in, "a-short.txt"), []byte("-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "b-long.txt"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond}))
	// One subtask reads one line and finishes, with its sink; the other
	// reads slowly, through many checkpoints.
	lines := weir.Map(weir.ReadTextFile(env, in), func(s string) (int64, error) {
		time.Sleep(100 * time.Microsecond)
		return strconv.ParseInt(s, 10, 64)
	})
	weir.SinkTo(lines, file.NewSink(out, formatInt)).UID("sink")
	res, err := env.Execute(context.Background(), "finishing-apart")
	if err != nil {
		t.Fatal(err)
	}
	counts := committedInts(t, out)
	if counts[-1] != 1 {
		t.Errorf("the short file's line committed %d times", counts[-1])
	}
	delete(counts, -1)
	checkEachTimes(t, counts, 800, 1)
	t.Logf("%d checkpoints completed", res.Checkpoints.Completed)
}
