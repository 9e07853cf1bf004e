package network

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestItemQueueMatchesModel drives an itemQueue with pushes of data
// buffers, priority events and other events, and pops, against a model of
// two lists (the priority events, then everything else in order), through
// drains to empty, refills and bursts past keepItems.
func TestItemQueueMatchesModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q itemQueue
		var prio, rest []Item
		n := 0
		mk := func(kind int) Item {
			n++
			switch kind {
			case 0:
				return Item{Buf: []byte{byte(n)}}
			case 1:
				return Item{Event: CheckpointBarrier{ID: int64(n), Unaligned: true}}
			}
			return Item{Event: CheckpointBarrier{ID: int64(n)}}
		}
		dataIn := func(items []Item) (bufs [][]byte) {
			for _, it := range items {
				if it.Event == nil {
					bufs = append(bufs, it.Buf)
				}
			}
			return bufs
		}
		same := func(a, b Item) bool {
			if a.Event != nil || b.Event != nil {
				return a.Event == b.Event
			}
			return slices.Equal(a.Buf, b.Buf)
		}
		t.Repeat(map[string]func(*rapid.T){
			"push": func(t *rapid.T) {
				count := rapid.IntRange(1, 2*keepItems).Draw(t, "count")
				for range count {
					it := mk(rapid.IntRange(0, 2).Draw(t, "kind"))
					got := q.push(it)
					want := 0
					if it.Event != nil && IsPriority(it.Event) {
						want = len(dataIn(rest))
						prio = append(prio, it)
					} else {
						rest = append(rest, it)
					}
					if got != want {
						t.Fatalf("push overtook %d data buffers, want %d", got, want)
					}
				}
			},
			"pop": func(t *rapid.T) {
				count := rapid.IntRange(1, 2*keepItems).Draw(t, "count")
				for range count {
					it, ok := q.pop()
					var want Item
					switch {
					case len(prio) > 0:
						want, prio = prio[0], prio[1:]
					case len(rest) > 0:
						want, rest = rest[0], rest[1:]
					default:
						if ok {
							t.Fatalf("pop from an empty queue = %v", it)
						}
						return
					}
					if !ok || !same(it, want) {
						t.Fatalf("pop = %v, %v, want %v", it, ok, want)
					}
				}
			},
			"": func(t *rapid.T) {
				if q.len() != len(prio)+len(rest) {
					t.Fatalf("len = %d, want %d", q.len(), len(prio)+len(rest))
				}
				if q.headIsPriority() != (len(prio) > 0) {
					t.Fatalf("headIsPriority = %v with %d priority events", q.headIsPriority(), len(prio))
				}
				if q.data != len(dataIn(rest)) {
					t.Fatalf("data = %d, want %d", q.data, len(dataIn(rest)))
				}
				want := dataIn(rest)
				if got := q.dataAfterPriority(len(want)); !slices.EqualFunc(got, want, slices.Equal) {
					t.Fatalf("dataAfterPriority = %v, want %v", got, want)
				}
			},
		})
	})
}

// TestItemQueueReusesItsArray checks that a queue that drains after every
// push allocates nothing once it has an array.
func TestItemQueueReusesItsArray(t *testing.T) {
	var q itemQueue
	it := Item{Buf: []byte{1}}
	q.push(it)
	q.pop()
	allocs := testing.AllocsPerRun(100, func() {
		q.push(it)
		q.push(it)
		q.pop()
		q.pop()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per push, push, pop, pop; want 0", allocs)
	}
}
