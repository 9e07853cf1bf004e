// Package keyedop holds the keyed operators behind the public keyed
// transformations of package weir: the rolling reduce, the keyed process
// and co-process operators (and the joins built on them), and the
// event-time windows. Each embeds the keyed runtime of internal/state/keyed
// for its state and timers.
//
// The package knows nothing of package weir. A user function arrives as a
// func or as an interface of this package whose methods take the types
// defined here (package weir's KeyedContext and TimerService are aliases
// of Context and TimerService, so a weir.KeyedProcessFunction is a
// ProcessFunction as it is); its lifecycle arrives as Hooks, which hand the
// keyed backend to package weir so that it can build the function's
// KeyedRuntimeContext. The operators call the function as the root package
// did, so the per-record path is the same.
//
// Files: reduce.go (Reduce), process.go (the process operator and its
// Context), coprocess.go (two inputs), sideoutput.go (side outputs of a
// Context) and sidebase.go (side outputs for contexts of other packages),
// window.go and assigner.go (windows), join.go (the joins and the window
// coGroup as co-process functions), intervaljoin.go (the interval join),
// broadcast.go (the keyed broadcast process operator).
package keyedop
