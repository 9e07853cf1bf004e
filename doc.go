// Package weir is the public API of Weir, a stream and batch dataflow
// engine for Go in the model of Apache Flink.
//
// A program creates an Env, adds sources, transforms the resulting
// DataStreams with generic functions (Map, FlatMap, Filter, KeyBy, Reduce,
// Process, windows), adds sinks, and calls Env.Execute. Without a cluster
// address Execute starts an embedded mini-cluster in the process — a
// JobManager and TaskManagers, the same pieces as a distributed cluster —
// runs the job on it, and tears it down.
//
// Type-changing operations are functions because Go methods cannot take
// type parameters; type-preserving ones (Name, UID, SetParallelism, Filter
// options) are methods. Every operation that takes a func also has a form
// that takes a value implementing the matching interface (MapWith and
// MapFunction, and so on), so a user function can carry lifecycle hooks:
// Open(*RuntimeContext), Finish() and Close(), called as FLIP-147 defines
// (Open before the first record; Finish once input ended, while output is
// still possible; Close always, also after a failure, never emitting).
//
// Each subtask gets its own shallow copy of a function value that is a
// pointer to a struct, as each Flink subtask deserializes its own instance:
// fields set in Open (state handles) belong to one subtask, while pointers,
// maps and channels set before the job started are shared by all.
//
// Mistakes in building a program (a nil function, a key type that cannot be
// hashed, a parallelism above the max parallelism) never panic: the Env
// records the first one, Err reports it, and Execute returns it before
// anything runs.
//
// The weir binary's task processes (`weir run`, `weir taskmanager`) set
// the Go runtime's GOGC to 200 under a soft memory limit of 90% of their
// memory (--process-memory): fewer collections for jobs whose records are
// short-lived (docs/benchmarks.md has the word count job's figures).
// A program that embeds the engine keeps its own runtime settings, as any
// Go library leaves them to its program: set GOGC and GOMEMLIMIT (or call
// runtime/debug.SetGCPercent and SetMemoryLimit) the same way for the same
// effect.
package weir
