package sequence_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
	"github.com/weir-engine/weir/jobs/sequence"
)

// FLIP-147 at the end of a back-pressured job with unaligned checkpoints
// every 20 ms: the sources exit on the completion of their final
// checkpoint, often just before the trigger of the end-of-data checkpoint
// that the tasks behind them still wait for reaches them. That checkpoint
// must go on to the tasks behind the sources, not stay pending until its
// timeout (10 minutes: the job would not end within testContext's minute,
// as happened in about one run in eight). A few runs, each ending with a
// check of the committed output (a failure after 1000 records restores one
// checkpoint on the way).
func TestFinalCheckpointAfterSourcesExit(t *testing.T) {
	cfg := sequence.Config{Keys: 10, RecordsPerKey: 300, Rate: 3000, FailAfter: 1000}
	for i := range 2 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			out := t.TempDir()
			env := weir.NewEnv(weir.WithParallelism(2),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 20 * time.Millisecond, Unaligned: true}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 10*time.Millisecond)))
			counts, err := sequence.Build(env, cfg)
			if err != nil {
				t.Fatal(err)
			}
			// A rebalanced stage slower than the sources back-pressures them.
			slow := weir.Map(counts.Rebalance(), func(c sequence.Count) (sequence.Count, error) {
				time.Sleep(200 * time.Microsecond)
				return c, nil
			}).Name("slow").UID("slow")
			weir.SinkTo(slow, file.NewSink(out, sequence.Count.String)).UID("sink")
			res, err := env.Execute(testContext(t), "sequence")
			if err != nil {
				t.Fatal(err)
			}
			if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
				t.Fatalf("not exactly-once after %d restarts: %v", res.Restarts, err)
			}
		})
	}
}
