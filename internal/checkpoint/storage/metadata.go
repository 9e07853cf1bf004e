package storage

import (
	"strconv"
	"strings"
)

// Kind tells a checkpoint from a savepoint.
type Kind uint8

// The kinds of snapshot. The zero Kind is invalid, so a Metadata that the
// runtime forgot to fill is refused by Encode rather than written as one or
// the other.
const (
	// KindCheckpoint is a snapshot the engine takes and retires itself. It
	// may reference shared files of incremental backends outside its
	// directory.
	KindCheckpoint Kind = 1
	// KindSavepoint is a snapshot a user asked for and owns. It is
	// self-contained: every file it references is inside its directory.
	KindSavepoint Kind = 2
)

// String returns "checkpoint", "savepoint" or "Kind(n)".
func (k Kind) String() string {
	switch k {
	case KindCheckpoint:
		return "checkpoint"
	case KindSavepoint:
		return "savepoint"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Mode is how the entries of an operator list state are redistributed when
// the operator is restored at another parallelism, as in Flink.
type Mode uint8

// The redistribution modes of operator list state.
const (
	// ModeSplit splits the union of all subtasks' entries evenly (round
	// robin) across the new subtasks.
	ModeSplit Mode = 1
	// ModeUnion gives every new subtask all entries of all old subtasks.
	ModeUnion Mode = 2
	// ModeBroadcast gives every new subtask the entries of one old
	// subtask (all old subtasks hold the same entries).
	ModeBroadcast Mode = 3
)

// String returns "split", "union", "broadcast" or "Mode(n)".
func (m Mode) String() string {
	switch m {
	case ModeSplit:
		return "split"
	case ModeUnion:
		return "union"
	case ModeBroadcast:
		return "broadcast"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Metadata is the content of a snapshot's _metadata file: everything needed
// to restore a job, either inline or as handles to state files. The runtime
// fills it; this package encodes, validates and stores it.
type Metadata struct {
	// Version is the format version the metadata was read with
	// (FormatVersion when written by this build). Zero when building a
	// Metadata to write; Encode refuses any other value than zero or
	// FormatVersion.
	Version uint16
	// JobID is the id of the job the snapshot belongs to.
	JobID string
	// CheckpointID is the snapshot's checkpoint id (savepoints take an id
	// from the same counter, as in Flink).
	CheckpointID int64
	// Timestamp is when the snapshot was triggered, in milliseconds since
	// the Unix epoch.
	Timestamp int64
	// Kind says whether this is a checkpoint or a savepoint.
	Kind Kind
	// Operators holds the state of every operator, by stable operator UID.
	Operators []OperatorState
	// MasterStates holds state owned by the JobMaster rather than by an
	// operator, e.g. a source's split enumerator.
	MasterStates []MasterState
}

// MasterState is a named blob of JobMaster-side state.
type MasterState struct {
	// Name identifies the state; unique within a Metadata.
	Name string
	// Data is opaque to this package.
	Data []byte
}

// OperatorState is the state of one operator across its subtasks.
type OperatorState struct {
	// UID is the operator's stable id, unique within a Metadata; state is
	// matched to operators by it on restore.
	UID string
	// Name is the operator's display name (informational).
	Name string
	// Parallelism is the number of subtasks when the snapshot was taken.
	Parallelism int
	// MaxParallelism is the number of key groups.
	MaxParallelism int
	// FullyFinished is set when every subtask had finished (FLIP-147): the
	// operator must not be restored into a running state.
	FullyFinished bool
	// Subtasks holds the state of the subtasks that have any, in any order.
	Subtasks []SubtaskState
	// Coordinator is the operator coordinator's state (opaque).
	Coordinator []byte
}

// SubtaskState is the state of one subtask of an operator.
type SubtaskState struct {
	// Index is the subtask index, in [0, Parallelism).
	Index int
	// Finished is set, in a checkpoint's metadata, when the subtask was
	// FINISHED before the snapshot (it has no state in it). In a task's
	// acknowledgement (TaskState), it says that the subtask's operators
	// had finished before the snapshot: the subtask is waiting for its
	// final checkpoint (FLIP-147), and its state is stored as a running
	// one's.
	Finished bool
	// Keyed holds keyed state, one handle per contiguous key-group range.
	Keyed []KeyedStateHandle
	// OperatorLists holds operator (non-keyed) list states.
	OperatorLists []OperatorListState
	// ChannelState holds in-flight data of an unaligned checkpoint, one
	// stream per input channel or output subpartition; its layout belongs
	// to the network stack.
	ChannelState []StreamHandle
	// Raw is opaque subtask state the runtime chooses to keep inline.
	Raw []byte
}

// KeyedStateHandle points at the keyed state of a range of key groups.
type KeyedStateHandle struct {
	// KeyGroupStart and KeyGroupEnd are the inclusive range of key groups.
	KeyGroupStart, KeyGroupEnd int
	// Offsets holds, per key group of the range in order, the offset of
	// that key group's data inside Stream; empty when the backend does not
	// index its stream by key group (incremental backends).
	Offsets []int64
	// Stream is the snapshot stream (full backends) or the backend's own
	// metadata stream (incremental backends).
	Stream StreamHandle
	// Shared lists the files of an incremental backend, each with the key
	// the backend shares it under between checkpoints.
	Shared []SharedFile
}

// OperatorListState is one named operator list state, kept inline: operator
// state is small (offsets, split assignments), as in Flink.
type OperatorListState struct {
	// Name of the state, unique per operator.
	Name string
	// Mode is the redistribution on rescale.
	Mode Mode
	// Entries are the list elements, opaque to this package.
	Entries [][]byte
}

// StreamHandle points at a stream of bytes: a file, or bytes kept inline in
// the metadata, or nothing (the zero handle, an empty stream).
type StreamHandle struct {
	// Path is relative to the snapshot directory: a plain file name for a
	// file in that directory, or "taskowned/NAME" for a task-owned file of
	// the job (checkpoints only). Empty for inline and empty streams.
	Path string
	// Size is the length of the stream in bytes.
	Size int64
	// Inline holds a small stream's bytes; Path is then empty.
	Inline []byte
	// CRC is the CRC-32C (Castagnoli) of the stream's bytes.
	CRC uint32
}

// SharedFile is a file of an incremental backend, which later snapshots may
// reference again.
type SharedFile struct {
	// Key is the backend's name for the file (e.g. "uid/3/000042.sst").
	Key string
	// Path is "shared/NAME" for a file in the job's shared directory
	// (checkpoints; tracked by a SharedStateRegistry), or a plain file name
	// for a file inside the snapshot directory (savepoints, and files a
	// checkpoint does not share).
	Path string
	// Size is the length of the file in bytes.
	Size int64
	// CRC is the CRC-32C (Castagnoli) of the file's bytes when HasCRC is
	// set, and zero otherwise.
	CRC uint32
	// HasCRC is set when the handle records the file's CRC: always for a
	// file WriteShared wrote, never for one of a snapshot in format 1.0,
	// which recorded only the size.
	HasCRC bool
}

// IsInline reports whether h keeps its bytes in the metadata.
func (h StreamHandle) IsInline() bool { return h.Inline != nil }

// IsEmpty reports whether h is the zero handle: no file, no bytes.
func (h StreamHandle) IsEmpty() bool { return h.Path == "" && h.Inline == nil }

// IsShared reports whether f lives in the job's shared directory, and so is
// owned by the SharedStateRegistry rather than by one snapshot.
func (f SharedFile) IsShared() bool { return strings.HasPrefix(f.Path, sharedPrefix) }

// SharedFiles returns the files in the job's shared directory that md
// references, once each, in the order first referenced. These are what a
// SharedStateRegistry must be told about when md is retained.
func (md *Metadata) SharedFiles() []SharedFile {
	var out []SharedFile
	seen := map[string]bool{}
	md.eachShared(func(f SharedFile) {
		if f.IsShared() && !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	})
	return out
}

// eachStream calls fn for every non-empty stream handle md references.
func (md *Metadata) eachStream(fn func(StreamHandle)) {
	for _, op := range md.Operators {
		for _, st := range op.Subtasks {
			for _, k := range st.Keyed {
				if !k.Stream.IsEmpty() {
					fn(k.Stream)
				}
			}
			for _, h := range st.ChannelState {
				if !h.IsEmpty() {
					fn(h)
				}
			}
		}
	}
}

// eachShared calls fn for every shared-file reference in md.
func (md *Metadata) eachShared(fn func(SharedFile)) {
	for _, op := range md.Operators {
		for _, st := range op.Subtasks {
			for _, k := range st.Keyed {
				for _, f := range k.Shared {
					fn(f)
				}
			}
		}
	}
}
