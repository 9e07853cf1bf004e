package task

import (
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
)

// aligner gives a source with watermark alignment its way to the
// JobMaster's alignment coordinator: reports go to the JobMaster, replies
// come back through the task's mailbox.
func (t *Task) aligner(n *graph.StreamNode) op.WatermarkAligner {
	if n.Alignment == nil || t.desc.ReportWatermark == nil || t.desc.Graph.Batch {
		return nil
	}
	return aligner{t: t, uid: n.UID}
}

type aligner struct {
	t   *Task
	uid string
}

func (a aligner) ReportWatermark(r op.AlignmentReport, reply func(maxAllowed int64)) {
	a.t.desc.ReportWatermark(a.uid, a.t.desc.Subtask, r, func(maxAllowed int64) {
		a.t.mail.Put(func() error {
			reply(maxAllowed)
			return nil
		})
	})
}
