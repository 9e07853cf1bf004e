package reference

import (
	"iter"
	"slices"
	"sync"
	"testing"

	"github.com/weir-engine/weir/bench/nexmark"
)

// benchEvents is how many events each query benchmark runs over.
const benchEvents = 1_000_000

// benchStream is generated once, outside every timer, so the figures are the
// queries' own cost: a loop over a slice, the query's state, and the final
// sort of its result.
var benchStream = sync.OnceValue(func() []nexmark.Event {
	c := nexmark.DefaultConfig()
	c.NumEvents = benchEvents
	return slices.Collect(nexmark.NewGenerator(c).All())
})

// benchQuery times q over benchStream and reports input events per second
// and the number of result rows.
func benchQuery[R any](b *testing.B, q func(iter.Seq[nexmark.Event]) R, rows func(R) int) {
	events := benchStream()
	b.ResetTimer()
	var r R
	for range b.N {
		r = q(slices.Values(events))
	}
	b.ReportMetric(float64(len(events))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(rows(r)), "rows")
}

func rowCount[T any](r []T) int { return len(r) }

// One benchmark per query, each over the same million generated events.

func BenchmarkQ0(b *testing.B) { benchQuery(b, Q0, func(Q0Result) int { return 1 }) }
func BenchmarkQ1(b *testing.B) { benchQuery(b, Q1, rowCount) }
func BenchmarkQ2(b *testing.B) { benchQuery(b, Q2, rowCount) }
func BenchmarkQ3(b *testing.B) { benchQuery(b, Q3, rowCount) }
func BenchmarkQ4(b *testing.B) { benchQuery(b, Q4, rowCount) }
func BenchmarkQ5(b *testing.B) { benchQuery(b, Q5, rowCount) }
func BenchmarkQ7(b *testing.B) { benchQuery(b, Q7, rowCount) }
func BenchmarkQ8(b *testing.B) { benchQuery(b, Q8, rowCount) }
