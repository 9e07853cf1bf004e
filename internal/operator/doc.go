// Package operator holds the runtime operators behind the public
// transformations of package weir: the stateless ones (map, flat map,
// filter, and in stateful.go the same with their function's operator
// state) and the sinks (a function, print, text files, collect). Package
// weir records a transformation with a factory that builds one of these
// per subtask; the task runtime drives them through the contract of
// internal/op.
//
// The operators know nothing of the public API: a user function arrives as
// a plain func (a method value for a function value), and its lifecycle
// hooks (Open, Finish, Close) as Hooks, so that this package does not
// import package weir. Every operator runs on its task's goroutine and
// holds no locks, except where several subtasks share one writer (Print).
package operator
