package timer_test

import (
	"fmt"

	"github.com/weir-engine/weir/internal/timer"
)

// A window operator registers a timer at the end of each key's window and
// emits the window when the watermark passes it.
func Example() {
	type window struct{ start, end int64 }
	s := timer.NewService[string, window]()

	w := window{0, 10}
	s.RegisterEventTimeTimer("k1", w, w.end-1)
	s.RegisterEventTimeTimer("k2", w, w.end-1)
	s.RegisterEventTimeTimer("k1", w, w.end-1) // the same timer: kept once

	fire := func(t timer.Timer[string, window]) error {
		fmt.Printf("fire %s window [%d, %d) at watermark %d\n",
			t.Key, t.Namespace.start, t.Namespace.end, s.CurrentWatermark())
		return nil
	}
	if err := s.AdvanceWatermark(5, fire); err != nil { // nothing due
		panic(err)
	}
	if err := s.AdvanceWatermark(12, fire); err != nil {
		panic(err)
	}
	fmt.Println("pending:", s.NumEventTimeTimers())
	// Output:
	// fire k1 window [0, 10) at watermark 12
	// fire k2 window [0, 10) at watermark 12
	// pending: 0
}
