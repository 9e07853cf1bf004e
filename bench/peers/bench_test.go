package peers

import (
	"cmp"
	"context"
	"flag"
	"iter"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
	"github.com/weir-engine/weir/bench/peers/beamnexmark"
	"github.com/weir-engine/weir/internal/cputime"
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
// whose source generates), and the Beam pipeline on prism. Every run's
// rows, sorted with cmp, are checked equal to the reference's answer over
// the same events, so the figures are those of correct results at the
// benchmark's scale. Beam also reports events per CPU second of the
// process while its pipelines ran ("events/cpu-s"; prism runs them in this
// process), to set beside Weir's at another parallelism.
func benchQuery[T comparable](b *testing.B, ref func(iter.Seq[nexmark.Event]) []T, cmp func(a, b T) int, q beamnexmark.Query) {
	n := *benchEvents
	cfg := config(n)
	events := slices.Collect(nexmark.NewGenerator(cfg).All())
	want := ref(slices.Values(events))
	if len(want) == 0 {
		b.Fatal("the reference answer is empty; the check would prove nothing")
	}
	b.Run("reference", func(b *testing.B) {
		var r []T
		for range b.N {
			r = ref(slices.Values(events))
		}
		report(b, n, len(r))
		checkRows(b, r, want, cmp)
	})
	b.Run("reference+gen", func(b *testing.B) {
		var r []T
		for range b.N {
			r = ref(nexmark.NewGenerator(cfg).All())
		}
		report(b, n, len(r))
		checkRows(b, r, want, cmp)
	})
	b.Run("beam-prism", func(b *testing.B) {
		var out []T
		var cpu time.Duration
		for range b.N {
			cpu0 := processCPU(b)
			var err error
			if out, err = beamnexmark.RunAs[T](context.Background(), cfg, n, *benchShards, q); err != nil {
				b.Fatal(err)
			}
			cpu += processCPU(b) - cpu0
			b.StopTimer()
			checkRows(b, out, want, cmp)
			b.StartTimer()
		}
		report(b, n, len(out))
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds(), "events/cpu-s")
	})
}

// checkRows sorts got with cmp and fails b unless it equals want row for
// row.
func checkRows[T comparable](b *testing.B, got, want []T, cmp func(a, b T) int) {
	b.Helper()
	slices.SortFunc(got, cmp)
	if len(got) != len(want) {
		b.Fatalf("got %d rows, want the reference's %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			b.Fatalf("row %d: got %+v, want the reference's %+v", i, got[i], want[i])
		}
	}
}

func report(b *testing.B, n int64, rows int) {
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(rows), "rows")
}

func BenchmarkQ0(b *testing.B) {
	benchQuery(b, func(e iter.Seq[nexmark.Event]) []reference.Q0Result { return []reference.Q0Result{reference.Q0(e)} },
		func(a, b reference.Q0Result) int { return 0 }, beamnexmark.Q0)
}
func BenchmarkQ1(b *testing.B) { benchQuery(b, reference.Q1, reference.CompareQ1, beamnexmark.Q1) }
func BenchmarkQ2(b *testing.B) { benchQuery(b, reference.Q2, reference.CompareQ2, beamnexmark.Q2) }
func BenchmarkQ3(b *testing.B) { benchQuery(b, reference.Q3, reference.CompareQ3, beamnexmark.Q3) }
func BenchmarkQ4(b *testing.B) { benchQuery(b, reference.Q4, compareQ4, beamnexmark.Q4) }
func BenchmarkQ5(b *testing.B) { benchQuery(b, reference.Q5, reference.CompareQ5, beamnexmark.Q5) }
func BenchmarkQ7(b *testing.B) { benchQuery(b, reference.Q7, reference.CompareQ7, beamnexmark.Q7) }
func BenchmarkQ8(b *testing.B) { benchQuery(b, reference.Q8, reference.CompareQ8, beamnexmark.Q8) }

// compareQ4 orders q4's rows by category, as the reference does.
func compareQ4(a, b reference.Q4Row) int { return cmp.Compare(a.Category, b.Category) }

// processCPU is the CPU time the process has used so far.
func processCPU(b *testing.B) time.Duration {
	d, err := cputime.Process()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
