//go:build race

package codec_test

// raceEnabled: the race detector is on. Its sync.Pool drops items at
// random, so pooled paths allocate now and then: the allocation budgets
// are checked in runs without it.
const raceEnabled = true
