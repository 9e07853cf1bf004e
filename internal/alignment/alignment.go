// Package alignment decides watermark alignment (Flink's FLIP-182 and
// FLIP-217): the source subtasks of one alignment group report their
// current watermark, and each may run to the least watermark of the group
// plus its source's allowed drift; a subtask (or a split) ahead of that
// pauses until the group catches up.
//
// The Coordinator is pure: the JobMaster's loop creates one per run from
// the job graph, feeds it the reports that arrive from source subtasks and
// sends back what Report answers. It does no I/O and keeps no time: the
// subtasks report every update interval, and each answer is the
// announcement of Flink's SourceCoordinator.
//
// Which subtasks hold a group back:
//   - a subtask that has not reported yet holds it at MinWatermark, so that
//     at the start of a run (or after a restore) no source runs ahead
//     before the slow one reported (Flink ignores unreported subtasks and
//     lets a fast source run free until then);
//   - an idle subtask (no split that is not idle, or no split at all) does
//     not, until it reports a watermark again;
//   - a finished subtask (or a source finished before the checkpoint the
//     run restores) never does again.
//
// When no subtask holds a group back, the group allows MaxWatermark.
package alignment

import (
	"fmt"
	"math"
	"time"
)

// MinWatermark and MaxWatermark bound event time (op.MinWatermark and
// op.MaxWatermark).
const (
	MinWatermark int64 = math.MinInt64
	MaxWatermark int64 = math.MaxInt64
)

// Source is a source operator that takes part in watermark alignment.
type Source struct {
	// UID is the operator's uid; Parallelism its number of subtasks.
	UID         string
	Parallelism int
	// Group names the alignment group; MaxDrift is how far ahead of the
	// group's least watermark this source may run.
	Group    string
	MaxDrift time.Duration
	// Finished: the source finished before the checkpoint the run restores
	// (its subtasks never report).
	Finished bool
}

// State is a subtask's state as it reports it.
type State int

const (
	// Active: the subtask's watermark holds its group back.
	Active State = iota
	// Idle: the subtask has no split that is not idle; it does not hold
	// the group back until it reports Active again.
	Idle
	// Finished: the subtask's input ended.
	Finished
)

// Report is what a source subtask tells the coordinator.
type Report struct {
	UID     string
	Subtask int
	// Watermark is the subtask's current watermark (when Active).
	Watermark int64
	State     State
}

type member struct {
	reported  bool
	watermark int64
	state     State
}

type source struct {
	group   string
	drift   int64
	members []member
}

// Coordinator keeps the reported watermarks of every alignment group.
type Coordinator struct {
	sources map[string]*source
	groups  map[string][]*source
}

// New returns the coordinator of the given sources. A uid may appear once.
func New(sources []Source) (*Coordinator, error) {
	c := &Coordinator{sources: map[string]*source{}, groups: map[string][]*source{}}
	for _, s := range sources {
		switch {
		case s.Group == "":
			return nil, fmt.Errorf("alignment: source %s: empty group", s.UID)
		case s.MaxDrift < 0:
			return nil, fmt.Errorf("alignment: source %s: negative drift %v", s.UID, s.MaxDrift)
		case s.Parallelism <= 0:
			return nil, fmt.Errorf("alignment: source %s: parallelism %d", s.UID, s.Parallelism)
		case c.sources[s.UID] != nil:
			return nil, fmt.Errorf("alignment: source %s twice", s.UID)
		}
		src := &source{group: s.Group, drift: s.MaxDrift.Milliseconds(), members: make([]member, s.Parallelism)}
		if s.Finished {
			for i := range src.members {
				src.members[i] = member{reported: true, state: Finished}
			}
		}
		c.sources[s.UID] = src
		c.groups[s.Group] = append(c.groups[s.Group], src)
	}
	return c, nil
}

// Report records r and returns the greatest watermark r's subtask may run
// to. A report of an unknown source or subtask is an error; a report
// after Finished changes nothing.
func (c *Coordinator) Report(r Report) (int64, error) {
	s := c.sources[r.UID]
	if s == nil {
		return 0, fmt.Errorf("alignment: report of unknown source %s", r.UID)
	}
	if r.Subtask < 0 || r.Subtask >= len(s.members) {
		return 0, fmt.Errorf("alignment: source %s has no subtask %d", r.UID, r.Subtask)
	}
	if m := &s.members[r.Subtask]; m.state != Finished {
		*m = member{reported: true, watermark: r.Watermark, state: r.State}
	}
	return c.MaxAllowed(r.UID), nil
}

// GroupWatermark is the least watermark of group's subtasks that hold it
// back, MaxWatermark when none does.
func (c *Coordinator) GroupWatermark(group string) int64 {
	least := MaxWatermark
	for _, s := range c.groups[group] {
		for _, m := range s.members {
			switch {
			case !m.reported:
				return MinWatermark
			case m.state == Active:
				least = min(least, m.watermark)
			}
		}
	}
	return least
}

// MaxAllowed is the greatest watermark the subtasks of source uid may run
// to: the group's watermark plus the source's drift (saturating), or
// MaxWatermark for an unknown source.
func (c *Coordinator) MaxAllowed(uid string) int64 {
	s := c.sources[uid]
	if s == nil {
		return MaxWatermark
	}
	w := c.GroupWatermark(s.group)
	if w > MaxWatermark-s.drift {
		return MaxWatermark
	}
	return w + s.drift
}
