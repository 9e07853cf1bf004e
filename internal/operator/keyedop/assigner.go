package keyedop

import (
	"fmt"
	"math"
)

// Window is an event-time interval [Start, End) in milliseconds: package
// weir's TimeWindow has this underlying type, and the window operator is
// generic over the type it is instantiated with, so that its state and
// timers hold weir.TimeWindow values as they always did.
type Window = struct{ Start, End int64 }

// WindowType is a type whose underlying type is Window.
type WindowType interface{ ~struct{ Start, End int64 } }

// MaxTimestamp is the last millisecond of w; the window fires when the
// watermark reaches it.
func MaxTimestamp[W WindowType](w W) int64 { return Window(w).End - 1 }

// Assigner puts a timestamp into windows of Size starting every Slide
// (Size for tumbling windows), aligned to the epoch shifted by Offset; all
// in milliseconds. With Session set it assigns session windows [ts, ts+Gap)
// instead, which merge when they overlap; with Global set, every element
// goes to the one GlobalWindow. Processing makes the windows follow the
// wall clock instead of event time.
type Assigner struct {
	Size, Slide, Offset int64
	Session             bool
	Gap                 int64
	Global              bool
	Processing          bool
}

// GlobalWindow is the one window of a global assigner: it never ends, so
// only a custom trigger fires it.
var GlobalWindow = Window{Start: math.MinInt64, End: math.MaxInt64}

// Merging reports whether a's windows merge (session windows).
func (a Assigner) Merging() bool { return a.Session }

// EventTime reports whether a's windows follow event time (and fire, by
// default, on watermarks).
func (a Assigner) EventTime() bool { return !a.Processing && !a.Global }

// Validate says why a is not an assigner of windows.
func (a Assigner) Validate() error {
	switch {
	case a.Global:
		return nil
	case a.Session && a.Gap <= 0:
		return fmt.Errorf("weir: session gap %dms must be at least 1ms", a.Gap)
	case a.Session:
		return nil
	case a.Size <= 0 || a.Slide <= 0:
		return fmt.Errorf("weir: window size %dms and slide %dms must be at least 1ms", a.Size, a.Slide)
	case a.Slide > a.Size:
		return fmt.Errorf("weir: window slide %dms is larger than its size %dms", a.Slide, a.Size)
	}
	return nil
}

// Assign appends the windows of a containing ts to dst, latest first.
func Assign[W WindowType](a Assigner, dst []W, ts int64) []W {
	switch {
	case a.Global:
		return append(dst, W(GlobalWindow))
	case a.Session:
		return append(dst, W(Window{Start: ts, End: ts + a.Gap}))
	}
	last := ts - floorMod(ts-a.Offset, a.Slide)
	for start := last; start > ts-a.Size; start -= a.Slide {
		dst = append(dst, W(Window{Start: start, End: start + a.Size}))
	}
	return dst
}

func floorMod(x, m int64) int64 {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}
