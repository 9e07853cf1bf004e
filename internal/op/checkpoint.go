package op

// Checkpointing, from an operator's side. At a checkpoint barrier the task
// calls SnapshotState on every operator of its chain that implements
// Snapshotter, on its own goroutine, before it forwards the barrier; the
// bytes returned are written to checkpoint storage asynchronously while the
// task goes on. When the checkpoint completed, NotifyCheckpointComplete
// reaches every CheckpointListener (two-phase-commit sinks commit there).
// On restore, the state an operator snapshotted (redistributed for the new
// parallelism) is in Context.Restored when Open is called.

// ListMode says how operator list state is redistributed on restore.
type ListMode uint8

const (
	// SplitList entries are dealt out over the new subtasks (Flink's
	// ListState): each entry goes to exactly one subtask.
	SplitList ListMode = iota
	// UnionList entries all go to every subtask (UnionListState).
	UnionList
	// BroadcastList: every subtask snapshotted the same entries; each new
	// subtask gets one copy (BroadcastState).
	BroadcastList
)

// NamedList is one named operator list state.
type NamedList struct {
	Name    string
	Mode    ListMode
	Entries [][]byte
}

// Snapshot is the state of one operator subtask at a checkpoint.
type Snapshot struct {
	// KeyGroups holds the keyed state of each owned key group that has
	// any, keyed by key group.
	KeyGroups map[int][]byte
	// Lists holds operator list state.
	Lists []NamedList
}

// Restored is the state an operator subtask starts from.
type Restored struct {
	CheckpointID int64
	// KeyGroups holds the sections of the key groups this subtask owns.
	KeyGroups map[int][]byte
	// Lists holds the list state entries redistributed to this subtask.
	Lists []NamedList
}

// List returns the entries of the named list, or nil.
func (r *Restored) List(name string) [][]byte {
	if r == nil {
		return nil
	}
	for _, l := range r.Lists {
		if l.Name == name {
			return l.Entries
		}
	}
	return nil
}

// Snapshotter is implemented by operators with state.
type Snapshotter interface {
	SnapshotState(checkpointID int64) (*Snapshot, error)
}

// CheckpointListener is implemented by operators that act on the outcome of
// checkpoints.
type CheckpointListener interface {
	NotifyCheckpointComplete(checkpointID int64) error
	NotifyCheckpointAborted(checkpointID int64) error
}
