// Package state holds the keyed state of one keyed operator instance, on the
// Go heap (Flink's HashMapStateBackend) or in Pebble, an LSM tree on local
// disk (Flink's EmbeddedRocksDBStateBackend), and captures it for
// checkpoints.
//
// # What it owns
//
// A [KeyedBackend] belongs to one operator of one subtask. That subtask owns
// the contiguous key-group range [start, end] handed out by the scheduler
// (key groups are the unit of rescaling: max parallelism of them exist per
// operator). The backend stores every registered state partitioned by key
// group, so a checkpoint can snapshot, and a restore can redistribute, state
// one key group at a time without touching the others.
//
// On the heap ([NewKeyedBackend]) each state keeps one Go map per local key
// group: an access is one slice index (the current key group) plus one map
// lookup keyed by K; keys are never boxed. Without TTL a ValueState's map
// holds a cell per key and a MapState's a cell with the key's map, kept in
// a slice while it has at most eight entries (celltable.go, mapcells.go),
// and a state finds the current key's cell once per key. In Pebble ([OpenPebble]) every
// entry is one Pebble key, key group first (see kvstore.go), and every access
// encodes or decodes with the codecs of K and the value; a MapState keeps a
// key's whole map as one value. Clearing a key's state deletes its entry, so
// state for keys that have gone away does not accumulate.
//
// # Checkpoints
//
// [KeyedBackend.Capture], called by the owner at a checkpoint barrier, is
// cheap: the heap backend hands out its key-group maps and copies a group
// on its next write (copy-on-write per key group, so the captured maps never
// change), Pebble flushes its memtable and takes a Pebble checkpoint (hard
// links to the immutable SST files). The [Capture] is then serialized into
// key-group sections ([Capture.Section], the backend-independent format of
// savepoints) or, for Pebble, uploaded as files ([Capture.Files]) on another
// goroutine while the owner goes on. A restore reads sections back with
// [KeyedBackend.RestoreKeyGroup] into either backend, and Pebble files with
// [OpenPebble] on the downloaded directory (same key groups) or
// [RestorePebble] after a rescale (the most-overlapping old database
// clipped with range deletions, the others' spans ingested as SST files;
// [KeyedBackend.CopyFromPebble], a Put per key, is the old way).
//
// Values a heap state holds are shared with captures: a caller must not
// change a value it read in place (the elements of a slice inside it, the
// target of a pointer) but build a new one and write that, as Flink's heap
// backend also requires. The states' own containers (a ListState's slice, a
// MapState's map) are handled by the backend.
//
// The state kinds are Flink's: [ValueState], [ListState], [MapState],
// [ReducingState] and [AggregatingState]. They are registered by name with
// the generic functions [Value], [List], [Map], [Reducing] and [Aggregating]
// (Go methods cannot take type parameters). Registering a name again returns
// the state registered first; asking for a different kind or different type
// parameters is an error ([ErrIncompatibleState]). A reducing or aggregating
// state keeps the functions of its first registration.
//
// # What callers must do
//
//   - Use the backend and all of its states from one goroutine: the task's
//     mailbox goroutine owns them. There are no locks.
//   - Call [KeyedBackend.SetCurrentKey] with the record's key and key group
//     before touching state; every state access is for the current key. The
//     caller computes the key group (the same function must be used
//     everywhere, or state would be looked up in the wrong group).
//   - Check [KeyedBackend.Err] after processing a record (or at least before
//     a checkpoint). Usage errors that the access methods cannot return, such
//     as a key group outside the backend's range or an access with no current
//     key, are recorded there, first error wins; the failing access reads the
//     zero value and drops writes. A non-nil Err means the task should fail.
//     Errors returned by user functions (reduce, add, result) are returned to
//     the caller and are not recorded.
//   - Treat slices returned by [ListState.Get] as read-only views that are
//     valid until the next write to that key's list.
//
// # Iteration order
//
// [KeyedBackend.ApplyToAllKeys] and [KeyedBackend.Keys] visit key groups in
// ascending order; within a key group the order is Go's map order, which is
// unspecified and differs between runs. Keeping insertion order would need a
// second index per state and an extra indirection on every access, which the
// hot path should not pay for a rarely used operation; a caller that needs a
// deterministic order (a snapshot writer, a test) collects the keys of one key
// group with Keys and sorts them.
package state
