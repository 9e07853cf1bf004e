package timer

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"testing"
)

// plainHeap is the baseline: container/heap over timers ordered by timestamp
// and registration order, with no deduplication and no delete.
type plainHeap []plainItem

type plainItem struct {
	ts  int64
	seq uint64
	key string
}

func (h plainHeap) Len() int { return len(h) }
func (h plainHeap) Less(i, j int) bool {
	return h[i].ts < h[j].ts || (h[i].ts == h[j].ts && h[i].seq < h[j].seq)
}
func (h plainHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *plainHeap) Push(x any)   { *h = append(*h, x.(plainItem)) }
func (h *plainHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// BenchmarkRegisterAndFire registers timers with random timestamps for string
// keys and fires them with one watermark advance per batch; one op is one
// register plus one fire. "service" is the deduplicating, deletable Service;
// "container-heap" is the plain heap, the floor for a binary heap.
func BenchmarkRegisterAndFire(b *testing.B) {
	for _, batch := range []int{1 << 10, 1 << 17} {
		rng := rand.New(rand.NewPCG(1, 2))
		keys := make([]string, 1000)
		for i := range keys {
			keys[i] = fmt.Sprint("key-", i)
		}
		type reg struct {
			ts  int64
			key string
		}
		regs := make([]reg, batch)
		for i := range regs {
			regs[i] = reg{ts: rng.Int64N(1 << 40), key: keys[rng.IntN(len(keys))]}
		}

		b.Run(fmt.Sprintf("batch=%d/service", batch), func(b *testing.B) {
			s := NewService[string, int]()
			fired := 0
			fire := func(Timer[string, int]) error { fired++; return nil }
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := regs[i]
				s.RegisterEventTimeTimer(r.key, 0, r.ts)
				if i++; i == batch {
					s.AdvanceWatermark(1<<40, fire)
					i = 0
				}
			}
			_ = fired
		})
		b.Run(fmt.Sprintf("batch=%d/container-heap", batch), func(b *testing.B) {
			var h plainHeap
			var seq uint64
			fired := 0
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r := regs[i]
				heap.Push(&h, plainItem{ts: r.ts, seq: seq, key: r.key})
				seq++
				if i++; i == batch {
					for h.Len() > 0 && h[0].ts <= 1<<40 {
						heap.Pop(&h)
						fired++
					}
					i = 0
				}
			}
			_ = fired
		})
	}
}

// BenchmarkWindowTimers is the shape of keyed windows: every key holds a
// timer at the end of its window, and a watermark fires a window's timers
// and registers each key's next one; few timestamps, many keys. One op is
// one timer fired and one registered.
func BenchmarkWindowTimers(b *testing.B) {
	type window struct{ Start, End int64 }
	for _, keys := range []int{1 << 10, 1 << 15} {
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			s := NewService[int64, window]()
			for k := range int64(keys) {
				s.RegisterEventTimeTimer(k, window{0, 10}, 9)
			}
			fire := func(t Timer[int64, window]) error {
				next := window{t.Namespace.Start + 2, t.Namespace.End + 2}
				s.RegisterEventTimeTimer(t.Key, next, next.End-1)
				return nil
			}
			b.ReportAllocs()
			wm, n := int64(9), 0
			for b.Loop() {
				if n++; n == keys {
					s.AdvanceWatermark(wm, fire)
					wm += 2
					n = 0
				}
			}
		})
	}
}

// BenchmarkEndOfTimeTimers is the word count's final stage: a fresh service
// per job, one timer at the end of time for each of many distinct string
// keys, then one watermark that fires them all. One op is one job.
func BenchmarkEndOfTimeTimers(b *testing.B) {
	for _, keys := range []int{1 << 10, 1 << 17} {
		names := make([]string, keys)
		for i := range names {
			names[i] = fmt.Sprintf("w%x", i*7919)
		}
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s := NewService[string, struct{}]()
				for _, k := range names {
					s.RegisterEventTimeTimer(k, struct{}{}, 1<<62)
				}
				fired := 0
				if err := s.AdvanceWatermark(1<<62, func(Timer[string, struct{}]) error { fired++; return nil }); err != nil {
					b.Fatal(err)
				}
				if fired != keys {
					b.Fatalf("fired %d timers, want %d", fired, keys)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*keys), "ns/timer")
		})
	}
}
