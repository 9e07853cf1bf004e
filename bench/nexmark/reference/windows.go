package reference

const (
	// WindowSize is the length in ms of q5's sliding windows and of q7's and
	// q8's tumbling windows: the reference's windowSizeSec of 10.
	WindowSize int64 = 10_000
	// Q5Slide is the period in ms at which q5's sliding windows start.
	Q5Slide int64 = 2_000
)

// WindowStart returns the start of the window of the given size that holds
// event time ts: the greatest multiple of size not after ts. Windows are
// aligned to the Unix epoch, include their start and exclude their end
// (start+size), and this rounds down for negative ts too.
func WindowStart(ts, size int64) int64 {
	r := ts % size
	if r < 0 {
		r += size
	}
	return ts - r
}

// SlidingWindowStarts calls f with the start of every window of the given
// size and slide that holds ts, earliest first: the starts s that are
// multiples of slide with s <= ts < s+size. size must be a positive multiple
// of slide, so there are size/slide of them.
func SlidingWindowStarts(ts, size, slide int64, f func(start int64)) {
	last := WindowStart(ts, slide)
	for s := last - size + slide; s <= last; s += slide {
		f(s)
	}
}
