package jobmaster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// The JobMaster's side of checkpointing. The pure coordinator decides; the
// loop here performs: it chooses the snapshot's directory and sends trigger
// RPCs naming it, receives acknowledgements that carry only handles (each
// task wrote its own state from its TaskManager, as in Flink), assembles
// the metadata from them, writes it in a goroutine that reports back, and
// notifies the tasks. Every coordinator event passes through the
// JobMaster's queue, so only the loop's goroutine touches the coordinator;
// every storage call runs in a goroutine of its own (a savepoint's
// directory, the metadata, discards and deletes) and comes back as an
// event when the loop needs its outcome.

// CheckpointOptions configure checkpointing of a job.
type CheckpointOptions struct {
	checkpoint.Options
	// Storage is where checkpoints go; required when enabled.
	Storage *storage.Storage
	// Unaligned and AlignedTimeout choose the barrier mode.
	Unaligned      bool
	AlignedTimeout time.Duration
	// Completed, when set, is called on the loop with every completed
	// checkpoint (not savepoint) before its tasks are notified, so that
	// what it records (a JobManager's HA pointer) is never older than
	// what the tasks' sinks commit. It must return quickly.
	Completed func(id int64, location string)
}

// Events of the loop for checkpointing.
type (
	ackEvent struct {
		id      int64
		task    graph.SubtaskID
		state   storage.TaskState
		attempt int
	}
	declineEvent struct {
		id      int64
		task    graph.SubtaskID
		err     error
		attempt int
		// partial holds what the task wrote before its write failed: its
		// files must not be left behind.
		partial storage.TaskState
	}
	// writerEvent brings back the writer of a savepoint, whose directory
	// is created off the loop (it may open a bucket).
	writerEvent struct {
		trigger checkpoint.Trigger
		dir     *storage.CheckpointDir
		err     error
	}
	endOfDataEvent struct {
		task    graph.SubtaskID
		attempt int
	}
	persistedEvent struct {
		id       int64
		location string
		err      error
	}
	tickEvent struct{}
)

// checkpointing is the JobMaster's checkpoint state, owned by its loop.
type checkpointing struct {
	opts  CheckpointOptions
	coord *checkpoint.Coordinator
	// dirs holds the writer of each pending checkpoint: nil while a
	// savepoint's is being created, when persist holds a Persist that
	// came meanwhile (every task finished without acknowledging).
	dirs    map[int64]*storage.CheckpointDir
	persist map[int64]checkpoint.Persist
	// again holds the re-triggers (Trigger.Again) of a savepoint whose
	// writer is still being created, sent once it is there.
	again      map[int64][]checkpoint.Trigger
	locations  map[int64]string
	tick       clock.Timer
	savepoints savepoints
	completed  int
	failed     int
	latest     string
	latestID   int64
	// stopAfter is the id of a completed stop-without-drain savepoint.
	stopAfter int64
	// coordinators holds the split enumerators' snapshots per pending
	// checkpoint, by operator uid.
	coordinators map[int64]map[string][]byte
	// registry counts the references of retained checkpoints to the
	// shared files of incremental backends; pendingShared holds the
	// shared files the acknowledgements of each pending checkpoint
	// reference, registered when it completes.
	registry      *storage.SharedStateRegistry
	pendingShared map[int64][]storage.SharedFile
	// started holds the trigger time and sizes the {size, uploaded} bytes
	// of each pending checkpoint; latest* describe the latest completed.
	started        map[int64]time.Time
	sizes          map[int64][2]int64
	latestDuration time.Duration
	latestSize     int64
	latestUploaded int64
	uploadedTotal  int64
	// history is what the REST API shows of the latest checkpoints.
	history history
}

// stats returns the checkpoint statistics of the job.
func (cp *checkpointing) stats() checkpoint.Stats {
	s := checkpoint.Stats{Completed: cp.completed, Failed: cp.failed, Latest: cp.latest, LatestID: cp.latestID,
		LatestDuration: cp.latestDuration, LatestSize: cp.latestSize, LatestUploaded: cp.latestUploaded,
		UploadedTotal: cp.uploadedTotal}
	cp.history.fill(&s)
	return s
}

