package queries

import (
	"context"
	"reflect"
	"runtime/pprof"
	"slices"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/internal/cputime"
)

// benchEvents is the stream length of BenchmarkQueries.
const benchEvents = 1_000_000

// BenchmarkQueries runs every query over benchEvents events on the embedded
// mini-cluster at parallelism 2, and the reference over the same events
// already in memory, in the same run. It reports engine events/s
// ("events/s"), reference events/s ("ref-events/s"), their ratio
// ("ratio", engine/reference), and events per CPU second of the process
// while the engine ran ("events/cpu-s", to set beside Beam's, which uses
// fewer cores), and fails if the engine's sorted result
// differs from the reference's. The engine's time includes generating the
// events, collecting the results into one subtask and sorting them; the
// reference's includes its final sort but not generating the events.
//
// Under -cpuprofile the samples of the engine's goroutines carry the label
// run=engine and the reference's run=reference, so that
// `go tool pprof -tagfocus run=engine` shows the engine alone (without the
// set-up that collects the events and without the reference).
func BenchmarkQueries(b *testing.B) {
	cfg := nexmark.DefaultConfig()
	cfg.NumEvents = benchEvents
	events := slices.Collect(nexmark.NewGenerator(cfg).All())
	for _, q := range queries {
		b.Run(q.name, func(b *testing.B) {
			var engine, engineCPU, ref time.Duration
			for range b.N {
				var want any
				start := time.Now()
				pprof.Do(context.Background(), pprof.Labels("run", "reference"), func(context.Context) {
					want = q.want(slices.Values(events))
				})
				ref += time.Since(start)
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				env := weir.NewEnv(weir.WithParallelism(2))
				var got any
				var err error
				start = time.Now()
				cpu0 := processCPU(b)
				pprof.Do(ctx, pprof.Labels("run", "engine"), func(ctx context.Context) {
					got, err = q.run(ctx, Source(env, cfg, SourceOptions{}))
				})
				engine += time.Since(start)
				engineCPU += processCPU(b) - cpu0
				cancel()
				if err != nil {
					b.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					b.Fatalf("%s: the engine's %d rows differ from the reference's %d", q.name, reflect.ValueOf(got).Len(), reflect.ValueOf(want).Len())
				}
			}
			n := float64(benchEvents) * float64(b.N)
			b.ReportMetric(n/engine.Seconds(), "events/s")
			b.ReportMetric(n/ref.Seconds(), "ref-events/s")
			b.ReportMetric(ref.Seconds()/engine.Seconds(), "ratio")
			b.ReportMetric(n/engineCPU.Seconds(), "events/cpu-s")
		})
	}
}

// processCPU is the CPU time the process has used so far.
func processCPU(b *testing.B) time.Duration {
	d, err := cputime.Process()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
