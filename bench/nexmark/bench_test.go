package nexmark

import (
	"sync"
	"testing"
)

// benchEvents is the stream length every benchmark in this module uses.
const benchEvents = 1_000_000

// BenchmarkGenerate measures one goroutine walking a Generator.
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		g := NewGenerator(testConfig(benchEvents))
		for {
			if _, ok := g.Next(); !ok {
				break
			}
		}
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkGenerateSplit measures two goroutines, each walking half of the
// stream through Split, as two source subtasks would.
func BenchmarkGenerateSplit(b *testing.B) {
	const parts = 2
	for range b.N {
		g := NewGenerator(testConfig(benchEvents))
		var wg sync.WaitGroup
		for i := range parts {
			wg.Go(func() {
				s := g.Split(i, parts)
				for {
					if _, ok := s.Next(); !ok {
						return
					}
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
