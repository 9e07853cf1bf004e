package jobmaster

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
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

// openEnumerators creates the enumerators of a generation, restored from
// md when the generation restores a checkpoint. It runs off the loop: a
// factory may reach an external system (the Kafka source discovers its
// partitions). On an error it closes those it created.
func (jm *JobMaster) openEnumerators(ctx context.Context, jg *graph.JobGraph, md *storage.Metadata) (map[string]op.Enumerator, error) {
	restored := map[string][]byte{}
	if md != nil {
		for _, o := range md.Operators {
			if o.Coordinator != nil {
				restored[o.UID] = o.Coordinator
			}
		}
	}
	out := make(map[string]op.Enumerator)
	for _, v := range jg.Vertices {
		for _, n := range v.Chain {
			factory, ok := n.Enumerator.(op.EnumeratorFactory)
			if !ok || factory == nil {
				continue
			}
			if ctx.Err() != nil {
				closeEnumerators(jm.log, out)
				return nil, fmt.Errorf("start the split enumerator of %s: %w", n.Name, ctx.Err())
			}
			e, err := factory(v.Parallelism, restored[n.UID])
			if err != nil {
				closeEnumerators(jm.log, out)
				return nil, fmt.Errorf("start the split enumerator of %s: %w", n.Name, err)
			}
			out[n.UID] = e
		}
	}
	return out, nil
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

// closeEnumerators closes the enumerators of the ending run.
func (jm *JobMaster) closeEnumerators() {
	closeEnumerators(jm.log, jm.enumerators)
	jm.enumerators = nil
}

// closeEnumerators closes those of es that hold resources (io.Closer: a
// client, a goroutine discovering new splits).
func closeEnumerators(log *slog.Logger, es map[string]op.Enumerator) {
	for uid, e := range es {
		if c, ok := e.(io.Closer); ok {
			if err := c.Close(); err != nil {
				log.Warn("close the split enumerator", "uid", uid, "err", err)
			}
		}
	}
}
