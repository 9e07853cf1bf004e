package tcp_test

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/network/tcp"
)

// awaitFailure polls g until an item arrives and returns its failure.
func awaitFailure(t *testing.T, g *network.Gate) error {
	t.Helper()
	it, _ := next(t, g)
	err := failure(it)
	if err == nil {
		t.Fatalf("polled %#v, want a ChannelFailed", it)
	}
	return err
}

// When the producer's TaskManager goes away, its consumers' channels fail
// with an error naming the lost connection, even a channel blocked for
// barrier alignment; nothing waits for data that cannot come.
func TestProducerLossFailsConsumerChannels(t *testing.T) {
	c := newCluster(t, "producer-tm", "consumer-tm")
	ids := []network.PartitionID{pid(0, 0), pid(0, 1)}
	for _, id := range ids {
		c.produce(t, "producer-tm", id, 1, 2)
	}
	g := c.consume(t, "consumer-tm", 2, 0, ids...)
	g.Block(0)
	if err := c.byName["producer-tm"].Close(); err != nil {
		t.Fatal(err)
	}
	for range ids {
		err := awaitFailure(t, g)
		if !strings.Contains(err.Error(), "connection with") || !strings.Contains(err.Error(), "job/1/v0-s") {
			t.Errorf("failure %q does not name the connection and the partition", err)
		}
	}
	if dialed, _ := c.byName["consumer-tm"].Connections(); dialed != 0 {
		t.Errorf("%d dialed connections remain after the peer closed", dialed)
	}
}

// When the consumer's TaskManager goes away, the subpartitions it read
// are released: a back-pressured producer wakes up and its next write
// fails with ErrReleased, which fails the producing task.
func TestConsumerLossReleasesSubpartitions(t *testing.T) {
	c := newCluster(t, "producer-tm", "consumer-tm")
	id := pid(0, 0)
	p := c.produce(t, "producer-tm", id, 1, 1)
	c.consume(t, "consumer-tm", 1, 0, id)
	for range 2 { // credit + backlog: then back-pressure
		waitWritable(p)
		add(t, p.Subpartition(0), buf("x"))
	}
	if p.IsAvailable() {
		t.Fatal("available with its credit and backlog used")
	}
	if err := c.byName["consumer-tm"].Close(); err != nil {
		t.Fatal(err)
	}
	waitWritable(p) // a released subpartition counts as writable
	if _, err := p.Subpartition(0).Add(buf("y")); !errors.Is(err, network.ErrReleased) {
		t.Fatalf("write after the consumer's loss: %v, want ErrReleased", err)
	}
}

// A request the producer cannot serve fails its channel with the
// producer's reason, and leaves the connection to the other channels.
func TestBadRequestFailsOnlyItsChannel(t *testing.T) {
	c := newCluster(t, "producer-tm", "consumer-tm")
	id := pid(0, 0)
	p := c.produce(t, "producer-tm", id, 1, 2)
	bad := c.consume(t, "consumer-tm", 2, 5, id) // there is no subpartition 5
	if err := awaitFailure(t, bad); !strings.Contains(err.Error(), "has no subpartition 5") {
		t.Fatalf("failure %q does not say why", err)
	}
	good := c.consume(t, "consumer-tm", 2, 0, id)
	add(t, p.Subpartition(0), buf("still here"))
	if got := receive(t, good, 1); got[0] != "still here" {
		t.Fatalf("the good channel got %q", got)
	}
}

// A producer that is not there gives the request a clear error at once.
func TestDialFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	m, err := tcp.New(tcp.Options{
		Locate: func(network.PartitionID) (string, error) { return dead, nil },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), DialTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	err = m.RequestSubpartition(pid(0, 0), 0, network.NewGate(1, 1).Channel(0))
	if err == nil || !strings.Contains(err.Error(), "dial TaskManager "+dead) {
		t.Fatalf("request to a dead TaskManager: %v", err)
	}
}

// Garbage sent to the data port closes that connection only: the
// Manager goes on serving its real consumers.
func TestGarbageClosesOnlyItsConnection(t *testing.T) {
	c := newCluster(t, "producer-tm", "consumer-tm")
	id := pid(0, 0)
	p := c.produce(t, "producer-tm", id, 1, 2)
	g := c.consume(t, "consumer-tm", 2, 0, id)
	for _, junk := range [][]byte{
		[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		tcp.AppendFrame(nil, tcp.FrameBuffer, 0, []byte("a producer's frame from a consumer")),
		{0, 0, 0, 12, 1, 1, 0, 0, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef}, // bad checksum
	} {
		nc, err := net.Dial("tcp", c.byName["producer-tm"].Addr())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nc.Write(junk); err != nil {
			t.Fatal(err)
		}
		if n, err := nc.Read(make([]byte, 1)); err == nil {
			t.Fatalf("the producer answered %d bytes to %q instead of closing", n, junk)
		}
		nc.Close()
	}
	add(t, p.Subpartition(0), buf("after the junk"))
	if got := receive(t, g, 1); got[0] != "after the junk" {
		t.Fatalf("got %q", got)
	}
}

// A producer that sends beyond the credit it was given breaks the
// protocol: the consumer closes the connection and fails the channel
// rather than take more memory than its credit's buffers.
func TestBufferWithoutCreditFailsConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	rogue := make(chan error, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			rogue <- err
			return
		}
		defer nc.Close()
		f, err := tcp.ReadFrame(nc, tcp.DefaultMaxPayload)
		if err != nil {
			rogue <- err
			return
		}
		req, ok := f.Message.(*tcp.PartitionRequest)
		if !ok || req.Credit != 1 {
			rogue <- errors.New("unexpected request")
			return
		}
		var out []byte
		for _, b := range []string{"within credit", "beyond credit"} {
			out = tcp.AppendFrame(out, tcp.FrameBuffer, f.Channel, []byte(b))
		}
		_, err = nc.Write(out)
		// Wait for the consumer to close the connection.
		_, _ = nc.Read(make([]byte, 64))
		rogue <- err
	}()
	m, err := tcp.New(tcp.Options{
		Locate: func(network.PartitionID) (string, error) { return ln.Addr().String(), nil },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	g := network.NewGate(1, 1)
	defer g.Release()
	if err := m.RequestSubpartition(pid(0, 0), 0, g.Channel(0)); err != nil {
		t.Fatal(err)
	}
	// Nothing is recycled, so no credit goes back: the second buffer is
	// beyond the credit whenever it arrives.
	var data []string
	for {
		it, _ := next(t, g)
		if err := failure(it); err != nil {
			if !strings.Contains(err.Error(), "sent an item without credit") {
				t.Fatalf("failure %q does not say why", err)
			}
			break
		}
		data = append(data, string(it.Buf))
	}
	if len(data) > 1 || (len(data) == 1 && data[0] != "within credit") {
		t.Fatalf("the channel delivered %q with a credit of 1", data)
	}
	if err := <-rogue; err != nil {
		t.Fatal(err)
	}
}
