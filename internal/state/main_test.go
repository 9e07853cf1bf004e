package state

import (
	"testing"

	"go.uber.org/goleak"
)

// A Pebble backend runs Pebble's background goroutines (compactions,
// flushes, the table cache's release loop); closing the backend must stop
// them all.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
