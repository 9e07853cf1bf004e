package keyedop

import "fmt"

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
// in milliseconds.
type Assigner struct {
	Size, Slide, Offset int64
}

// Validate says why a is not an assigner of windows.
func (a Assigner) Validate() error {
	switch {
	case a.Size <= 0 || a.Slide <= 0:
		return fmt.Errorf("weir: window size %dms and slide %dms must be at least 1ms", a.Size, a.Slide)
	case a.Slide > a.Size:
		return fmt.Errorf("weir: window slide %dms is larger than its size %dms", a.Slide, a.Size)
	}
	return nil
}

// Assign appends the windows of a containing ts to dst, latest first.
func Assign[W WindowType](a Assigner, dst []W, ts int64) []W {
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
