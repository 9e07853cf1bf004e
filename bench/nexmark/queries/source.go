package queries

import (
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
)

// split is the part of the stream one source subtask reads, and its own
// checkpointed position: the stream cut into blocks of Block consecutive
// events, dealt round-robin over Step subtasks, below End; Next is the
// next event the split emits. A Block of 0 or 1 is single events dealt
// round-robin (positions Next, Next+Step, ...), as checkpoints taken
// before blocks hold.
type split struct {
	Next, Step, End int64
	Block           int64
}

// BlockEvents is how many consecutive events of the stream one source
// subtask generates before it skips the other subtasks' blocks: 2 s of
// event time at the default rate (one q5 pane), far more than the events
// between an auction and the bids on it (a bid names the hot auction or
// one of the last 100 auctions, about 1,700 events back). So at any
// parallelism a subtask's bids name mostly its own subtask's auctions and
// its panes hold mostly its own bids, as in Flink's Nexmark source, where
// each subtask generates its own auctions on its own timeline, while the
// stream stays the same at every parallelism (the results are checked
// against the reference), and the subtasks' event times stay within a
// block of each other. A stream shorter than one block per subtask
// leaves some subtasks without events.
const BlockEvents = 20_000

// splits is Source's splits of the first end events for p subtasks, in
// blocks of block events.
func splits(p int, end, block int64) []split {
	s := make([]split, p)
	for i := range s {
		s[i] = split{Next: int64(i) * block, Step: int64(p), End: end, Block: block}
	}
	return s
}

// progress is how many events of s were emitted and how many it holds.
func (s *split) progress() (done, total int64) {
	b := max(s.Block, 1)
	i := s.Next / b % s.Step // the split's index: Next is always in one of its blocks
	return s.below(s.Next, i, b), s.below(s.End, i, b)
}

// below counts the events before n in the blocks of size b that the split
// of index i gets.
func (s *split) below(n, i, b int64) int64 {
	cycle := b * s.Step
	return n/cycle*b + min(max(n%cycle-i*b, 0), b)
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
			return splits(p, end, BlockEvents), nil
		},
		Read:          readEvents(cfg),
		Fill:          fillEvents(cfg),
		RatePerSecond: opts.Rate,
		Progress:      (*split).progress,
	})
	w := weir.BoundedOutOfOrderness(OutOfOrderness(cfg), EventTime)
	w.PerElement = opts.PerElementWatermarks
	if opts.WatermarkInterval > 0 {
		w.Interval = opts.WatermarkInterval
	}
	return weir.AssignTimestampsAndWatermarks(events, w)
}

// slabEvents is how many events Read generates at a time: a slab of
// 10 KiB, which stays in the L1 cache between being filled and emitted.
const slabEvents = 64

// readEvents is the source's Read: it fills a slab on its stack with
// Config.EventsAt and emits from it, so generating an event costs its own
// draws and fields only (what depends on the Config is worked out once per
// slab) and allocates nothing.
func readEvents(cfg nexmark.Config) func(*split, int, func(nexmark.Event) error) (bool, error) {
	return func(s *split, budget int, emit func(nexmark.Event) error) (bool, error) {
		var slab [slabEvents]nexmark.Event
		for budget > 0 && s.Next < s.End {
			n := s.fill(cfg, slab[:min(budget, slabEvents)])
			for i := range n {
				if err := emit(slab[i]); err != nil {
					return false, err
				}
			}
			budget -= n
		}
		return s.Next >= s.End, nil
	}
}

// fillEvents is the source's Fill: Config.EventsAt writes the events
// straight into the batch the source hands to the operators chained to
// it, with no copy and no call per event.
func fillEvents(cfg nexmark.Config) func(*split, []nexmark.Event) (int, bool, error) {
	return func(s *split, buf []nexmark.Event) (int, bool, error) {
		n := 0
		for n < len(buf) && s.Next < s.End {
			n += s.fill(cfg, buf[n:])
		}
		return n, s.Next >= s.End, nil
	}
}

// fill generates the split's next events into buf, up to the end of the
// split's current block or of the split (for a split of single events
// dealt round-robin, Block <= 1: every Step-th event up to its end),
// moves the split past them and returns how many it wrote. The split must
// not be at its end.
func (s *split) fill(cfg nexmark.Config, buf []nexmark.Event) int {
	if s.Block <= 1 {
		n := min(int64(len(buf)), (s.End-s.Next+s.Step-1)/s.Step)
		cfg.EventsAt(buf[:n], s.Next, s.Step)
		s.Next += n * s.Step
		return int(n)
	}
	n := min(int64(len(buf)), s.End-s.Next, s.Block-s.Next%s.Block)
	cfg.EventsAt(buf[:n], s.Next, 1)
	if s.Next += n; s.Next%s.Block == 0 {
		s.Next += (s.Step - 1) * s.Block // the other subtasks' blocks
	}
	return int(n)
}

// endOfInput is the timer time that only the final watermark of a bounded
// input reaches.
const endOfInput int64 = 1<<63 - 1
