package weir_test

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/failtest"
)

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
			out := weir.MapWith(in, weir.MapFunction[int64, int64](&failtest.AfterSnapshots[int64]{After: n / 4, Snapshots: tc.snapshots, Failed: &failed}))
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
