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
//
// At parallelism 2 each source subtask reads one partition, so the one
// with partition 1 has nothing but an idle split: it tells the window
// operators downstream that it is IDLE, and they no longer wait for it.
// When a record comes into partition 1 it becomes ACTIVE again and its
// watermark advances event time further.
func TestIdlePartitionDoesNotStallWatermarks(t *testing.T) {
	type run struct {
		parallelism int
		idleness    time.Duration
	}
	var runs []run
	for _, p := range []int{1, 2} {
		for _, idleness := range []time.Duration{50 * time.Millisecond, 0} {
			runs = append(runs, run{p, idleness})
		}
	}
	var topics []string
	for i := range runs {
		topics = append(topics, fmt.Sprintf("t%d", i))
	}
	c := startCluster(t, 2, topics...)
	for i, r := range runs {
		topic := topics[i]
		t.Run(fmt.Sprintf("p=%d/idleness=%v", r.parallelism, r.idleness), func(t *testing.T) {
			// records 0..19 into partition 0, one per 100 ms of event time
			produce(t, c, topic, 1, 0, 20, func(i int) int64 { return int64(i) * 100 })
			o := stringOptions(c, topic)
			o.Watermarks = &weir.WatermarkStrategy[string]{Interval: 10 * time.Millisecond, Idleness: r.idleness}
			env := weir.NewEnv(weir.WithParallelism(r.parallelism))
			s := source(t, env, o)
			ones := weir.Map(s, func(string) (int, error) { return 1, nil })
			counts := weir.WindowReduce(weir.Window(weir.KeyBy(ones, func(int) int { return 0 }),
				weir.TumblingEventTimeWindows(time.Second)), func(a, b int) (int, error) { return a + b, nil })
			job, ch := collectAsync(t, env, weir.Map(counts, func(n int) (string, error) { return fmt.Sprint(n), nil }))
			if r.idleness == 0 {
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
			// Partition 0 goes idle too at 1899, short of the end of
			// [1000, 2000). One record at 2500 in partition 1 wakes its
			// split (and at p=2 its subtask) up: its watermark 2499
			// counts and fires [1000, 2000) with records 10..19, which
			// nothing else could.
			produce(t, c, topic, 2, 1, 1, func(int) int64 { return 2500 })
			if got := receive(t, job, ch, 1); got[0] != "10" {
				t.Fatalf("second window counted %s, want 10", got[0])
			}
		})
	}
}
