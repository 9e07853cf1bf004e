package source

import (
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/watermark"
)

// Watermark alignment in a source subtask (FLIP-182, and FLIP-217 for
// splits). Every update interval the subtask reports its watermark to the
// JobMaster (op.WatermarkAligner) and keeps the answer, the greatest
// watermark it may run to. Before each poll of its reader:
//
//   - a reader that implements SplitPauser pauses the splits whose
//     watermark is above it and resumes those no longer above it;
//   - the subtask itself does not poll while its watermark (the least of
//     its splits that are not idle; when all are idle, the highest any
//     reached) is above it, and waits for the next answer instead.
//
// The watermarks compared are those of the elements emitted so far (the
// split's largest timestamp less the out-of-orderness), not the last ones
// emitted on the periodic tick, so a source stops within one poll (Batch
// elements) of the limit. Until its first answer a subtask may run to
// MinWatermark: it reads until its watermark is known, then waits.

// SplitPauser is implemented by a Reader that can stop reading some of
// its splits (Flink's SourceReader.pauseOrResumeSplits); package weir's
// SplitPauser is this type.
type SplitPauser interface {
	PauseOrResumeSplits(pause, resume []string) error
}

// aligner is the alignment state of one source subtask.
type aligner struct {
	to         op.WatermarkAligner
	maxAllowed int64
	// reporting: a report is out (the next waits for its answer);
	// finished: the final report went out.
	reporting, finished bool
	// paused holds the splits the reader was told to pause.
	paused map[string]bool
}

// startAlignment starts the periodic reports of a subtask whose strategy
// has an alignment group, when the runtime aligns; nil otherwise.
func startAlignment[T any](ctx *op.Context, w *watermark.Strategy[T], m *splitOutputs[T]) *aligner {
	if w == nil || w.AlignmentGroup == "" || ctx.Alignment == nil {
		return nil
	}
	a := &aligner{to: ctx.Alignment, maxAllowed: op.MinWatermark, paused: map[string]bool{}}
	interval := w.AlignmentUpdateInterval
	if interval <= 0 {
		interval = watermark.DefaultAlignmentUpdateInterval
	}
	var tick func() error
	tick = func() error {
		if a.finished {
			return nil
		}
		ctx.Timers.Schedule(ctx.Timers.Now().Add(interval), tick)
		a.report(m)
		return nil
	}
	a.report(m)
	ctx.Timers.Schedule(ctx.Timers.Now().Add(interval), tick)
	return a
}

// report sends the subtask's watermark unless a report is out.
func (a *aligner) report(m interface{ current() (int64, bool) }) {
	if a.reporting || a.finished {
		return
	}
	wm, live := m.current()
	a.reporting = true
	a.to.ReportWatermark(op.AlignmentReport{Watermark: wm, Idle: !live}, func(maxAllowed int64) {
		a.reporting = false
		a.maxAllowed = maxAllowed
	})
}

// finish tells the coordinator the subtask's input ended.
func (a *aligner) finish() {
	if a.finished {
		return
	}
	a.finished = true
	a.to.ReportWatermark(op.AlignmentReport{Finished: true, Watermark: op.MaxWatermark}, func(int64) {})
}

// blocked pauses and resumes the splits of a SplitPauser reader and
// reports whether the subtask must not poll its reader now.
func blocked[T any](a *aligner, m *splitOutputs[T], r any) (bool, error) {
	if p, ok := r.(SplitPauser); ok {
		var pause, resume []string
		for id, s := range m.splits {
			ahead := m.watermark(s) > a.maxAllowed
			switch {
			case ahead && !a.paused[id]:
				pause = append(pause, id)
				a.paused[id] = true
			case !ahead && a.paused[id]:
				resume = append(resume, id)
				delete(a.paused, id)
			}
		}
		for id := range a.paused {
			if _, ok := m.splits[id]; !ok {
				delete(a.paused, id) // released
			}
		}
		if len(pause) > 0 || len(resume) > 0 {
			slices.Sort(pause)
			slices.Sort(resume)
			if err := p.PauseOrResumeSplits(pause, resume); err != nil {
				return false, fmt.Errorf("pause or resume splits for watermark alignment: %w", err)
			}
		}
	}
	wm, _ := m.current()
	return wm > a.maxAllowed, nil
}
