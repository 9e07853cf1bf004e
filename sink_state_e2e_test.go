package weir_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/failtest"
)

// summingSink adds up its subtask's elements in operator state and hands
// the sum and count to sums and counts when its input ends.
type summingSink struct {
	sum, count   int64
	state        weir.ListState[[2]int64]
	sums, counts *atomic.Int64
}

func (s *summingSink) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	if s.state, err = weir.GetOperatorListState[[2]int64](ctx, "sum"); err != nil {
		return err
	}
	for _, e := range s.state.Get() {
		s.sum += e[0]
		s.count += e[1]
	}
	return nil
}

func (s *summingSink) SnapshotState(weir.StateSnapshotContext) error {
	s.state.Update([][2]int64{{s.sum, s.count}})
	return nil
}

func (s *summingSink) Invoke(v int64) error {
	s.sum += v
	s.count++
	return nil
}

func (s *summingSink) Finish() error {
	s.sums.Add(s.sum)
	s.counts.Add(s.count)
	return nil
}

// A sink function with operator state (Flink's CheckpointedFunction on a
// SinkFunction, as its BufferingSink example) gets it back after a
// restart from a checkpoint: what it took before the checkpoint is
// restored and what it took after is replayed, so its sums count every
// element once.
func TestSinkFunctionOperatorStateSurvivesRestart(t *testing.T) {
	const n = 20000
	env := weir.NewEnv(weir.WithParallelism(2),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(1, time.Millisecond)))
	in := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, Count: n, RatePerSecond: 40000})
	var failed atomic.Bool
	out := weir.MapWith(in, weir.MapFunction[int64, int64](&failtest.AfterSnapshots[int64]{After: n / 4, Snapshots: 2, Failed: &failed}))
	var sum, count atomic.Int64
	weir.AddSinkWith[int64](out, &summingSink{sums: &sum, counts: &count})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := env.Execute(ctx, "sink-state"); err != nil {
		t.Fatal(err)
	}
	if !failed.Load() {
		t.Fatal("the job never failed: the test checked nothing")
	}
	if got, want := count.Load(), int64(n); got != want {
		t.Errorf("the sinks took %d elements, want %d", got, want)
	}
	if got, want := sum.Load(), int64(n)*(n-1)/2; got != want {
		t.Errorf("the sinks' sum is %d, want %d", got, want)
	}
}
