package task

import (
	"sync"
	"sync/atomic"
	"time"
)

// The task's metrics, as Flink's task IO metric group has them. Records
// are counted as they are delivered and emitted. Time is measured only
// where the mailbox loop blocks, never per record (Flink measures its
// idle and back-pressured time the same way, around the waits): the loop
// has one place where it waits (loop.go), and what it waits for decides
// the kind of time. Waiting while every output can take more is idle
// (waiting for input, a timer or mail); waiting because an output
// partition has no room (no buffer, no credit downstream) is
// back-pressured time. Busy time is the rest of the wall-clock time. The
// per-second rates are computed by whoever samples the counters
// (LoadSampler), not by the task.

// Metrics are the task's counters, readable from any goroutine.
type Metrics struct {
	RecordsIn, RecordsOut atomic.Int64
	// LastSnapshot is the id of the last checkpoint the task took its
	// snapshot for.
	LastSnapshot atomic.Int64
	// InputWatermark is the combined watermark of the task's inputs
	// (op.MinWatermark before the first; a source task keeps it).
	InputWatermark atomic.Int64
	// SourceEmitted and SourceTotal are a source task's progress through
	// its input, as its op.SizedSource reports it (SourceTotal -1: the
	// source does not know its size; both 0 in a task that is no source).
	SourceEmitted, SourceTotal atomic.Int64

	// waits is the time the loop waited: taken once per wait, not per
	// record, and read by Sample.
	waits struct {
		sync.Mutex
		idle, backPressured time.Duration
		// since is when the current wait started (zero: none);
		// backPressured tells its kind.
		since             time.Time
		sinceBackPressure bool
	}
}

// startWait notes that the loop starts waiting, for its output
// (backPressured) or for anything else.
func (m *Metrics) startWait(backPressured bool) {
	m.waits.Lock()
	defer m.waits.Unlock()
	m.waits.since, m.waits.sinceBackPressure = time.Now(), backPressured
}

// endWait accounts for the wait that startWait started.
func (m *Metrics) endWait() {
	m.waits.Lock()
	defer m.waits.Unlock()
	m.addWaitLocked(time.Now())
	m.waits.since = time.Time{}
}

func (m *Metrics) addWaitLocked(now time.Time) {
	if m.waits.since.IsZero() {
		return
	}
	d := max(now.Sub(m.waits.since), 0)
	if m.waits.sinceBackPressure {
		m.waits.backPressured += d
	} else {
		m.waits.idle += d
	}
	m.waits.since = now
}

// MetricsSample is the task's counters read at one time.
type MetricsSample struct {
	At                    time.Time
	RecordsIn, RecordsOut int64
	// Idle and BackPressured are the time the task waited since it
	// started, a wait in progress included.
	Idle, BackPressured time.Duration
	InputWatermark      int64
	// SourceEmitted and SourceTotal: see Metrics.
	SourceEmitted, SourceTotal int64
}

// Sample reads the counters now. A wait in progress counts up to now,
// so a task blocked for long shows it before the wait ends.
func (m *Metrics) Sample() MetricsSample {
	m.waits.Lock()
	now := time.Now()
	m.addWaitLocked(now)
	idle, bp := m.waits.idle, m.waits.backPressured
	m.waits.Unlock()
	return MetricsSample{At: now, RecordsIn: m.RecordsIn.Load(), RecordsOut: m.RecordsOut.Load(),
		Idle: idle, BackPressured: bp, InputWatermark: m.InputWatermark.Load(),
		SourceEmitted: m.SourceEmitted.Load(), SourceTotal: m.SourceTotal.Load()}
}

// Load is a task's recent rates, as Flink's gauges of the same names.
// The three times add up to 1000 ms per second.
type Load struct {
	BusyTimeMsPerSecond, IdleTimeMsPerSecond, BackPressuredTimeMsPerSecond float64
	RecordsInPerSecond, RecordsOutPerSecond                                float64
}

// LoadBetween is the load of a task between two samples of its
// counters, prev taken before cur. Without time between them (or with
// counters that went back: another attempt) the load is zero.
func LoadBetween(prev, cur MetricsSample) Load {
	dt := cur.At.Sub(prev.At)
	if dt <= 0 || cur.Idle < prev.Idle || cur.BackPressured < prev.BackPressured {
		return Load{}
	}
	perSecond := func(d time.Duration) float64 { return min(float64(d)/float64(dt)*1000, 1000) }
	l := Load{
		IdleTimeMsPerSecond:          perSecond(cur.Idle - prev.Idle),
		BackPressuredTimeMsPerSecond: perSecond(cur.BackPressured - prev.BackPressured),
		RecordsInPerSecond:           max(float64(cur.RecordsIn-prev.RecordsIn), 0) / dt.Seconds(),
		RecordsOutPerSecond:          max(float64(cur.RecordsOut-prev.RecordsOut), 0) / dt.Seconds(),
	}
	l.BusyTimeMsPerSecond = max(1000-l.IdleTimeMsPerSecond-l.BackPressuredTimeMsPerSecond, 0)
	return l
}
