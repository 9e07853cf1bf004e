package queries

import (
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
)

// split is the part of the stream one source subtask reads: positions
// Next, Next+Step, ... below End. It is its own checkpointed position.
type split struct {
	Next, Step, End int64
}

// OutOfOrderness is the watermark bound for cfg's stream read by any number
// of subtasks: the event-time span of one out-of-order group plus one
// inter-event delay, rounded up to whole ms. Within one subtask an event
// trails the largest time seen by less than that, so no event is late.
func OutOfOrderness(cfg nexmark.Config) time.Duration {
	delayUs := 1_000_000 / cfg.FirstEventRate
	ms := (cfg.OutOfOrderGroupSize*delayUs+999)/1000 + 1
	return time.Duration(ms) * time.Millisecond
}

// EventTime returns e's event time (Event.Timestamp), for watermark
// strategies.
func EventTime(e nexmark.Event) int64 { return e.Timestamp() }

// SourceOptions tune Source.
type SourceOptions struct {
	// Rate, when positive, limits the emission to that many events per
	// second over all subtasks.
	Rate float64
	// PerElementWatermarks emits a watermark after every event that advances
	// it instead of every 200ms: costly, but it makes timers and windows fire
	// throughout a short test run rather than all at its end.
	PerElementWatermarks bool
	// WatermarkInterval, when positive, replaces the 200ms between periodic
	// watermarks; a long one leaves the final watermark alone to close the
	// windows.
	WatermarkInterval time.Duration
}

// Source is cfg's event stream with event timestamps and watermarks.
// cfg.NumEvents must be set (the queries answer bounded streams).
func Source(env *weir.Env, cfg nexmark.Config, opts SourceOptions) weir.DataStream[nexmark.Event] {
	end := cfg.NumEvents
	events := weir.FromSplits(env, weir.SplitSource[nexmark.Event, split]{
		Name: "nexmark",
		Splits: func(p int) ([]split, error) {
			if err := cfg.Validate(); err != nil {
				return nil, err
			}
			s := make([]split, p)
			for i := range s {
				s[i] = split{Next: int64(i), Step: int64(p), End: end}
			}
			return s, nil
		},
		NewReader: func() weir.SplitReader[nexmark.Event, split] {
			return &reader{cfg: cfg}
		},
		RatePerSecond: opts.Rate,
		Progress: func(s *split) (int64, int64) {
			// The split holds events first, first+Step, ... below End,
			// with first = Next mod Step (first < Step).
			first := s.Next % s.Step
			return s.Next / s.Step, max(s.End-first+s.Step-1, 0) / s.Step
		},
	})
	w := weir.BoundedOutOfOrderness(OutOfOrderness(cfg), EventTime)
	w.PerElement = opts.PerElementWatermarks
	if opts.WatermarkInterval > 0 {
		w.Interval = opts.WatermarkInterval
	}
	return weir.AssignTimestampsAndWatermarks(events, w)
}

// slabEvents is how many events a reader generates at a time: a slab of
// 10 KiB, which stays in the L1 cache between being filled and emitted.
const slabEvents = 64

// reader is one source subtask's reader: it fills a reused slab with
// Config.EventsAt and emits from it, so generating an event costs its own
// draws and fields only (what depends on the Config is worked out once per
// slab) and allocates nothing.
type reader struct {
	cfg  nexmark.Config
	slab [slabEvents]nexmark.Event
}

// Read emits up to budget events of s, a slab at a time.
func (r *reader) Read(s *split, budget int, emit func(nexmark.Event) error) (bool, error) {
	for budget > 0 && s.Next < s.End {
		n := int(min(int64(min(budget, slabEvents)), (s.End-s.Next+s.Step-1)/s.Step))
		slab := r.slab[:n]
		r.cfg.EventsAt(slab, s.Next, s.Step)
		for i := range slab {
			if err := emit(slab[i]); err != nil {
				return false, err
			}
			s.Next += s.Step
		}
		budget -= n
	}
	return s.Next >= s.End, nil
}

// Close releases nothing: a reader holds no resources.
func (*reader) Close() error { return nil }

// endOfInput is the timer time that only the final watermark of a bounded
// input reaches.
const endOfInput int64 = 1<<63 - 1
