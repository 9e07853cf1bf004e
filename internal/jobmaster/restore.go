package jobmaster

import (
	"context"
	"fmt"
	"io"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// restored is what a generation starts from.
type restored struct {
	md       *storage.Metadata
	id       int64
	location string
	inits    map[scheduler.ExecutionID]taskmanager.Init
	finished []checkpoint.TaskID
}

// restoreFrom reads the metadata at location (a savepoint, or the latest
// checkpoint) and computes the start of every subtask.
func (jm *JobMaster) restoreFrom(ctx context.Context, st *storage.Storage, md *storage.Metadata, location string, opts restore.Options) (*restored, error) {
	var targets []restore.Target
	var vertices []restore.Vertex
	for _, v := range jm.graph.Vertices {
		rv := restore.Vertex{ID: v.ID, Name: v.Name}
		for _, n := range v.Chain {
			targets = append(targets, restore.Target{UID: n.UID, Name: n.Name, Parallelism: v.Parallelism, MaxParallelism: n.MaxParallelism})
			rv.UIDs = append(rv.UIDs, n.UID)
		}
		for _, e := range v.Inputs {
			rv.Input = append(rv.Input, restore.Input{Source: e.Source.ID, AllToAll: e.Pattern == graph.AllToAll})
		}
		vertices = append(vertices, rv)
	}
	if err := restore.CheckFinished(md, vertices); err != nil {
		return nil, fmt.Errorf("restore from %s: %w", location, err)
	}
	cache := map[string][]byte{}
	read := func(h storage.StreamHandle) ([]byte, error) {
		if h.IsInline() {
			return h.Inline, nil
		}
		if b, ok := cache[h.Path]; ok {
			return b, nil
		}
		r, err := st.ReadState(ctx, location, h)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", h.Path, err)
		}
		cache[h.Path] = b
		return b, nil
	}
	ops, err := restore.Assign(md, targets, read, opts)
	if err != nil {
		return nil, err
	}
	// Backend files are read where the snapshot's handles point. Later
	// checkpoints of this job may reference them only if they are this
	// job's own (tracked by its shared-state registry).
	openShared := func(ctx context.Context, f storage.SharedFile) (io.ReadCloser, error) {
		return st.ReadShared(ctx, location, f)
	}
	reusable := md.Kind == storage.KindCheckpoint && md.JobID == jm.jobID && jm.cp != nil
	if reusable {
		jm.cp.registry.RegisterMetadata(md)
	}
	for _, o := range ops {
		for _, r := range o.Subtasks {
			for i := range r.Native {
				r.Native[i].Open, r.Native[i].Reusable = openShared, reusable
			}
		}
	}
	out := &restored{md: md, id: md.CheckpointID, location: location, inits: make(map[scheduler.ExecutionID]taskmanager.Init)}
	for _, v := range jm.graph.Vertices {
		head := ops[v.Head().UID]
		for i := 0; i < v.Parallelism; i++ {
			init := taskmanager.Init{LastCheckpointID: md.CheckpointID, ChannelState: head.ChannelState[i], FinishedOnRestore: head.FullyFinished}
			init.Restored = make(map[string]*op.Restored, len(v.Chain))
			for _, n := range v.Chain {
				init.Restored[n.UID] = ops[n.UID].Subtasks[i]
			}
			out.inits[scheduler.ExecutionID{Vertex: v.ID, Subtask: i}] = init
			if head.FullyFinished {
				out.finished = append(out.finished, checkpoint.TaskID{Vertex: v.ID, Subtask: i})
			}
		}
	}
	return out, nil
}
