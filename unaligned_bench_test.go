package weir_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
)

// BenchmarkCheckpointUnderBackpressure measures how long a checkpoint takes
// while a throttled sink back-pressures its source (issue 10): a source of
// 100-byte records rebalanced to a sink that spends 1 ms per record, at
// parallelism 2, so that every channel is full when the first checkpoint
// is triggered. It reports checkpoint-ms, the trigger-to-completion time of
// that checkpoint, aligned and unaligned. An aligned barrier waits behind
// the queued data (about 2 channels * 5 buffers * 290 records * 1 ms per
// sink); an unaligned one overtakes it on both sides of every channel, and
// the back-pressured source answers the trigger at once, so it completes
// in milliseconds.
//
//	go test -run '^$' -bench CheckpointUnderBackpressure -benchtime 3x .
func BenchmarkCheckpointUnderBackpressure(b *testing.B) {
	for _, tt := range []struct {
		name      string
		unaligned bool
	}{{"aligned", false}, {"unaligned", true}} {
		b.Run(tt.name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += checkpointUnderBackpressure(b, tt.unaligned)
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "checkpoint-ms")
		})
	}
}

// checkpointUnderBackpressure runs the job until its first checkpoint
// completed and returns how long that checkpoint took.
func checkpointUnderBackpressure(b *testing.B, unaligned bool) time.Duration {
	b.Helper()
	payload := strings.Repeat("x", 100)
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithCheckpointing(weir.CheckpointConfig{
		// Long enough for back-pressure to build up: the channels fill
		// within milliseconds.
		Interval:  500 * time.Millisecond,
		Unaligned: unaligned,
	}))
	src := weir.Generate(env, weir.Generator[string]{Fn: func(int64) (string, error) { return payload, nil }})
	weir.AddSink(src.Rebalance(), func(string) error {
		time.Sleep(time.Millisecond)
		return nil
	}).Name("throttled sink")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := env.ExecuteAsync(ctx, "checkpoint-under-backpressure")
	if err != nil {
		b.Fatal(err)
	}
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	var took time.Duration
	for took == 0 {
		select {
		case <-c.Done():
			_, err := c.Wait()
			b.Fatalf("job ended before a checkpoint completed: %v", err)
		case <-poll.C:
			if st := c.Status(); st.Checkpoints.Completed > 0 {
				took = st.Checkpoints.LatestDuration
			}
		}
	}
	c.Cancel()
	if _, err := c.Wait(); err == nil || !strings.Contains(err.Error(), "canceled") {
		b.Fatalf("job ended with %v, want it canceled", err)
	}
	return took
}
