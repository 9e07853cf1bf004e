package weir

import (
	"time"

	"github.com/weir-engine/weir/internal/op"
)

// Per-split watermarks, as Flink's SourceOperator makes them: each split of
// a source subtask has its own watermark generator (the largest timestamp
// it emitted, less the strategy's out-of-orderness), and the subtask emits
// the least of them. A split that emitted nothing for
// WatermarkStrategy.Idleness is idle and no longer holds the others back,
// so one quiet Kafka partition does not stall event time; it counts again
// from its next element. The watermark only moves forward.
//
// When every split of a subtask is idle or finished, the subtask emits the
// highest watermark any of its splits reached: the runtime has no idle
// status to tell downstream operators not to wait for the subtask at all
// (Flink's WatermarkStatus), so a subtask whose splits are all quiet still
// holds the others back at that watermark. Give a source no more subtasks
// than it has active splits.

// splitOutputs implements ReaderOutput over the source's output.
type splitOutputs[T any] struct {
	out      op.Output[T]
	strategy *WatermarkStrategy[T] // nil: timestamps pass through, no watermarks
	timers   op.TimerScheduler
	splits   map[string]*splitOutput[T]
	emitted  int64
	// best is the highest watermark a split reached, released ones too.
	best int64
}

func newSplitOutputs[T any](out op.Output[T], w *WatermarkStrategy[T], timers op.TimerScheduler) *splitOutputs[T] {
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
	interval := m.strategy.Interval
	if interval <= 0 {
		interval = 200 * time.Millisecond
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
	wm, live := op.MaxWatermark, false
	for _, s := range m.splits {
		if tick {
			if s.active {
				s.active, s.idle, s.lastActive = false, false, now
			} else if m.strategy.Idleness > 0 && now.Sub(s.lastActive) >= m.strategy.Idleness {
				s.idle = true
			}
		}
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
	if wm <= m.emitted {
		return nil
	}
	m.emitted = wm
	return m.out.EmitWatermark(wm)
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
