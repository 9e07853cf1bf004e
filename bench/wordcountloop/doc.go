// Package wordcountloop holds the baseline of the word-count benchmarks:
// the input they count (WriteInput) and the hand-written single-goroutine
// program the wordcount job is compared with (Count). The command in
// ./cmd runs both as a process, for whole-process comparisons with
// `weir run wordcount`.
package wordcountloop
