// Package opstate is the operator state of one operator subtask: named
// lists that are not partitioned by key (Flink's operator ListState and
// UnionListState) and broadcast map state (Flink's BroadcastState).
//
// A Store is created when the operator opens, from the state the subtask
// restores (op.Context.Restored, already redistributed for the new
// parallelism by internal/restore: split lists dealt out round-robin,
// union lists whole to every subtask, broadcast state one copy to every
// subtask). States are registered by name with their element types and
// decoded then; at a barrier Snapshot encodes every registered state into
// op.NamedList entries, which the task stores with the checkpoint.
//
// Values live decoded on the Go heap between checkpoints; a snapshot
// copies them into bytes on the task's goroutine, so the function may go
// on changing them at once. A Store is owned by its task's goroutine and
// is not safe for concurrent use.
//
// Files: store.go (the Store, registration and snapshots), list.go (list
// state), broadcast.go (broadcast map state and the declared
// BroadcastStates of a broadcast operator).
package opstate
