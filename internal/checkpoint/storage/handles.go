package storage

// The handles that cross the boundary between a JobMaster and its tasks.
// A task writes its own state through a CheckpointDir (WriterAt) and
// acknowledges a checkpoint with a TaskState: only where each stream and
// file is, never the bytes. On restore, the JobMaster maps the metadata to
// subtasks and deploys each one with a TaskRestore, and the task reads
// the state itself (ReadState, ReadShared). The types are plain structs of
// strings, integers and the small inline streams the metadata itself
// keeps (StreamHandle.Inline, OperatorListState.Entries), so that a wire
// format can mirror them field by field; they are the one definition.

// TaskState is a task's acknowledgement of one snapshot: what each
// operator of its chain wrote.
type TaskState struct {
	// Location is the snapshot directory the task wrote into (the
	// CheckpointDir's Location): the JobMaster deletes the files of an
	// acknowledgement that arrives after its snapshot ended.
	Location string
	// Operators holds the state of each operator by uid; an operator
	// without state has no entry. Their Index is the task's subtask.
	Operators map[string]SubtaskState
}

// TaskRestore is what one subtask starts from: handles into the snapshot
// at Location, already mapped to this subtask (key groups, list entries
// and channels redistributed for the new parallelism).
type TaskRestore struct {
	// CheckpointID is the id of the snapshot restored from.
	CheckpointID int64
	// Location is the snapshot directory that the handles' paths are
	// relative to.
	Location string
	// Reusable is set when the snapshot is a checkpoint of this job in its
	// own checkpoint storage, tracked by its shared-state registry: an
	// incremental backend may reference its shared files from later
	// checkpoints instead of uploading them again.
	Reusable bool
	// Operators holds the state of each operator of the chain that has any
	// to restore.
	Operators []OperatorRestore
	// ChannelState holds the in-flight input data of an unaligned
	// checkpoint, one stream per input channel of the chain's head
	// (EncodeBuffers framing, see package restore); empty handles for
	// channels without data.
	ChannelState []StreamHandle
}

// OperatorRestore is the state one operator subtask starts from.
type OperatorRestore struct {
	// UID is the operator's stable id.
	UID string
	// KeyGroupStart and KeyGroupEnd are the inclusive range of key groups
	// this subtask owns; the handles in Keyed may cover more, and the task
	// keeps only its own.
	KeyGroupStart, KeyGroupEnd int
	// Keyed holds the handles of the old subtasks' keyed state whose key
	// groups overlap [KeyGroupStart, KeyGroupEnd].
	Keyed []KeyedStateHandle
	// Lists holds the operator list state entries dealt to this subtask.
	Lists []OperatorListState
}