// measure returns the bytes of state md references and the bytes written
// for it: the shared files that no registered checkpoint held already
// were written for it, the others reused.
func (cp *checkpointing) measure(md *storage.Metadata) (size, uploaded int64) {
	seen := map[string]bool{}
	for _, o := range md.Operators {
		for _, st := range o.Subtasks {
			for _, h := range st.Keyed {
				size += h.Stream.Size
				uploaded += h.Stream.Size
				for _, f := range h.Shared {
					if seen[f.Path] {
						continue
					}
					seen[f.Path] = true
					size += f.Size
					if !cp.registry.Has(f.Path) {
						uploaded += f.Size
					}
				}
			}
			for _, h := range st.ChannelState {
				size += h.Size
				uploaded += h.Size
			}
		}
	}
	return size, uploaded
}

// acknowledged records the shared files an acknowledgement references. An
// acknowledgement that arrives after its checkpoint ended (failed, or of
// an attempt that a failover replaced) is not part of any checkpoint: the
// files it wrote are deleted at once, the shared ones as the registry
// allows, and the snapshot's directory, which the late write may have
// made again after its abort, in the background.
func (jm *JobMaster) acknowledged(id int64, st storage.TaskState) {
	jm.cp.recordShared(id, st.Operators)
	if _, pending := jm.cp.dirs[id]; !pending {
		jm.releaseShared(id, false, "")
		jm.background(func() { jm.discardUnfinished(id, st.Location) })
	}
}

// discardUnfinished deletes the directory of snapshot id, which did not
// complete, at location (from an acknowledgement: empty when the task
// wrote nothing).
func (jm *JobMaster) discardUnfinished(id int64, location string) {
	if location == "" {
		return
	}
	if err := jm.cp.opts.Storage.DiscardUnfinished(context.Background(), location); err != nil {
		jm.log.Warn("delete the directory of an unfinished checkpoint", "id", id, "err", err)
	}
}

// recordShared adds the shared files of states to checkpoint id's.
func (cp *checkpointing) recordShared(id int64, states map[string]storage.SubtaskState) {
	for _, st := range states {
		for _, h := range st.Keyed {
			for _, f := range h.Shared {
				if f.IsShared() {
					cp.pendingShared[id] = append(cp.pendingShared[id], f)
				}
			}
		}
	}
}

// dropUnfinishedShared removes, when the JobMaster stops, the directories
// of checkpoints still pending and the shared files of checkpoints that
// never completed: those of the acknowledgements and
// declines still queued, and those of pending checkpoints. The loop has
// ended and every background write returned, so nothing else uses them.
func (jm *JobMaster) dropUnfinishedShared() {
	cp := jm.cp
	// A checkpoint whose metadata was written but whose completion the
	// loop did not see is complete on disk: its files stay.
	committed := map[int64]bool{}
	for id, dir := range cp.dirs {
		if dir == nil {
			continue // a savepoint's writer never came: nothing written
		}
		err := dir.Abort(context.Background())
		switch {
		case errors.Is(err, storage.ErrCommitted):
			committed[id] = true
		case err != nil:
			jm.log.Warn("abort an unfinished checkpoint", "id", id, "err", err)
		}
		delete(cp.dirs, id)
	}
	// The TaskManagers reported every task's end after its last write:
	// the acknowledgements of what they wrote are all queued, or held.
	events := append(jm.held, jm.events.PopAll()...)
	jm.held = nil
	for _, ev := range events {
		var id int64
		var st storage.TaskState
		switch e := ev.(type) {
		case ackEvent:
			id, st = e.id, e.state
		case declineEvent:
			id, st = e.id, e.partial
		default:
			continue
		}
		cp.recordShared(id, st.Operators)
		if !committed[id] {
			jm.discardUnfinished(id, st.Location)
		}
	}
	for id := range committed {
		cp.registry.Register(id, cp.pendingShared[id])
	}
	var unused []storage.SharedFile
	for _, files := range cp.pendingShared {
		for _, f := range files {
			if !cp.registry.Has(f.Path) {
				unused = append(unused, f)
			}
		}
	}
	cp.pendingShared = map[int64][]storage.SharedFile{}
	if len(unused) > 0 {
		if err := cp.opts.Storage.DeleteShared(context.Background(), jm.jobID, unused); err != nil {
			jm.log.Warn("delete shared state files of unfinished checkpoints", "err", err)
		}
	}
}

