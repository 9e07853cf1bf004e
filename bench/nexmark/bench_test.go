package nexmark

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchEvents is the stream length every benchmark in this module uses.
const benchEvents = 1_000_000

// cpuTime returns the CPU time (user and system) the process has used.
// On a shared machine wall-clock ns/op mostly measures the neighbours; the
// benchmarks below also report CPU ns per event, which they do not inflate
// (much).
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// benchEventsPerIter runs walk, which must produce benchEvents events, b.N
// times and reports events/s and CPU ns per event.
func benchEventsPerIter(b *testing.B, walk func()) {
	b.ReportAllocs()
	walk() // build the shared text outside the timed part
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for range b.N {
		walk()
	}
	cpu := cpuTime(b) - cpu0
	events := float64(benchEvents) * float64(b.N)
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/events, "cpu-ns/event")
}

// BenchmarkGenerate measures one goroutine walking a Generator with Next.
func BenchmarkGenerate(b *testing.B) {
	benchEventsPerIter(b, func() {
		g := NewGenerator(testConfig(benchEvents))
		for {
			if _, ok := g.Next(); !ok {
				break
			}
		}
	})
}

// fillSlab is the slab size the Fill benchmark and the Nexmark source use.
const fillSlab = 64

// BenchmarkGenerateFill measures one goroutine filling a reused slab, as
// the Nexmark source does.
func BenchmarkGenerateFill(b *testing.B) {
	var slab [fillSlab]Event
	benchEventsPerIter(b, func() {
		g := NewGenerator(testConfig(benchEvents))
		for g.Fill(slab[:]) > 0 {
		}
	})
}

// BenchmarkGenerateDrawsOnly is the floor for the two above: a hand-written
// loop that seeds each event's random stream and takes the steps the
// generator takes for that event (see drawsOnly), and builds nothing.
func BenchmarkGenerateDrawsOnly(b *testing.B) {
	c := testConfig(benchEvents)
	var sink uint64
	benchEventsPerIter(b, func() {
		for m := range int64(benchEvents) {
			sink += drawsOnly(c, m)
		}
	})
	if sink == 1 {
		b.Log(sink) // keep the draws
	}
}

// drawsOnly takes the random steps the generator takes for event m: 6 for
// a person, 10 for an auction (its seller is one more step 1 time in
// HotSellersRatio, which this leaves out), 5 for a bid. It returns their
// sum so that none can be left out, and finds the kind as the generator
// does, with one division.
func drawsOnly(c Config, m int64) uint64 {
	r := rngAt(mix64(c.Seed+golden), m)
	steps := 5
	y := c.cycles()
	switch y.kind(y.slotOf(m)) {
	case KindPerson:
		steps = 6
	case KindAuction:
		steps = 10
	}
	var sum uint64
	for range steps {
		sum += r.next()
	}
	return sum
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
				var slab [fillSlab]Event
				for s.Fill(slab[:]) > 0 {
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(benchEvents)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
