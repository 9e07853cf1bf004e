package taskmanager_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every subtask runs in a goroutine of the TaskManager: none may outlive
// the test that started it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
