// Package cache keeps the cached intermediate results of an Env (FLIP-205):
// datasets written, while an execution computes a cached stream, as
// BLOCKING_PERSISTENT partitions in the blocking partition file format
// (docs/format/blocking-partition.md), one partition per producing
// subtask, and read by the cache sources of later executions.
//
// The Registry is the Env's table of datasets (Flink keeps it in the
// ResourceManager's cluster partition tracker): a dataset is complete
// once every producing subtask finished its partition and the execution
// finished; it is released (files deleted) by Invalidate, by the Env's
// Close, or when a partition turns out missing or corrupt. A Dataset is
// a plain value, so that a later registry can persist it.
//
// Writer is the operator chained behind the cached transformation that
// forwards every element and appends it to its subtask's partition; a
// write error (a full disk) abandons the dataset with a warning and never
// fails the execution. Reader reads one partition back.
package cache
