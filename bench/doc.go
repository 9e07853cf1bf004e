// Command bench runs Weir's benchmark suite in one go and publishes it:
//
//	go run ./bench                 # quick profile, under 10 minutes on 2 cores
//	go run ./bench -profile full   # more iterations and events
//
// It runs the `go test -bench` benchmarks of the engine, the word count,
// the FLIP-147 figures, the failover time, the checkpoint trigger plan,
// the Nexmark queries (each beside its single-goroutine reference, the
// limit) and, when the separate module bench/peers is present, Apache
// Beam's Go SDK on the same queries. Every benchmark reports its baseline
// from the same run, so the ratios can be trusted on a noisy machine. The results go to
// bench/results/<date>.json; a generated section of docs/benchmarks.md
// (between its bench:begin and bench:end markers) and the SVG plots in
// docs/benchmarks/ are rewritten from them.
//
// The benchmarks themselves are ordinary Go benchmarks in this directory
// and beside the code they measure: `go test ./bench -run xxx -bench .`.
package main
