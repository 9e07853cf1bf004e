package timer

import (
	"errors"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// refQueue is the naive reference for queue: an unordered slice searched
// linearly, with the registration counter for ties.
type refQueue struct {
	timers []refTimer
	seq    int
}

type refTimer struct {
	t   tm
	seq int
}

func (q *refQueue) find(t tm) int {
	return slices.IndexFunc(q.timers, func(r refTimer) bool { return r.t == t })
}

func (q *refQueue) register(t tm) bool {
	if q.find(t) >= 0 {
		return false
	}
	q.timers = append(q.timers, refTimer{t, q.seq})
	q.seq++
	return true
}

func (q *refQueue) remove(t tm) {
	if i := q.find(t); i >= 0 {
		q.timers = slices.Delete(q.timers, i, i+1)
	}
}

func (q *refQueue) sorted() []tm {
	rs := slices.Clone(q.timers)
	slices.SortFunc(rs, func(a, b refTimer) int {
		if a.t.Timestamp != b.t.Timestamp {
			if a.t.Timestamp < b.t.Timestamp {
				return -1
			}
			return 1
		}
		return a.seq - b.seq
	})
	out := make([]tm, len(rs))
	for i, r := range rs {
		out[i] = r.t
	}
	return out
}

// advance fires due timers one at a time, re-sorting after every callback.
func (q *refQueue) advance(limit int64, fire func(tm) error) error {
	for {
		s := q.sorted()
		if len(s) == 0 || s[0].Timestamp > limit {
			return nil
		}
		q.remove(s[0])
		if err := fire(s[0]); err != nil {
			return err
		}
	}
}

// reaction is what a fire callback does on one call: register or delete a
// timer relative to the one firing, fail, or nothing.
type reaction struct {
	kind      int // 0 nothing, 1 register event, 2 register processing, 3 delete event, 4 delete processing, 5 fail
	key       string
	ns        int
	tsOffset  int64
	absoluteT bool // delete/register at an absolute small timestamp instead
}

var errReaction = errors.New("reaction failed")

// target is the subset of the service a reaction needs, so that the same
// reactions drive the service and the reference.
type target interface {
	regEvent(tm)
	regProc(tm)
	delEvent(tm)
	delProc(tm)
}

func (r reaction) apply(x tm, on target) error {
	ts := x.Timestamp + r.tsOffset
	if r.absoluteT {
		ts = r.tsOffset
	}
	t := tmr(ts, r.key, r.ns)
	switch r.kind {
	case 1:
		on.regEvent(t)
	case 2:
		on.regProc(t)
	case 3:
		on.delEvent(t)
	case 4:
		on.delProc(t)
	case 5:
		return errReaction
	}
	return nil
}

type serviceTarget struct{ s *Service[string, int] }

func (a serviceTarget) regEvent(t tm) { a.s.RegisterEventTimeTimer(t.Key, t.Namespace, t.Timestamp) }
func (a serviceTarget) regProc(t tm) {
	a.s.RegisterProcessingTimeTimer(t.Key, t.Namespace, t.Timestamp)
}
func (a serviceTarget) delEvent(t tm) { a.s.DeleteEventTimeTimer(t.Key, t.Namespace, t.Timestamp) }
func (a serviceTarget) delProc(t tm)  { a.s.DeleteProcessingTimeTimer(t.Key, t.Namespace, t.Timestamp) }

type refTarget struct{ ev, pt *refQueue }

func (a refTarget) regEvent(t tm) { a.ev.register(t) }
func (a refTarget) regProc(t tm)  { a.pt.register(t) }
func (a refTarget) delEvent(t tm) { a.ev.remove(t) }
func (a refTarget) delProc(t tm)  { a.pt.remove(t) }

// TestServiceMatchesReference runs random register / delete / advance
// sequences, with callbacks that register, delete and fail, against the
// service and the sorted-slice reference, and compares what fires, what
// stays pending and every reported value.
func TestServiceMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := NewService[string, int]()
		ev, pt := &refQueue{}, &refQueue{}
		refWM := int64(math.MinInt64)

		// Up to 24 timers at a timestamp: buckets both scanned and
		// indexed (smallBucket), and many duplicates.
		keyGen := rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"})
		nsGen := rapid.IntRange(0, 1)
		tsGen := rapid.Int64Range(0, 30) // small: many ties and duplicates
		timerGen := rapid.Custom(func(t *rapid.T) tm {
			return tmr(tsGen.Draw(t, "ts"), keyGen.Draw(t, "key"), nsGen.Draw(t, "ns"))
		})
		reactionGen := rapid.Custom(func(t *rapid.T) reaction {
			return reaction{
				kind:      rapid.IntRange(0, 5).Draw(t, "kind"),
				key:       keyGen.Draw(t, "key"),
				ns:        nsGen.Draw(t, "ns"),
				tsOffset:  rapid.Int64Range(-3, 6).Draw(t, "offset"),
				absoluteT: rapid.Bool().Draw(t, "absolute"),
			}
		})

		// advanceBoth runs one advance on both sides with the same reactions.
		advanceBoth := func(t *rapid.T, event bool) {
			limit := rapid.Int64Range(-1, 35).Draw(t, "limit")
			reactions := rapid.SliceOfN(reactionGen, 0, 8).Draw(t, "reactions")
			fireWith := func(on target, fired *[]tm) func(tm) error {
				n := 0
				return func(x tm) error {
					*fired = append(*fired, x)
					n++
					if n <= len(reactions) {
						return reactions[n-1].apply(x, on)
					}
					return nil
				}
			}
			var got, want []tm
			var gotErr, wantErr error
			if event {
				gotErr = s.AdvanceWatermark(limit, fireWith(serviceTarget{s}, &got))
				refWM = max(refWM, limit)
				wantErr = ev.advance(limit, fireWith(refTarget{ev, pt}, &want))
			} else {
				gotErr = s.AdvanceProcessingTime(limit, fireWith(serviceTarget{s}, &got))
				wantErr = pt.advance(limit, fireWith(refTarget{ev, pt}, &want))
			}
			if gotErr != wantErr {
				t.Fatalf("advance(%d): err = %v, want %v", limit, gotErr, wantErr)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("advance(%d) fired\n  %v\nwant\n  %v", limit, got, want)
			}
		}

		t.Repeat(map[string]func(*rapid.T){
			"registerEvent": func(t *rapid.T) {
				x := timerGen.Draw(t, "t")
				s.RegisterEventTimeTimer(x.Key, x.Namespace, x.Timestamp)
				ev.register(x)
			},
			"registerProcessing": func(t *rapid.T) {
				x := timerGen.Draw(t, "t")
				before := pt.sorted()
				got := s.RegisterProcessingTimeTimer(x.Key, x.Namespace, x.Timestamp)
				added := pt.register(x)
				want := added && (len(before) == 0 || x.Timestamp < before[0].Timestamp)
				if got != want {
					t.Fatalf("RegisterProcessingTimeTimer(%v) = %v, want %v", x, got, want)
				}
			},
			"deleteEvent": func(t *rapid.T) {
				x := timerGen.Draw(t, "t")
				s.DeleteEventTimeTimer(x.Key, x.Namespace, x.Timestamp)
				ev.remove(x)
			},
			"deleteProcessing": func(t *rapid.T) {
				x := timerGen.Draw(t, "t")
				s.DeleteProcessingTimeTimer(x.Key, x.Namespace, x.Timestamp)
				pt.remove(x)
			},
			"advanceWatermark":      func(t *rapid.T) { advanceBoth(t, true) },
			"advanceProcessingTime": func(t *rapid.T) { advanceBoth(t, false) },
			"": func(t *rapid.T) {
				if s.CurrentWatermark() != refWM {
					t.Fatalf("CurrentWatermark = %d, want %d", s.CurrentWatermark(), refWM)
				}
				wantEv, wantPt := ev.sorted(), pt.sorted()
				if got := slices.Collect(s.EventTimeTimers()); !slices.Equal(got, wantEv) {
					t.Fatalf("EventTimeTimers\n  %v\nwant\n  %v", got, wantEv)
				}
				if got := slices.Collect(s.ProcessingTimeTimers()); !slices.Equal(got, wantPt) {
					t.Fatalf("ProcessingTimeTimers\n  %v\nwant\n  %v", got, wantPt)
				}
				if s.NumEventTimeTimers() != len(wantEv) || s.NumProcessingTimeTimers() != len(wantPt) {
					t.Fatalf("Num = %d, %d, want %d, %d", s.NumEventTimeTimers(), s.NumProcessingTimeTimers(), len(wantEv), len(wantPt))
				}
				next, ok := s.NextProcessingTime()
				if ok != (len(wantPt) > 0) || (ok && next != wantPt[0].Timestamp) {
					t.Fatalf("NextProcessingTime = %d, %v, want %v", next, ok, wantPt)
				}
			},
		})
	})
}

