package kafka_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// Per-partition watermarks with idleness: records go into partition 0 of
// two, partition 1 stays empty. Once partition 1 is idle, the watermark
// follows partition 0's record timestamps and event-time windows fire
// while the job runs; without idleness the quiet partition holds event
// time back, and none fires.
func TestIdlePartitionDoesNotStallWatermarks(t *testing.T) {
	c := startCluster(t, 2, "t")
	// records 0..19 into partition 0, one per 100 ms of event time
	produce(t, c, "t", 1, 0, 20, func(i int) int64 { return int64(i) * 100 })
	for _, idleness := range []time.Duration{50 * time.Millisecond, 0} {
		t.Run(fmt.Sprintf("idleness=%v", idleness), func(t *testing.T) {
			o := stringOptions(c, "t")
			o.Watermarks = &weir.WatermarkStrategy[string]{Interval: 10 * time.Millisecond, Idleness: idleness}
			env := weir.NewEnv(weir.WithParallelism(1))
			s := source(t, env, o)
			ones := weir.Map(s, func(string) (int, error) { return 1, nil })
			counts := weir.WindowReduce(weir.Window(weir.KeyBy(ones, func(int) int { return 0 }),
				weir.TumblingEventTimeWindows(time.Second)), func(a, b int) (int, error) { return a + b, nil })
			job, ch := collectAsync(t, env, weir.Map(counts, func(n int) (string, error) { return fmt.Sprint(n), nil }))
			if idleness == 0 {
				// The premise of the test: the empty partition holds
				// event time back. No event says "nothing fired", so
				// this waits 30 watermark intervals and sees none.
				select {
				case v := <-ch:
					t.Fatalf("a window fired (%s) though the empty partition holds the watermark back", v)
				case <-time.After(300 * time.Millisecond):
				}
				return
			}
			// The window [0, 1000) holds records 0..9.
			if got := receive(t, job, ch, 1); got[0] != "10" {
				t.Fatalf("first window counted %s, want 10", got[0])
			}
		})
	}
}
