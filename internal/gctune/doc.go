// Package gctune owns the Go runtime's garbage-collector settings of a
// process that runs tasks (`weir run`, `weir taskmanager`).
//
// A Flink TaskManager is given its process size
// (taskmanager.memory.process.size) and sizes its JVM heap from it. The Go
// runtime has two knobs instead: GOGC, how much the heap may grow between
// two collections, and GOMEMLIMIT, a soft limit near which it collects
// harder. Go's defaults (GOGC=100, no limit) suit a service with a small
// live heap; a task's records are short-lived and its state is long-lived,
// so the default collects often while most of what it marks survives. With
// a limit derived from the process's memory, the collector can let the heap
// grow further between collections and still stay inside the process's
// share of the machine.
//
// Decide is the policy, a pure function of the environment and the memory
// figures; Apply puts a decision into effect and can undo it. A GOGC or
// GOMEMLIMIT set in the environment always wins: the runtime has applied it
// already and Decide leaves both settings alone.
package gctune
