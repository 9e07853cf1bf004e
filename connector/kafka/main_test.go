package kafka

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests that start a cluster check for leaks themselves, test by test
// (startCluster); this catches the rest: the enumerator's discovery loop
// and a Kafka client of a test that builds one without a cluster.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
