//go:build !race

package network_test

// raceEnabled: the race detector is off.
const raceEnabled = false
