package sequence_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/jobs/sequence"
)

// TestExactlyOnceSoak fails the job at random points, with random
// parallelism, checkpoint interval and barrier mode, and checks every run's
// committed output. Bounded: 6 runs with -short, 24 otherwise.
func TestExactlyOnceSoak(t *testing.T) {
	runs := 24
	if testing.Short() {
		runs = 6
	}
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("WEIR_SOAK_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < runs; i++ {
		cfg := sequence.Config{Keys: 1 + r.IntN(12), RecordsPerKey: 50 + r.Int64N(200), Rate: 20000, ShortRecords: r.Int64N(30)}
		p := 1 + r.IntN(4)
		// The counting subtask 0 fails; it must see the record it fails at.
		if n := recordsOfSubtask0(t, cfg, p); n > 0 {
			cfg.FailAfter = 1 + r.Int64N(n)
		}
		interval := time.Duration(10+r.IntN(60)) * time.Millisecond
		unaligned := r.IntN(2) == 0
		cfg.DynamicSplits = r.IntN(2) == 0
		backend := weir.StateBackend{Kind: weir.StateBackendKind(r.IntN(2)), Incremental: r.IntN(2) == 0}
		name := fmt.Sprintf("run%d-p%d-%v-unaligned=%v-dynamic=%v-%v-fail@%d", i, p, interval, unaligned, cfg.DynamicSplits, backend.Kind, cfg.FailAfter)
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			backend.LocalDir = t.TempDir()
			env := fileJob(t, cfg, out, weir.WithParallelism(p), weir.WithStateBackend(backend),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: interval, Unaligned: unaligned}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(3, 5*time.Millisecond)))
			ctx := testContext(t)
			stop := time.AfterFunc(15*time.Second, func() {
				var b strings.Builder
				pprof.Lookup("goroutine").WriteTo(&b, 1)
				t.Logf("still running after 15s; goroutines:\n%s", b.String())
			})
			defer stop.Stop()
			res, err := env.Execute(ctx, "sequence")
			if err != nil {
				t.Fatal(err)
			}
			if err := sequence.Verify(cfg, committedLines(t, out)); err != nil {
				t.Fatalf("output is not exactly-once after %d restarts and %d checkpoints: %v", res.Restarts, res.Checkpoints.Completed, err)
			}
			if cfg.FailAfter > 0 && res.Restarts == 0 {
				t.Fatalf("the failure after %d records never happened", cfg.FailAfter)
			}
			t.Logf("%d restarts, %d checkpoints", res.Restarts, res.Checkpoints.Completed)
		})
	}
}

// recordsOfSubtask0 is the number of records the counting subtask 0
// receives at parallelism p: those of the keys in its key groups.
func recordsOfSubtask0(t *testing.T, cfg sequence.Config, p int) int64 {
	t.Helper()
	hash, err := codec.KeyHasher[string]()
	if err != nil {
		t.Fatal(err)
	}
	maxP := keygroup.DefaultMaxParallelism(p)
	mine := func(key string) bool {
		return keygroup.OperatorIndex(maxP, p, keygroup.Of(hash(key), maxP)) == 0
	}
	var n int64
	for i := 0; i < cfg.Keys; i++ {
		if mine(fmt.Sprintf("k%d", i)) {
			n += cfg.RecordsPerKey
		}
		if mine(fmt.Sprintf("s%d", i)) {
			// Short record j has key s<j mod Keys>.
			n += cfg.ShortRecords / int64(cfg.Keys)
			if int64(i) < cfg.ShortRecords%int64(cfg.Keys) {
				n++
			}
		}
	}
	return n
}
