package jobmaster

import (
	"github.com/weir-engine/weir/internal/alignment"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
)

// Watermark alignment (FLIP-182): the loop owns one alignment.Coordinator
// per generation, created with the generation's enumerators from its
// graph (sources finished in the checkpoint it restores never report, so
// they start finished). Source subtasks report their watermark every
// update interval; the answer to each report is the greatest watermark
// the subtask may run to, which is how the coordinator's decision reaches
// the subtasks (Flink's SourceCoordinator announces it on a timer of its
// own; here the subtasks' reports are the timer).

// watermarkReport is a source subtask's report.
type watermarkReport struct {
	uid     string
	subtask int
	attempt int
	report  op.AlignmentReport
	reply   func(maxAllowed int64)
}

// newAlignment returns the coordinator of jg's sources with an alignment
// group, nil when there is none or the job runs in batch mode (where
// watermarks do not pace the sources).
func newAlignment(jg *graph.JobGraph, md *storage.Metadata) (*alignment.Coordinator, error) {
	if jg.Batch {
		return nil, nil
	}
	finished := map[string]bool{}
	if md != nil {
		for _, o := range md.Operators {
			finished[o.UID] = o.FullyFinished
		}
	}
	var sources []alignment.Source
	for _, v := range jg.Vertices {
		for _, n := range v.Chain {
			if a := n.Alignment; a != nil {
				sources = append(sources, alignment.Source{UID: n.UID, Parallelism: v.Parallelism,
					Group: a.Group, MaxDrift: a.MaxDrift, Finished: finished[n.UID]})
			}
		}
	}
	if len(sources) == 0 {
		return nil, nil
	}
	return alignment.New(sources)
}

// handleWatermarkReport answers a report of the current generation; one of
// an earlier generation is dropped, as its subtask is gone. A source the
// coordinator does not know may run freely.
func (jm *JobMaster) handleWatermarkReport(r watermarkReport) {
	if r.attempt != jm.sched.Generation() {
		return
	}
	if jm.alignment == nil {
		r.reply(alignment.MaxWatermark)
		return
	}
	state := alignment.Active
	switch {
	case r.report.Finished:
		state = alignment.Finished
	case r.report.Idle:
		state = alignment.Idle
	}
	allowed, err := jm.alignment.Report(alignment.Report{UID: r.uid, Subtask: r.subtask, Watermark: r.report.Watermark, State: state})
	if err != nil {
		jm.log.Warn("watermark alignment", "err", err)
		allowed = alignment.MaxWatermark
	}
	r.reply(allowed)
}
