package jobmaster

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/restore"
	"github.com/weir-engine/weir/internal/taskmanager"
)

// restored is what a generation starts from.
type restored struct {
	md       *storage.Metadata
	id       int64
	location string
	inits    map[graph.SubtaskID]taskmanager.Init
	finished []graph.SubtaskID
	// reusable: later checkpoints of this job may reference the shared
	// files of md (the loop registers them when it submits the tasks).
	reusable bool
	// latest: md is the coordinator's latest completed checkpoint.
	latest bool
}

// restoreState finds what a generation starts from: nil for a fresh start.
//
// A restart starts from the latest completed checkpoint, and only from it:
// its completion may have committed output of two-phase-commit sinks, so
// an older checkpoint, or nothing, would repeat that output. When it is
// unreadable the job fails (unrecoverable, see failGeneration) and says
// where it is. Before any checkpoint completed, a restart starts where the
// first generation did: the savepoint restored from, or nothing. latest is
// the location of the latest completed checkpoint ("" if none).
//
// It runs off the loop (see deploy.go): it reads only what does not
// change while the job runs, and jg, the graph of the generation.
func (jm *JobMaster) restoreState(ctx context.Context, jg *graph.JobGraph, generation int, latest string) (*restored, error) {
	opts := restore.Options{AllowNonRestored: jm.opts.AllowNonRestored}
	if generation > 0 && jm.cp != nil && latest != "" {
		// The coordinator's own record of the latest completed checkpoint:
		// no listing, and a checkpoint whose metadata a commit is still
		// writing (aborted by this very failover) is never picked. Only
		// its metadata is read, and the sizes of its files checked: the
		// subtasks check the content of what they read (a rescale reads
		// parts of it), and damage they meet fails the job as this does.
		st := jm.cp.opts.Storage
		md, err := st.ReadSized(ctx, latest)
		if err != nil {
			return nil, latestUnreadable(latest, err)
		}
		jm.log.Info("restoring from checkpoint", "id", md.CheckpointID, "location", latest)
		rs, err := jm.restoreFrom(jg, md, latest, opts)
		if err != nil {
			return nil, fmt.Errorf("restore the latest completed checkpoint %s: %w", latest, err)
		}
		rs.latest = true
		return rs, nil
	}
	if generation > 0 && jm.opts.RestoreFrom == "" {
		jm.log.Info("no checkpoint completed yet: restarting from scratch")
	}
	if jm.opts.RestoreFrom == "" {
		return nil, nil
	}
	st, err := jm.restoreStorage(ctx)
	if err != nil {
		return nil, err
	}
	if st != jm.checkpointStorage() {
		// Opened for the metadata only: the tasks read their state
		// through storage of their own.
		defer func() {
			if err := st.Close(); err != nil {
				jm.log.Warn("close the savepoint's storage", "err", err)
			}
		}()
	}
	md, err := st.ReadMetadata(ctx, jm.opts.RestoreFrom)
	if err != nil {
		return nil, fmt.Errorf("read savepoint %s: %w", jm.opts.RestoreFrom, err)
	}
	jm.log.Info("restoring from savepoint", "id", md.CheckpointID, "location", jm.opts.RestoreFrom)
	return jm.restoreFrom(jg, md, jm.opts.RestoreFrom, opts)
}

// restoreStorage is the storage to read a savepoint with: the checkpoint
// storage when there is one (it resolves any location), else one opened on
// the savepoint's location.
func (jm *JobMaster) restoreStorage(ctx context.Context) (*storage.Storage, error) {
	if st := jm.checkpointStorage(); st != nil {
		return st, nil
	}
	st, err := storage.Open(ctx, jm.opts.RestoreFrom, storage.Options{Logger: jm.log})
	if err != nil {
		return nil, fmt.Errorf("open savepoint %s: %w", jm.opts.RestoreFrom, err)
	}
	return st, nil
}

// checkpointStorage is the job's checkpoint storage, or nil.
func (jm *JobMaster) checkpointStorage() *storage.Storage {
	if jm.cp == nil {
		return nil
	}
	return jm.cp.opts.Storage
}

// restoreFrom maps the metadata md of the snapshot at location (a
// savepoint, or the latest checkpoint) to every subtask of jg, the
// generation's graph (its parallelism may differ from the snapshot's:
// restore.Assign redistributes the state): the handles each deployment
// carries. It reads no state; the tasks do.
func (jm *JobMaster) restoreFrom(jg *graph.JobGraph, md *storage.Metadata, location string, opts restore.Options) (*restored, error) {
	var targets []restore.Target
	var vertices []restore.Vertex
	for _, v := range jg.Vertices {
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
	ops, err := restore.Assign(md, targets, opts)
	if err != nil {
		return nil, err
	}
	// Each subtask reads its state from where the snapshot's handles
	// point. Later checkpoints of this job may reference the backends'
	// files only if they are this job's own (tracked by its shared-state
	// registry).
	reusable := md.Kind == storage.KindCheckpoint && md.JobID == jm.jobID && jm.cp != nil
	out := &restored{md: md, id: md.CheckpointID, location: location, reusable: reusable, inits: make(map[graph.SubtaskID]taskmanager.Init)}
	for _, v := range jg.Vertices {
		head := ops[v.Head().UID]
		for i := 0; i < v.Parallelism; i++ {
			r := &storage.TaskRestore{CheckpointID: md.CheckpointID, Location: location, Reusable: reusable, ChannelState: head.ChannelState[i]}
			for _, n := range v.Chain {
				r.Operators = append(r.Operators, ops[n.UID].Subtasks[i])
			}
			out.inits[graph.SubtaskID{Vertex: v.ID, Subtask: i}] = taskmanager.Init{
				LastCheckpointID: md.CheckpointID, FinishedOnRestore: head.FullyFinished, Restore: r,
			}
			if head.FullyFinished {
				out.finished = append(out.finished, graph.SubtaskID{Vertex: v.ID, Subtask: i})
			}
		}
	}
	return out, nil
}
