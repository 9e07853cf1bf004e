package weir_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/clock"
)

// With a buffer timeout of 0 (Flink's execution.buffer-timeout: 0) every
// record crosses the network as soon as it is emitted, even while its task
// stays busy: the source emits record i only after the sink, in another
// task, has received record i-1. The source's task never goes idle (it
// waits inside the generator) and the tasks run on a fake clock that never
// advances, so no idle flush or timeout flush could send the records.
func TestBufferTimeoutZeroFlushesEveryRecord(t *testing.T) {
	const n = 50
	seen := make(chan int64, n)
	env := weir.NewEnv(weir.WithParallelism(1), weir.WithBufferTimeout(0),
		weir.WithTaskClock(clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))))
	src := weir.Generate(env, weir.Generator[int64]{Count: n, Fn: func(i int64) (int64, error) {
		if i == 0 {
			return i, nil
		}
		select {
		case got := <-seen:
			if got != i-1 {
				return 0, fmt.Errorf("the sink received %d, want %d", got, i-1)
			}
			return i, nil
		case <-time.After(20 * time.Second):
			return 0, fmt.Errorf("record %d did not reach the sink while the source was busy", i-1)
		}
	}})
	weir.AddSink(src.Rebalance(), func(v int64) error { seen <- v; return nil })
	if _, err := env.Execute(context.Background(), t.Name()); err != nil {
		t.Fatal(err)
	}
	if got := <-seen; got != n-1 {
		t.Errorf("the sink received %d last, want %d", got, n-1)
	}
}