// TestQueueHeapInvariant checks the buckets' heap property, their pending
// counts and their indexes after random pushes, pops (some pushed again at
// once) and removals of pending timers,
// the things the behaviour test sees only indirectly. Timestamps come from
// a small range, so buckets hold many timers and get compacted.
func TestQueueHeapInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue[int, int]
		var pending []Timer[int, int]
		n := rapid.IntRange(0, 300).Draw(t, "n")
		for i := range n {
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); {
			case len(pending) > 0 && op == 0:
				j := rapid.IntRange(0, len(pending)-1).Draw(t, "victim")
				if !q.remove(pending[j]) {
					t.Fatalf("remove(%v) of a pending timer = false", pending[j])
				}
				pending = slices.Delete(pending, j, j+1)
			case len(pending) > 0 && op == 1:
				// Fire the earliest, and maybe register it again at
				// once: its bucket still holds its stale entry.
				x := q.pop()
				j := slices.Index(pending, x)
				if j < 0 {
					t.Fatalf("pop() = %v, not pending", x)
				}
				pending = slices.Delete(pending, j, j+1)
				if rapid.Bool().Draw(t, "again") {
					if !q.push(x) {
						t.Fatalf("push(%v) of a fired timer = false", x)
					}
					pending = append(pending, x)
				}
			case len(pending) > 0 && op == 2 && rapid.IntRange(0, 3).Draw(t, "other-ns") == 0:
				// The same key in the other namespace is another timer.
				y := pending[rapid.IntRange(0, len(pending)-1).Draw(t, "of")]
				y.Namespace = 1 - y.Namespace
				if !slices.Contains(pending, y) {
					if !q.push(y) {
						t.Fatalf("push(%v), whose key is pending in namespace %d only = false", y, 1-y.Namespace)
					}
					pending = append(pending, y)
				}
			default:
				// Mostly namespace 0, as a window's end is every key's
				// timer for one window: buckets indexed by key alone, and
				// some that a second namespace turns to key and namespace.
				ns := 0
				if rapid.IntRange(0, 15).Draw(t, "ns") == 0 {
					ns = 1
				}
				x := Timer[int, int]{Timestamp: rapid.Int64Range(0, 8).Draw(t, "ts"), Key: i, Namespace: ns}
				if !q.push(x) {
					t.Fatalf("push(%v) of a new timer = false", x)
				}
				pending = append(pending, x)
			}
			live := 0
			for i, b := range q.times {
				if i > 0 && b.ts < q.times[(i-1)/2].ts {
					t.Fatalf("heap property broken at %d", i)
				}
				if b.pos != i || q.buckets[b.ts] != b {
					t.Fatalf("bucket %d (ts %d) at pos %d, indexed %p", i, b.ts, b.pos, q.buckets[b.ts])
				}
				n := 0
				for _, e := range b.entries[b.head:] {
					if sl := q.slot(e.slot); sl.gen == e.gen && sl.b == b {
						if sl.timer.Timestamp != b.ts {
							t.Fatalf("timer %v in the bucket of %d", sl.timer, b.ts)
						}
						if got, ok := q.find(b, keyNS[int, int]{sl.timer.Key, sl.timer.Namespace}); !ok || got != e {
							t.Fatalf("timer %v: found %v %v, want %v (indexed %v)", sl.timer, got, ok, e, b.indexed)
						}
						n++
					}
				}
				if !b.indexed && len(b.entries)-b.head > smallBucket {
					t.Fatalf("bucket of %d: %d entries to scan, no index", b.ts, len(b.entries)-b.head)
				}
				if n != b.live || n == 0 {
					t.Fatalf("bucket of %d: %d pending, live %d", b.ts, n, b.live)
				}
				live += n
			}
			for _, x := range pending {
				if q.push(x) {
					t.Fatalf("push(%v) of a pending timer = true", x)
				}
			}
			if q.len() != len(pending) || live != len(pending) || len(q.buckets) != len(q.times) || int(q.used) != live+len(q.free) {
				t.Fatalf("len %d, bucketed %d, pending %d, buckets %d/%d, slots %d, free %d",
					q.len(), live, len(pending), len(q.buckets), len(q.times), q.used, len(q.free))
			}
		}
	})
}
