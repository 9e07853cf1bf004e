package timer

import (
	"errors"
	"math"
	"slices"
	"testing"
)

type tm = Timer[string, int]

func tmr(ts int64, key string, ns int) tm { return tm{Timestamp: ts, Key: key, Namespace: ns} }

// collect returns a fire callback that appends to *out.
func collect(out *[]tm) func(tm) error {
	return func(t tm) error { *out = append(*out, t); return nil }
}

func TestFiringOrder(t *testing.T) {
	s := NewService[string, int]()
	// Registration order differs from timestamp order; ties fire in
	// registration order; a duplicate keeps the first registration's place.
	s.RegisterEventTimeTimer("b", 0, 20)
	s.RegisterEventTimeTimer("a", 0, 10)
	s.RegisterEventTimeTimer("c", 0, 20)
	s.RegisterEventTimeTimer("a", 1, 20)
	s.RegisterEventTimeTimer("b", 0, 20) // duplicate
	s.RegisterEventTimeTimer("z", 0, 30)
	if n := s.NumEventTimeTimers(); n != 5 {
		t.Fatalf("NumEventTimeTimers = %d, want 5", n)
	}
	want := []tm{tmr(10, "a", 0), tmr(20, "b", 0), tmr(20, "c", 0), tmr(20, "a", 1), tmr(30, "z", 0)}
	if got := slices.Collect(s.EventTimeTimers()); !slices.Equal(got, want) {
		t.Fatalf("EventTimeTimers = %v\nwant %v", got, want)
	}

	var fired []tm
	if err := s.AdvanceWatermark(20, collect(&fired)); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fired, want[:4]) {
		t.Fatalf("fired %v\nwant %v", fired, want[:4])
	}
	if s.CurrentWatermark() != 20 || s.NumEventTimeTimers() != 1 {
		t.Fatalf("watermark %d, %d pending", s.CurrentWatermark(), s.NumEventTimeTimers())
	}
}

func TestDelete(t *testing.T) {
	s := NewService[string, int]()
	for ts := range int64(10) {
		s.RegisterEventTimeTimer("k", 0, ts)
		s.RegisterProcessingTimeTimer("k", 0, ts)
	}
	for _, ts := range []int64{0, 5, 9, 42} { // 42 is not pending
		s.DeleteEventTimeTimer("k", 0, ts)
		s.DeleteProcessingTimeTimer("k", 0, ts)
	}
	s.DeleteEventTimeTimer("other", 0, 1)
	s.DeleteEventTimeTimer("k", 1, 1)
	want := []tm{tmr(1, "k", 0), tmr(2, "k", 0), tmr(3, "k", 0), tmr(4, "k", 0), tmr(6, "k", 0), tmr(7, "k", 0), tmr(8, "k", 0)}
	var ev, pt []tm
	s.AdvanceWatermark(math.MaxInt64, collect(&ev))
	s.AdvanceProcessingTime(math.MaxInt64, collect(&pt))
	if !slices.Equal(ev, want) || !slices.Equal(pt, want) {
		t.Fatalf("fired\n  event %v\n  proc  %v\nwant    %v", ev, pt, want)
	}
	// A deleted timer registered again is new: it goes behind its ties.
	s.RegisterEventTimeTimer("a", 0, 100)
	s.RegisterEventTimeTimer("b", 0, 100)
	s.DeleteEventTimeTimer("a", 0, 100)
	s.RegisterEventTimeTimer("a", 0, 100)
	if got := slices.Collect(s.EventTimeTimers()); !slices.Equal(got, []tm{tmr(100, "b", 0), tmr(100, "a", 0)}) {
		t.Fatalf("EventTimeTimers = %v", got)
	}
}

