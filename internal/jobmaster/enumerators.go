package jobmaster

import (
	"fmt"
	"io"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
)

// Split enumerators of sources with dynamic split assignment (FLIP-27's
// operator coordinators). The loop owns them: requests from source
// subtasks arrive as events, and the enumerators are snapshotted when a
// checkpoint is triggered, before any trigger is sent. A reply to a
// request goes into the subtask's mailbox before a later trigger does, so a
// split is either in the enumerator's snapshot (unassigned then) or in the
// reader's: never in neither, never in both.

// splitRequest asks the enumerator of uid for a split for subtask.
type splitRequest struct {
	uid     string
	subtask int
	attempt int
	reply   func(split []byte, ok bool)
}

// startEnumerators creates the enumerators of a generation, restored from
// md when the generation restores a checkpoint.
func (jm *JobMaster) startEnumerators(md *storage.Metadata) error {
	jm.closeEnumerators()
	jm.enumerators = make(map[string]op.Enumerator)
	restored := map[string][]byte{}
	if md != nil {
		for _, o := range md.Operators {
			if o.Coordinator != nil {
				restored[o.UID] = o.Coordinator
			}
		}
	}
	for _, v := range jm.graph.Vertices {
		for _, n := range v.Chain {
			factory, ok := n.Enumerator.(op.EnumeratorFactory)
			if !ok || factory == nil {
				continue
			}
			e, err := factory(v.Parallelism, restored[n.UID])
			if err != nil {
				return fmt.Errorf("start the split enumerator of %s: %w", n.Name, err)
			}
			jm.enumerators[n.UID] = e
		}
	}
	return nil
}

func (jm *JobMaster) handleSplitRequest(r splitRequest) {
	e, ok := jm.enumerators[r.uid]
	if !ok || r.attempt != jm.sched.Generation() {
		return
	}
	split, more := e.Next(r.subtask)
	r.reply(split, more)
}

// snapshotEnumerators records the state of every enumerator for
// checkpoint id.
func (jm *JobMaster) snapshotEnumerators(id int64) error {
	if len(jm.enumerators) == 0 {
		return nil
	}
	states := make(map[string][]byte, len(jm.enumerators))
	for uid, e := range jm.enumerators {
		b, err := e.Snapshot()
		if err != nil {
			return fmt.Errorf("snapshot the split enumerator of %s: %w", uid, err)
		}
		states[uid] = b
	}
	jm.cp.coordinators[id] = states
	return nil
}

// closeEnumerators closes the enumerators of the ending run that hold
// resources (io.Closer: a client, a goroutine discovering new splits).
func (jm *JobMaster) closeEnumerators() {
	for uid, e := range jm.enumerators {
		if c, ok := e.(io.Closer); ok {
			if err := c.Close(); err != nil {
				jm.log.Warn("close the split enumerator", "uid", uid, "err", err)
			}
		}
	}
	jm.enumerators = nil
}
