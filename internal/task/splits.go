package task

import (
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
)

// splitRequester gives a source with dynamic split assignment its way to
// the enumerator: requests go to the JobMaster, replies come back through
// the task's mailbox, so the source handles them on its own goroutine.
func (t *Task) splitRequester(n *graph.StreamNode) op.SplitRequester {
	if n.Enumerator == nil || t.desc.RequestSplit == nil {
		return nil
	}
	return requester{t: t, uid: n.UID}
}

type requester struct {
	t   *Task
	uid string
}

func (r requester) RequestSplit(reply func(split []byte, ok bool)) {
	r.t.desc.RequestSplit(r.uid, r.t.desc.Subtask, func(split []byte, ok bool) {
		r.t.mail.Put(func() error {
			reply(split, ok)
			return nil
		})
	})
}
