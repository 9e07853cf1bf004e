package nexmark_test

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/nexmark"
)

// failOnce fails the first attempt of subtask 0 once it has seen failAt
// elements and taken two snapshots, so the job restores from a checkpoint
// taken mid-stream.
type failOnce struct {
	failAt, seen, snapshots int
	attempt, subtask        int
	failed                  *atomic.Bool
}

func (f *failOnce) Open(rc *weir.RuntimeContext) error {
	f.attempt, f.subtask = rc.Attempt, rc.SubtaskIndex
	return nil
}

func (f *failOnce) Map(v int64) (int64, error) {
	f.seen++
	if f.attempt == 0 && f.subtask == 0 && f.seen >= f.failAt && f.snapshots >= 2 {
		f.failed.Store(true)
		return 0, errors.New("injected failure")
	}
	return v, nil
}

func (f *failOnce) InitializeState(*weir.StateInitializationContext) error { return nil }

func (f *failOnce) SnapshotState(weir.StateSnapshotContext) error {
	f.snapshots++
	return nil
}

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
	results := weir.MapWith(in, weir.MapFunction[int64, int64](&failOnce{failAt: n / 4, failed: &failed}))
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
