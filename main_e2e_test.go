package weir_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every job's goroutines must be gone when Execute returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
