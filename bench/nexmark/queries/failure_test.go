package queries

import (
	"context"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/internal/failtest"
)

// Every query gives the reference's answer when the job fails once in the
// middle of the stream and restores from a checkpoint: what the operators
// held back (q4's unsent best bids, pending window panes, timers) is in
// the checkpoint and nothing is counted twice. With no watermark but the
// final one instead of one after every event, the local phases of
// two-phase steps (q5's partial counts, q7's local maxima) hold rows at
// every checkpoint too.
func TestQueriesMatchReferenceAfterFailure(t *testing.T) {
	cfg := nexmark.DefaultConfig()
	cfg.NumEvents = 6000
	cfg.FirstEventRate = 200 // 30 s of event time: many windows and auctions close during the run
	for _, q := range queries {
		want := q.want(nexmark.NewGenerator(cfg).All())
		for _, perElement := range []bool{true, false} {
			name, opts := q.name+"/final-watermark-only", SourceOptions{Rate: 12000, WatermarkInterval: time.Hour}
			if perElement {
				name, opts = q.name+"/per-element-watermarks", SourceOptions{Rate: 12000, PerElementWatermarks: true}
			}
			t.Run(name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				env := weir.NewEnv(weir.WithParallelism(2),
					weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond}),
					weir.WithRestartStrategy(weir.FixedDelayRestart(1, time.Millisecond)))
				var failed atomic.Bool
				events := weir.MapWith(Source(env, cfg, opts),
					weir.MapFunction[nexmark.Event, nexmark.Event](&failtest.AfterSnapshots[nexmark.Event]{After: 1500, Snapshots: 2, Failed: &failed}))
				got, err := q.run(ctx, events)
				if err != nil {
					t.Fatal(err)
				}
				if !failed.Load() {
					t.Fatal("the failure was never injected: fewer than two checkpoints before the end")
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got %d rows, want %d:\ngot  %s\nwant %s", reflect.ValueOf(got).Len(), reflect.ValueOf(want).Len(), head(got), head(want))
				}
			})
		}
	}
}
