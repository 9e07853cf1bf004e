// Package bench holds Weir's benchmarks, each beside its baseline in the
// same run so that a ratio can be read off one machine at one moment:
// `go test ./bench -run xxx -bench . -benchtime 3x`.
//
// The engine benchmarks report records/s and compare with a hand-written
// single-goroutine loop doing the same work; see docs/benchmarks.md for
// the figures and how they were taken.
package bench
