// Package graph owns the translation of a program into the graphs the
// runtime schedules, the Flink way:
//
//	Transformation (what the API records, one per call)
//	  -> StreamGraph (one node per operator; virtual transformations such
//	     as keyBy, union and side outputs become edge properties)
//	  -> JobGraph    (chains of operators become one JobVertex; edges
//	     between vertices are POINTWISE or ALL_TO_ALL)
//
// An execution translates only what its sinks need: Upstream picks those
// transformations, in the order they were created, from the sinks an Env
// collected since its last execution.
//
// Everything here is pure: no goroutines, no I/O, so the translation and the
// chaining rules are tested on values. The element types and operator
// factories of nodes are opaque to this package (Type, Factory); the runtime's
// typed glue gives them meaning.
//
// Chaining follows Flink: an edge is chained when it uses the forward
// partitioner, both ends have the same parallelism, the target has exactly
// one input edge, the target allows being chained to its predecessor and the
// source allows successors, and chaining is enabled for the job. Chains may
// fan out (one operator feeding two chained successors), so a chain is a
// tree rooted at its head.
package graph
