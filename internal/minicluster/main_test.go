package minicluster_test

import (
	"testing"

	"go.uber.org/goleak"
)

// A mini-cluster starts a JobMaster loop and a goroutine per subtask; Run
// promises that all of them ended when it returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