// releaseShared deletes, in the background, the shared files of
// checkpoint id that no retained checkpoint references any more: after a
// subsume or discard (unregister), or when a pending checkpoint failed
// after tasks uploaded new files (unregister false). A non-empty discard
// is the checkpoint's location, discarded first in the same goroutine: its
// _metadata goes before any file it references, so a crash in between
// never leaves a checkpoint that looks complete with files missing.
func (jm *JobMaster) releaseShared(id int64, unregister bool, discard string) {
	cp := jm.cp
	var unused []storage.SharedFile
	if unregister {
		unused = cp.registry.Unregister(id)
	}
	for _, f := range cp.pendingShared[id] {
		if !cp.registry.Has(f.Path) && !slices.Contains(unused, f) {
			unused = append(unused, f)
		}
	}
	delete(cp.pendingShared, id)
	if len(unused) == 0 && discard == "" {
		return
	}
	jm.background(func() {
		ctx := context.Background()
		if discard != "" {
			if err := cp.opts.Storage.Discard(ctx, discard); err != nil {
				jm.log.Warn("discard a checkpoint", "checkpoint", id, "err", err)
				return // its files stay: the checkpoint may still look complete
			}
		}
		if len(unused) == 0 {
			return
		}
		if err := cp.opts.Storage.DeleteShared(ctx, jm.jobID, unused); err != nil {
			jm.log.Warn("delete shared state files", "checkpoint", id, "err", err)
		}
	})
}

func topology(jg *graph.JobGraph) *checkpoint.Topology {
	t := &checkpoint.Topology{}
	for _, v := range jg.Vertices {
		cv := checkpoint.Vertex{ID: v.ID, Parallelism: v.Parallelism, IsSource: v.IsSource()}
		for _, e := range v.Inputs {
			p := checkpoint.AllToAll
			if e.Pattern == graph.Pointwise {
				p = checkpoint.Pointwise
			}
			cv.Inputs = append(cv.Inputs, checkpoint.Edge{Source: e.Source.ID, Pattern: p})
		}
		t.Vertices = append(t.Vertices, cv)
	}
	return t
}

// stepCheckpoint feeds the coordinator and performs its actions.
func (jm *JobMaster) stepCheckpoint(ctx context.Context, ev checkpoint.Event) {
	cp := jm.cp
	if cp == nil {
		return
	}
	if err := cp.coord.Step(ev); err != nil {
		jm.log.Warn("checkpoint event refused", "event", fmt.Sprintf("%T", ev), "err", err)
	}
	for _, a := range cp.coord.Ready() {
		jm.performCheckpoint(ctx, a)
	}
}

