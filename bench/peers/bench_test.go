package peers

import (
	"context"
	"flag"
	"iter"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
	"github.com/weir-engine/weir/bench/peers/beamnexmark"
)

func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	// prism logs every job's life cycle at INFO; beam.Init set that level.
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	os.Exit(m.Run())
}

// config is the benchmark's stream: DefaultConfig with n events.
func config(n int64) nexmark.Config {
	c := nexmark.DefaultConfig()
	c.NumEvents = n
	return c
}

var (
	benchEvents = flag.Int64("events", 1_000_000, "events per benchmark run")
	benchShards = flag.Int("shards", runtime.GOMAXPROCS(0), "source shards (Create elements) per Beam pipeline")
)

// benchQuery times the same query three ways over the same events:
// reference over a pre-generated slice (as bench/nexmark/reference's own
// benchmarks do), reference with generation in the timed loop (as Beam,
// whose source generates), and the Beam pipeline on prism.
func benchQuery[R any](b *testing.B, ref func(iter.Seq[nexmark.Event]) R, refRows func(R) int, q beamnexmark.Query) {
	n := *benchEvents
	cfg := config(n)
	b.Run("reference", func(b *testing.B) {
		events := slices.Collect(nexmark.NewGenerator(cfg).All())
		b.ResetTimer()
		var r R
		for range b.N {
			r = ref(slices.Values(events))
		}
		report(b, n, refRows(r))
	})
	b.Run("reference+gen", func(b *testing.B) {
		var r R
		for range b.N {
			r = ref(nexmark.NewGenerator(cfg).All())
		}
		report(b, n, refRows(r))
	})
	b.Run("beam-prism", func(b *testing.B) {
		var rows int
		for range b.N {
			out, err := beamnexmark.Run(context.Background(), cfg, n, *benchShards, q)
			if err != nil {
				b.Fatal(err)
			}
			rows = len(out)
		}
		report(b, n, rows)
	})
}

func report(b *testing.B, n int64, rows int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(rows), "rows")
}

func rowCount[T any](r []T) int { return len(r) }

func BenchmarkQ0(b *testing.B) {
	benchQuery(b, reference.Q0, func(reference.Q0Result) int { return 1 }, beamnexmark.Q0)
}
func BenchmarkQ1(b *testing.B) { benchQuery(b, reference.Q1, rowCount, beamnexmark.Q1) }
func BenchmarkQ2(b *testing.B) { benchQuery(b, reference.Q2, rowCount, beamnexmark.Q2) }
func BenchmarkQ3(b *testing.B) { benchQuery(b, reference.Q3, rowCount, beamnexmark.Q3) }
func BenchmarkQ4(b *testing.B) { benchQuery(b, reference.Q4, rowCount, beamnexmark.Q4) }
func BenchmarkQ5(b *testing.B) { benchQuery(b, reference.Q5, rowCount, beamnexmark.Q5) }
func BenchmarkQ7(b *testing.B) { benchQuery(b, reference.Q7, rowCount, beamnexmark.Q7) }
func BenchmarkQ8(b *testing.B) { benchQuery(b, reference.Q8, rowCount, beamnexmark.Q8) }
