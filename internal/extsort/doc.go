// Package extsort sorts records by key with a bounded amount of memory:
// records are collected in memory until a budget is reached, then sorted
// and spilled to a run file on local disk; the end of input merges the runs
// and what is left in memory into one sequence in key order.
//
// Batch execution uses it to bring the records of each key together before
// a keyed operator, which then keeps the state of one key at a time
// (Flink's sort-based batch execution of keyed DataStream operators).
//
// The sort is stable: records with equal keys come out in the order they
// were added. A Sorter is used by one goroutine.
package extsort