func TestTimersChangedDuringFiring(t *testing.T) {
	s := NewService[string, int]()
	s.RegisterEventTimeTimer("a", 0, 10)
	s.RegisterEventTimeTimer("b", 0, 15)
	s.RegisterEventTimeTimer("c", 0, 18)
	var fired []tm
	err := s.AdvanceWatermark(20, func(x tm) error {
		fired = append(fired, x)
		if got := s.CurrentWatermark(); got != 20 {
			t.Fatalf("CurrentWatermark in fire = %d, want 20", got)
		}
		switch x {
		case tmr(10, "a", 0):
			s.RegisterEventTimeTimer("due-early", 0, 12) // fires before b
			s.RegisterEventTimeTimer("due-late", 0, 20)  // deleted by b
			s.RegisterEventTimeTimer("past", 0, 5)       // below the firing timer: fires next
			s.RegisterEventTimeTimer("not-due", 0, 21)   // stays
			s.DeleteEventTimeTimer("c", 0, 18)           // never fires
			s.RegisterEventTimeTimer("a", 0, 25)         // itself again, later
		case tmr(15, "b", 0):
			s.DeleteEventTimeTimer("due-late", 0, 20)
			s.RegisterEventTimeTimer("b", 0, 20) // due: fires in this call
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []tm{tmr(10, "a", 0), tmr(5, "past", 0), tmr(12, "due-early", 0), tmr(15, "b", 0), tmr(20, "b", 0)}
	if !slices.Equal(fired, want) {
		t.Fatalf("fired %v\nwant  %v", fired, want)
	}
	if got := slices.Collect(s.EventTimeTimers()); !slices.Equal(got, []tm{tmr(21, "not-due", 0), tmr(25, "a", 0)}) {
		t.Fatalf("pending %v", got)
	}
}

func TestErrorStopsFiring(t *testing.T) {
	boom := errors.New("boom")
	for _, domain := range []string{"event", "processing"} {
		t.Run(domain, func(t *testing.T) {
			s := NewService[string, int]()
			register, advance := s.RegisterEventTimeTimer, s.AdvanceWatermark
			pending := s.EventTimeTimers
			if domain == "processing" {
				register = func(k string, ns int, ts int64) { s.RegisterProcessingTimeTimer(k, ns, ts) }
				advance, pending = s.AdvanceProcessingTime, s.ProcessingTimeTimers
			}
			for ts := int64(1); ts <= 5; ts++ {
				register("k", 0, ts)
			}
			var fired []tm
			err := advance(10, func(x tm) error {
				fired = append(fired, x)
				if x.Timestamp == 3 {
					register("new", 0, 4) // registered before the error: stays
					return boom
				}
				return nil
			})
			if !errors.Is(err, boom) {
				t.Fatalf("err = %v, want boom", err)
			}
			if !slices.Equal(fired, []tm{tmr(1, "k", 0), tmr(2, "k", 0), tmr(3, "k", 0)}) {
				t.Fatalf("fired %v", fired)
			}
			wantPending := []tm{tmr(4, "k", 0), tmr(4, "new", 0), tmr(5, "k", 0)}
			if got := slices.Collect(pending()); !slices.Equal(got, wantPending) {
				t.Fatalf("pending %v, want %v", got, wantPending)
			}
			// The service is usable afterwards: the rest fires.
			fired = nil
			if err := advance(10, collect(&fired)); err != nil || !slices.Equal(fired, wantPending) {
				t.Fatalf("second advance: err = %v, fired %v", err, fired)
			}
		})
	}
}

func TestReentrantAdvance(t *testing.T) {
	s := NewService[string, int]()
	s.RegisterEventTimeTimer("k", 0, 1)
	s.RegisterProcessingTimeTimer("k", 0, 1)
	var inner []error
	err := s.AdvanceWatermark(1, func(tm) error {
		inner = append(inner,
			s.AdvanceWatermark(2, collect(new([]tm))),
			s.AdvanceProcessingTime(2, collect(new([]tm))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range inner {
		if !errors.Is(e, ErrReentrantAdvance) {
			t.Fatalf("inner advance: err = %v, want ErrReentrantAdvance", e)
		}
	}
	// The flag is reset, also after a panicking callback.
	func() {
		defer func() { recover() }()
		s.RegisterEventTimeTimer("k", 0, 3)
		s.AdvanceWatermark(3, func(tm) error { panic("boom") })
	}()
	if err := s.AdvanceProcessingTime(1, collect(new([]tm))); err != nil {
		t.Fatalf("after callbacks returned: err = %v", err)
	}
}

func TestWatermark(t *testing.T) {
	s := NewService[string, int]()
	if s.CurrentWatermark() != math.MinInt64 {
		t.Fatalf("initial watermark %d", s.CurrentWatermark())
	}
	var fired []tm
	s.AdvanceWatermark(100, collect(&fired))
	// A timer at or below the watermark does not fire on registration, only
	// at the next advance.
	s.RegisterEventTimeTimer("late", 0, 50)
	s.RegisterEventTimeTimer("later", 0, 90)
	if len(fired) != 0 || s.NumEventTimeTimers() != 2 {
		t.Fatalf("fired %v on registration", fired)
	}
	// A lower watermark does not move the watermark back but fires what is
	// due at the value passed.
	s.AdvanceWatermark(60, collect(&fired))
	if s.CurrentWatermark() != 100 || !slices.Equal(fired, []tm{tmr(50, "late", 0)}) {
		t.Fatalf("watermark %d, fired %v", s.CurrentWatermark(), fired)
	}
	s.AdvanceWatermark(100, collect(&fired))
	if len(fired) != 2 || s.NumEventTimeTimers() != 0 {
		t.Fatalf("fired %v", fired)
	}
	// Extreme timestamps.
	s.RegisterEventTimeTimer("min", 0, math.MinInt64)
	s.RegisterEventTimeTimer("max", 0, math.MaxInt64)
	fired = nil
	s.AdvanceWatermark(math.MaxInt64, collect(&fired))
	if !slices.Equal(fired, []tm{tmr(math.MinInt64, "min", 0), tmr(math.MaxInt64, "max", 0)}) {
		t.Fatalf("fired %v", fired)
	}
}

func TestRegisterProcessingTimeTimerEarliestChanged(t *testing.T) {
	s := NewService[string, int]()
	steps := []struct {
		key      string
		ts       int64
		want     bool
		wantNext int64
	}{
		{"a", 100, true, 100},  // first timer
		{"b", 200, false, 100}, // later
		{"c", 100, false, 100}, // tie with the earliest
		{"a", 100, false, 100}, // duplicate
		{"d", 50, true, 50},    // earlier
		{"d", 50, false, 50},   // duplicate of the earliest
	}
	for _, st := range steps {
		if got := s.RegisterProcessingTimeTimer(st.key, 0, st.ts); got != st.want {
			t.Fatalf("register %s@%d: earliestChanged = %v, want %v", st.key, st.ts, got, st.want)
		}
		if next, ok := s.NextProcessingTime(); !ok || next != st.wantNext {
			t.Fatalf("after %s@%d: NextProcessingTime = %d, %v, want %d", st.key, st.ts, next, ok, st.wantNext)
		}
	}
	s.DeleteProcessingTimeTimer("d", 0, 50)
	if next, _ := s.NextProcessingTime(); next != 100 {
		t.Fatalf("after delete: NextProcessingTime = %d, want 100", next)
	}
	var fired []tm
	s.AdvanceProcessingTime(150, collect(&fired))
	if !slices.Equal(fired, []tm{tmr(100, "a", 0), tmr(100, "c", 0)}) {
		t.Fatalf("fired %v", fired)
	}
	if s.NumProcessingTimeTimers() != 1 || s.NumEventTimeTimers() != 0 {
		t.Fatalf("pending %d processing, %d event", s.NumProcessingTimeTimers(), s.NumEventTimeTimers())
	}
	s.AdvanceProcessingTime(200, collect(&fired))
	if _, ok := s.NextProcessingTime(); ok {
		t.Fatal("NextProcessingTime reports a timer after all fired")
	}
	if !s.RegisterProcessingTimeTimer("e", 0, 500) {
		t.Fatal("first timer after the queue drained must change the earliest")
	}
}

func TestStructNamespace(t *testing.T) {
	type window struct{ start, end int64 }
	s := NewService[int64, window]()
	w1, w2 := window{0, 10}, window{10, 20}
	s.RegisterEventTimeTimer(7, w2, w2.end-1)
	s.RegisterEventTimeTimer(7, w1, w1.end-1)
	s.RegisterEventTimeTimer(7, w1, w1.end-1)
	s.RegisterEventTimeTimer(8, w1, w1.end-1)
	var got []Timer[int64, window]
	s.AdvanceWatermark(math.MaxInt64, func(x Timer[int64, window]) error { got = append(got, x); return nil })
	want := []Timer[int64, window]{{9, 7, w1}, {9, 8, w1}, {19, 7, w2}}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}

func TestTimersIterationIsASnapshot(t *testing.T) {
	s := NewService[string, int]()
	for ts := range int64(5) {
		s.RegisterEventTimeTimer("k", 0, ts)
	}
	var seen []tm
	for x := range s.EventTimeTimers() {
		seen = append(seen, x)
		s.DeleteEventTimeTimer("k", 0, 4-x.Timestamp) // frees and reuses slots
		s.RegisterEventTimeTimer("new", 0, x.Timestamp)
	}
	want := []tm{tmr(0, "k", 0), tmr(1, "k", 0), tmr(2, "k", 0), tmr(3, "k", 0), tmr(4, "k", 0)}
	if !slices.Equal(seen, want) {
		t.Fatalf("seen %v", seen)
	}
	for range s.EventTimeTimers() {
		break
	}
}
