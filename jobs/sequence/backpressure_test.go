package sequence_test

import (
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/jobs/sequence"
)

// Unaligned checkpoints taken under back-pressure hold in-flight data on
// both sides of the throttled exchange (the buffers their barriers
// overtook in the counters' subpartitions and in the slow stage's input
// channels); a failure restores them, and the committed output is still
// exactly-once.
func TestExactlyOnceUnalignedUnderBackpressure(t *testing.T) {
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 300, Rate: 3000, FailAfter: 1000}
	out := t.TempDir()
	env := weir.NewEnv(weir.WithParallelism(2),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Unaligned: true}),
		weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
	counts, err := sequence.Build(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// A slow stage behind a rebalance: its channels fill and the counters
	// are back-pressured whenever a checkpoint is taken.
	slow := weir.Map(counts.Rebalance(), func(c sequence.Count) (sequence.Count, error) {
		time.Sleep(200 * time.Microsecond)
		return c, nil
	}).Name("slow").UID("slow")
	weir.SinkTo(slow, file.NewSink(out, sequence.Count.String)).UID("sink")
	res, err := env.Execute(testContext(t), "sequence-backpressure")
	if err != nil {
		t.Fatal(err)
	}
	if res.Restarts != 1 {
		t.Errorf("restarts = %d, want 1 (--fail-after fails once)", res.Restarts)
	}
	if res.Checkpoints.Completed < 2 {
		t.Errorf("%d checkpoints completed, want a few", res.Checkpoints.Completed)
	}
	if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
		t.Fatalf("output is not exactly-once: %v", err)
	}
	t.Logf("%d checkpoints, %d failed, %v", res.Checkpoints.Completed, res.Checkpoints.Failed, res.Duration)
}