func (jm *JobMaster) performCheckpoint(ctx context.Context, action checkpoint.Action) {
	cp := jm.cp
	switch a := action.(type) {
	case checkpoint.Trigger:
		if a.Again {
			// A pending checkpoint for tasks that became roots since: its
			// directory exists (or, for a savepoint, is being made), only
			// the trigger RPC goes out.
			jm.triggerAgain(a)
			return
		}
		cp.started[a.ID] = jm.clock.Now()
		cp.history.triggered(a.ID, a.Kind, cp.started[a.ID], jm.subtaskCount())
		if a.Kind.IsSavepoint() {
			// A savepoint's directory may be in another store, which
			// creating its writer opens: off the loop.
			target, _ := cp.savepointTriggered(a.ID, a.Kind)
			cp.dirs[a.ID] = nil
			jm.background(func() {
				dir, err := cp.opts.Storage.CreateSavepointWriter(ctx, jm.jobID, a.ID, target)
				jm.events.Push(writerEvent{trigger: a, dir: dir, err: err})
			})
			return
		}
		// A checkpoint's writer only names chk-<id>: no I/O.
		dir, err := cp.opts.Storage.CreateCheckpointWriter(jm.jobID, a.ID)
		jm.startTrigger(ctx, a, dir, err)
	case checkpoint.Persist:
		dir, ok := cp.dirs[a.ID]
		switch {
		case ok && dir == nil:
			cp.persist[a.ID] = a // once the savepoint's writer is there
			return
		case !ok:
			// Its trigger failed (the decline is queued): nothing to commit.
			jm.events.Push(persistedEvent{id: a.ID, err: fmt.Errorf("checkpoint %d has no directory", a.ID)})
			return
		}
		md, ended := jm.metadata(a)
		for i := range md.Operators {
			md.Operators[i].Coordinator = cp.coordinators[a.ID][md.Operators[i].UID]
		}
		delete(cp.coordinators, a.ID)
		size, uploaded := cp.measure(md)
		cp.sizes[a.ID] = [2]int64{size, uploaded}
		if err := unionWithFinished(md, ended); err != nil {
			jm.events.Push(persistedEvent{id: a.ID, err: err})
			return
		}
		jm.background(func() {
			loc, err := dir.Commit(ctx, md)
			jm.events.Push(persistedEvent{id: a.ID, location: loc, err: err})
		})
	case checkpoint.Completed:
		delete(cp.dirs, a.ID)
		defer delete(cp.started, a.ID)
		defer delete(cp.sizes, a.ID)
		jm.log.Info("checkpoint completed", "id", a.ID, "kind", a.Kind, "location", a.Location)
		cp.history.completed(a.ID, jm.clock.Now(), cp.sizes[a.ID], a.Location)
		cp.savepointEnded(a.ID, a.Kind, a.Location, nil)
		if a.Kind.IsSavepoint() {
			// Savepoints belong to the user: never discarded, not the
			// latest checkpoint for failover.
			if a.Kind == checkpoint.SavepointTerminate {
				cp.stopAfter = a.ID
			}
			return
		}
		cp.registry.Register(a.ID, cp.pendingShared[a.ID])
		delete(cp.pendingShared, a.ID)
		cp.latestDuration = jm.clock.Now().Sub(cp.started[a.ID])
		cp.latestSize, cp.latestUploaded = cp.sizes[a.ID][0], cp.sizes[a.ID][1]
		cp.uploadedTotal += cp.latestUploaded
		cp.locations[a.ID] = a.Location
		cp.completed++
		cp.latest, cp.latestID = a.Location, a.ID
		if cp.opts.Completed != nil {
			cp.opts.Completed(a.ID, a.Location)
		}
		if jm.ada != nil {
			jm.sched.Step(adaptive.CheckpointCompleted{ID: a.ID, Now: jm.clock.Now()})
		}
	case checkpoint.Failed:
		if a.ID > 0 {
			cp.history.failed(a.ID, jm.clock.Now(), a.Reason)
			delete(cp.coordinators, a.ID)
			delete(cp.started, a.ID)
			delete(cp.sizes, a.ID)
			cp.failed++
			delete(cp.persist, a.ID)
			delete(cp.again, a.ID)
			if dir := cp.dirs[a.ID]; dir != nil {
				jm.background(func() { _ = dir.Abort(context.Background()) })
			}
			delete(cp.dirs, a.ID)
			jm.releaseShared(a.ID, false, "")
		}
		level := slog.LevelWarn
		if errors.Is(a.Reason, checkpoint.ErrFailover) || errors.Is(a.Reason, checkpoint.ErrSubsumed) {
			// Expected: the failure or the newer checkpoint is the news.
			level = slog.LevelInfo
		}
		jm.log.Log(ctx, level, "checkpoint failed", "id", a.ID, "kind", a.Kind, "reason", a.Reason)
		cp.savepointEnded(a.ID, a.Kind, "", a.Reason)
		if jm.ada != nil {
			jm.adaptiveCheckpointFailed(a)
		}
	case checkpoint.Discard:
		delete(cp.dirs, a.ID)
		jm.releaseShared(a.ID, true, a.Location)
	case checkpoint.Subsumed:
		for _, id := range a.IDs {
			loc := cp.locations[id]
			delete(cp.locations, id)
			jm.releaseShared(id, true, loc)
		}
	case checkpoint.NotifyComplete:
		jm.notify(a.Tasks, a.ID, true)
		if cp.stopAfter == a.ID {
			// Stop without drain: the savepoint is taken and its
			// notifications are in the tasks' mailboxes; each task commits
			// and ends, and the job ends once all did.
			jm.sched.Step(scheduler.Stop{})
		}
	case checkpoint.NotifyAborted:
		jm.notify(a.Tasks, a.ID, false)
	case checkpoint.JobFailure:
		jm.sched.Step(scheduler.GlobalFailure{Err: a.Reason, Now: jm.clock.Now()})
	case checkpoint.ScheduleTick:
		if cp.tick != nil {
			cp.tick.Stop()
			cp.tick = nil
		}
		if !a.At.IsZero() {
			cp.tick = jm.clock.AfterFunc(a.At.Sub(jm.clock.Now()), func() { jm.events.Push(tickEvent{}) })
		}
	}
}

