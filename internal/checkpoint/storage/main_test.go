package storage_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no test leaves a goroutine behind: a blob writer or
// reader that is never closed would.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
