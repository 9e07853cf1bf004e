// Package kafkatest starts Kafka clusters for tests: franz-go's kfake, an
// in-process cluster that speaks the Kafka protocol (transactions,
// read_committed, consumer groups) over TCP on loopback, so that clients
// under test go through real sockets and the real protocol. A cluster lives
// as long as the test that started it.
package kafkatest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Cluster is a running kfake cluster.
type Cluster struct {
	*kfake.Cluster
}

// Start starts a cluster of three brokers on 127.0.0.1 (ports chosen by the
// system) with the given extra options, and stops it when the test ends.
func Start(t testing.TB, opts ...kfake.Opt) *Cluster {
	t.Helper()
	all := append([]kfake.Opt{kfake.NumBrokers(3)}, opts...)
	c, err := kfake.NewCluster(all...)
	if err != nil {
		t.Fatalf("kafkatest: start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return &Cluster{c}
}

// Brokers returns the brokers' addresses, host:port.
func (c *Cluster) Brokers() []string { return c.ListenAddrs() }

// BrokerList returns the brokers' addresses as one comma-separated string,
// the form of a --kafka-brokers flag.
func (c *Cluster) BrokerList() string { return strings.Join(c.ListenAddrs(), ",") }

// Read is ReadAll on the cluster for a test: it gives up after 30 s and
// fails the test on an error.
func (c *Cluster) Read(t testing.TB, topic string, committed bool) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lines, err := ReadAll(ctx, c.Brokers(), topic, committed)
	if err != nil {
		t.Fatalf("kafkatest: read %s: %v", topic, err)
	}
	return lines
}
