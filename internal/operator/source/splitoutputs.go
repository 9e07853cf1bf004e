package source

import (
	"time"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/watermark"
)

// Per-split watermarks, as Flink's SourceOperator makes them: each split of
// a source subtask has its own watermark generator (the largest timestamp
// it emitted, less the strategy's out-of-orderness), and the subtask emits
// the least of them. A split that emitted nothing for
// WatermarkStrategy.Idleness is idle and no longer holds the others back,
// so one quiet Kafka partition does not stall event time; it counts again
// from its next element. The watermark only moves forward.
//
// When every split of a subtask is idle (or, for Idleness, it had none),
// the subtask emits the highest watermark any of its splits reached and
// then tells downstream operators that it is IDLE (Flink's
// WatermarkStatus): they compute their watermark over their other inputs
// and no longer wait for this subtask. Before its next record or watermark
// it tells them it is ACTIVE again; its watermark then counts downstream
// only once it caught up with theirs, so it never moves event time back.

// splitOutputs implements ReaderOutput over the source's output.
type splitOutputs[T any] struct {
	out      op.Output[T]
	strategy *watermark.Strategy[T] // nil: timestamps pass through, no watermarks
	timers   op.TimerScheduler
	splits   map[string]*splitOutput[T]
	emitted  int64
	// best is the highest watermark a split reached, released ones too.
	best int64
	// status announces IDLE (true) or ACTIVE (false) downstream, nil when
	// the runtime does not take it; idle is the status announced last and
	// liveSince the start, or the last tick at which a split was live.
	status    func(idle bool) error
	idle      bool
	liveSince time.Time
}

func newSplitOutputs[T any](out op.Output[T], w *watermark.Strategy[T], timers op.TimerScheduler) *splitOutputs[T] {
	return &splitOutputs[T]{out: out, strategy: w, timers: timers, splits: map[string]*splitOutput[T]{}, emitted: op.MinWatermark, best: op.MinWatermark}
}

// start schedules the periodic watermark (and idleness) check.
func (m *splitOutputs[T]) start() {
	if m.strategy == nil {
		return
	}
	if m.strategy.PerElement && m.strategy.Idleness <= 0 {
		return
	}
	m.liveSince = m.timers.Now()
	interval := m.strategy.Interval
	if interval <= 0 {
		interval = watermark.DefaultInterval
	}
	var tick func() error
	tick = func() error {
		m.timers.Schedule(m.timers.Now().Add(interval), tick)
		return m.emit(m.timers.Now(), true)
	}
	m.timers.Schedule(m.timers.Now().Add(interval), tick)
}

func (m *splitOutputs[T]) ForSplit(id string) SplitOutput[T] {
	if s, ok := m.splits[id]; ok {
		return s
	}
	s := &splitOutput[T]{m: m, maxTS: op.MinWatermark}
	if m.timers != nil {
		s.lastActive = m.timers.Now()
	}
	m.splits[id] = s
	return s
}

func (m *splitOutputs[T]) ReleaseSplit(id string) {
	if s, ok := m.splits[id]; ok && m.strategy != nil {
		m.best = max(m.best, m.watermark(s))
	}
	delete(m.splits, id)
}

// watermark is the watermark split s allows.
func (m *splitOutputs[T]) watermark(s *splitOutput[T]) int64 {
	if s.maxTS == op.MinWatermark {
		return op.MinWatermark
	}
	return s.maxTS - m.strategy.OutOfOrderness.Milliseconds() - 1
}

// emit emits the least watermark of the splits that are not idle, if it
// advanced. On a periodic tick it also updates which splits are idle.
func (m *splitOutputs[T]) emit(now time.Time, tick bool) error {
	if tick {
		for _, s := range m.splits {
			if s.active {
				s.active, s.idle, s.lastActive = false, false, now
			} else if m.strategy.Idleness > 0 && now.Sub(s.lastActive) >= m.strategy.Idleness {
				s.idle = true
			}
		}
	}
	wm, live := m.current()
	if live && tick {
		m.liveSince = now
	}
	if wm > m.emitted {
		if err := m.activate(); err != nil {
			return err
		}
		m.emitted = wm
		if err := m.out.EmitWatermark(wm); err != nil {
			return err
		}
	}
	if tick && !live && m.quiet(now) && !m.idle && m.status != nil {
		m.idle = true
		return m.status(true)
	}
	return nil
}

// current is the subtask's watermark as of the elements emitted so far:
// the least of its splits that are not idle (live), or, when none is live,
// the highest any split reached.
func (m *splitOutputs[T]) current() (wm int64, live bool) {
	wm = op.MaxWatermark
	for _, s := range m.splits {
		w := m.watermark(s)
		m.best = max(m.best, w)
		if s.idle {
			continue
		}
		live = true
		wm = min(wm, w)
	}
	if !live {
		wm = m.best
	}
	return wm, live
}

// quiet reports whether a subtask that has no live split is idle: at once
// when it has splits (each was quiet for Idleness), after Idleness without
// any split otherwise. With Idleness 0 a subtask is never idle.
func (m *splitOutputs[T]) quiet(now time.Time) bool {
	idleness := m.strategy.Idleness
	return idleness > 0 && (len(m.splits) > 0 || now.Sub(m.liveSince) >= idleness)
}

// activate announces ACTIVE if the subtask announced IDLE, before a record
// or a watermark.
func (m *splitOutputs[T]) activate() error {
	if !m.idle {
		return nil
	}
	m.idle = false
	return m.status(false)
}

// splitOutput is the output of one split.
type splitOutput[T any] struct {
	m          *splitOutputs[T]
	maxTS      int64
	active     bool // emitted since the last tick
	idle       bool
	lastActive time.Time
}

func (s *splitOutput[T]) Collect(ts int64, v T) error {
	w := s.m.strategy
	if w == nil {
		return s.m.out.Collect(ts, v)
	}
	if w.Timestamp != nil {
		ts = w.Timestamp(v)
	}
	advanced := ts > s.maxTS
	if advanced {
		s.maxTS = ts
	}
	s.active = true
	if err := s.m.activate(); err != nil {
		return err
	}
	if s.idle {
		s.idle = false
		s.lastActive = s.m.timers.Now()
	}
	if err := s.m.out.Collect(ts, v); err != nil {
		return err
	}
	if w.PerElement && advanced {
		return s.m.emit(time.Time{}, false)
	}
	return nil
}

// SetWatermarkStatus implements task.WatermarkStatusSource: the reader's
// split outputs announce when the subtask is idle.
func (s *readerSourceOp[T, S]) SetWatermarkStatus(announce func(idle bool) error) {
	s.status = announce
}
