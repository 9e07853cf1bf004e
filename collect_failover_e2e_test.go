package weir_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// failAfterSnapshots fails the first attempt of subtask 0 once it has seen
// failAt elements and taken snapshots snapshots.
type failAfterSnapshots struct {
	failAt, seen, snapshots, wantSnapshots int
	attempt, subtask                       int
	failed                                 *atomic.Bool
}

func (f *failAfterSnapshots) Open(rc *weir.RuntimeContext) error {
	f.attempt, f.subtask = rc.Attempt, rc.SubtaskIndex
	return nil
}

func (f *failAfterSnapshots) Map(v int64) (int64, error) {
	f.seen++
	if f.attempt == 0 && f.subtask == 0 && f.seen >= f.failAt && f.snapshots >= f.wantSnapshots {
		f.failed.Store(true)
		return 0, errors.New("injected failure")
	}
	return v, nil
}

func (f *failAfterSnapshots) InitializeState(*weir.StateInitializationContext) error { return nil }

func (f *failAfterSnapshots) SnapshotState(weir.StateSnapshotContext) error {
	f.snapshots++
	return nil
}

// Collect returns every element once when the job restarts: from a
// checkpoint (the elements collected after it are dropped and replayed)
// or, without checkpointing, from the start.
func TestCollectIsExactlyOnceAcrossRestarts(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		name string
		opts []weir.Option
		// snapshots the failing subtask takes before it fails.
		snapshots int
	}{
		{"from a checkpoint", []weir.Option{weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond})}, 2},
		{"from the start", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]weir.Option{weir.WithParallelism(2), weir.WithRestartStrategy(weir.FixedDelayRestart(1, time.Millisecond))}, tc.opts...)
			env := weir.NewEnv(opts...)
			in := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, Count: n, RatePerSecond: 40000})
			var failed atomic.Bool
			out := weir.MapWith(in, weir.MapFunction[int64, int64](&failAfterSnapshots{failAt: n / 4, wantSnapshots: tc.snapshots, failed: &failed}))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := weir.Collect(ctx, out)
			if err != nil {
				t.Fatal(err)
			}
			if !failed.Load() {
				t.Fatal("the job never failed: the test checked nothing")
			}
			slices.Sort(got)
			for i, v := range got {
				if v != int64(i) {
					t.Fatalf("element %d is %d: %s", i, v, fmt.Sprint(got[max(0, i-2):min(len(got), i+3)]))
				}
			}
			if len(got) != n {
				t.Fatalf("%d elements, want %d", len(got), n)
			}
		})
	}
}