// background runs fn off the loop, on Options.Executor (default: a
// goroutine); Run waits for it before it returns.
func (jm *JobMaster) background(fn func()) {
	jm.wg.Add(1)
	run := func() {
		defer jm.wg.Done()
		fn()
	}
	if jm.opts.Executor != nil {
		jm.opts.Executor(run)
		return
	}
	go run()
}

func (jm *JobMaster) notify(tasks []graph.SubtaskID, id int64, complete bool) {
	for _, t := range tasks {
		jm.notifyTask(t, id, complete)
	}
}

// metadata assembles the checkpoint's metadata from the tasks'
// acknowledgements: one OperatorState per operator of the job, with the
// state of each subtask, FINISHED subtasks marked (the plan's; a subtask
// whose operators finished but which waits for its final checkpoint is
// acknowledged, and restored, as a running one). ended counts, per
// operator uid, the subtasks whose operators had finished before the
// snapshot: the FINISHED ones and those whose acknowledgement says so
// (storage.SubtaskState.Finished in an acknowledgement).
func (jm *JobMaster) metadata(a checkpoint.Persist) (md *storage.Metadata, ended map[string]int) {
	kind := storage.KindCheckpoint
	if a.Kind.IsSavepoint() {
		kind = storage.KindSavepoint
	}
	md = &storage.Metadata{JobID: jm.jobID, CheckpointID: a.ID, Timestamp: a.Timestamp.UnixMilli(), Kind: kind}
	ended = make(map[string]int)
	finished := make(map[graph.SubtaskID]bool, len(a.Finished))
	for _, t := range a.Finished {
		finished[t] = true
	}
	fully := make(map[int]bool)
	for _, v := range a.FullyFinishedVertices {
		fully[v] = true
	}
	for _, v := range jm.graph.Vertices {
		for _, n := range v.Chain {
			os := storage.OperatorState{UID: n.UID, Name: n.Name, Parallelism: v.Parallelism, MaxParallelism: n.MaxParallelism, FullyFinished: fully[v.ID]}
			for i := 0; i < v.Parallelism; i++ {
				t := graph.SubtaskID{Vertex: v.ID, Subtask: i}
				st := storage.SubtaskState{Index: i}
				if states, ok := a.States[t].(map[string]storage.SubtaskState); ok {
					if s, ok := states[n.UID]; ok {
						st = s
						st.Index = i
					}
				}
				if finished[t] || st.Finished {
					ended[n.UID]++
				}
				st.Finished = finished[t]
				os.Subtasks = append(os.Subtasks, st)
			}
			md.Operators = append(md.Operators, os)
		}
	}
	return md, ended
}

// unionWithFinished refuses a checkpoint in which an operator with union
// list state has some subtasks whose operators finished (ended counts
// them by uid: FINISHED, or waiting for their final checkpoint) and some
// running ones (FLIP-147, FLINK-21080): the finished subtasks' share of
// the union would be gone, so every subtask restoring the union would
// miss it. The subtasks waiting for their final checkpoint stay blocked
// until the others finish too; then the checkpoint passes.
func unionWithFinished(md *storage.Metadata, ended map[string]int) error {
	for _, o := range md.Operators {
		union := false
		for _, s := range o.Subtasks {
			for _, l := range s.OperatorLists {
				union = union || l.Mode == storage.ModeUnion
			}
		}
		if n := ended[o.UID]; union && n > 0 && n < len(o.Subtasks) {
			return fmt.Errorf("%w: checkpoint %d declined: operator %q has union list state and %d of its %d subtasks finished",
				checkpoint.ErrNotReady, md.CheckpointID, o.Name, n, len(o.Subtasks))
		}
	}
	return nil
}
