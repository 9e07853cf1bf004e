// Package twophase is the operator of package weir's two-phase-commit
// sinks (Flink's Sink API, FLIP-143/191): a writer per subtask writes into
// a pending transaction and pre-commits at every checkpoint, the
// committables wait in operator state, and a committer commits them once
// their checkpoint completed, again after a restore.
//
// It knows nothing of package weir: the user's sink reaches it through
// Sink, whose writer and committer have the method sets of weir's; the
// per-record path is the writer's Write, called as before.
package twophase
