// Package peers compares Weir's Nexmark reference answers with other stream
// processing engines. Its benchmarks (bench_test.go) run each query through
// the reference loop and through each peer over the same generated events,
// in one `go test -bench` run; the peers' correctness tests live beside their
// implementations (beamnexmark for Apache Beam on the prism runner).
//
// This is a module of its own so that the main Weir module never depends on
// a peer engine.
package peers
