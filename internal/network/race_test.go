//go:build race

package network_test

// raceEnabled: the race detector is on; allocation budgets are checked in
// runs without it, whose instrumentation does not allocate.
const raceEnabled = true
