package nexmark_test

import (
	"bytes"
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/failtest"
	"github.com/weir-engine/weir/jobs/nexmark"
)

// The report line counts every result once when the job fails and restores
// from a checkpoint (weir run nexmark --checkpoint-interval): the counts
// of the results before the checkpoint are in it, and those after it are
// counted again only by the attempt that replays them.
func TestResultCountSurvivesRestart(t *testing.T) {
	const n = 20000
	var out bytes.Buffer
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(1, time.Millisecond)))
	in := weir.Generate(env, weir.Generator[int64]{Fn: func(i int64) (int64, error) { return i, nil }, Count: n, RatePerSecond: 40000})
	var failed atomic.Bool
	results := weir.MapWith(in, weir.MapFunction[int64, int64](&failtest.AfterSnapshots[int64]{After: n / 4, Snapshots: 2, Failed: &failed}))
	nexmark.CountInto(results, "q1", n, &out)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := env.Execute(ctx, "count"); err != nil {
		t.Fatal(err)
	}
	if !failed.Load() {
		t.Fatal("the job never failed: the test checked nothing")
	}
	m := line.FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("output %q is not the report line", out.String())
	}
	if got := m[4]; got != strconv.Itoa(n) {
		t.Fatalf("reported %s results, want %d: %q", got, n, out.String())
	}
}
