//go:build !race

package codec_test

// raceEnabled: the race detector is off (see race_test.go).
const raceEnabled = false
