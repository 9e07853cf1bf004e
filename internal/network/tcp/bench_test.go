package tcp_test

import (
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// BenchmarkThroughput moves 32 KiB buffers from a producer's subpartition
// to a consumer's input channel, with the local Registry and with the TCP
// Manager over loopback, at the default credit and backlog and at a
// larger credit. Compare MB/s of tcp to local in the same run:
//
//	go test -run '^$' -bench Throughput -benchtime 2s ./internal/network/tcp/
func BenchmarkThroughput(b *testing.B) {
	for _, credit := range []int{network.DefaultCredit, 8} {
		for _, transport := range []string{"local", "tcp"} {
			b.Run(fmt.Sprintf("%s/credit=%d", transport, credit), func(b *testing.B) {
				var cm network.ConnectionManager
				id := pid(0, 0)
				var part *network.ResultPartition
				switch transport {
				case "local":
					cm = network.NewRegistry()
					p, err := network.NewResultPartition(id, network.PartitionOptions{Subpartitions: 1, Backlog: network.DefaultBacklog})
					if err != nil {
						b.Fatal(err)
					}
					part = p
				case "tcp":
					c := newCluster(b, "producer-tm", "consumer-tm")
					part = c.place(b, "producer-tm", id, 1, network.DefaultBacklog)
					cm = &split{producer: c.byName["producer-tm"], consumer: c.byName["consumer-tm"]}
				}
				if err := cm.RegisterPartition(part); err != nil {
					b.Fatal(err)
				}
				g := network.NewGate(1, credit)
				defer g.Release()
				if err := cm.RequestSubpartition(id, 0, g.Channel(0)); err != nil {
					b.Fatal(err)
				}
				benchmarkStream(b, part, g)
			})
		}
	}
}

// split registers with the producer's Manager and requests through the
// consumer's.
type split struct{ producer, consumer network.ConnectionManager }

func (s *split) RegisterPartition(p *network.ResultPartition) error {
	return s.producer.RegisterPartition(p)
}

func (s *split) RequestSubpartition(id network.PartitionID, sub int, ch *network.InputChannel) error {
	return s.consumer.RequestSubpartition(id, sub, ch)
}

func (s *split) ReleaseJob(string, int) {}

func benchmarkStream(b *testing.B, part *network.ResultPartition, g *network.Gate) {
	const size = network.DefaultBufferSize
	s := part.Subpartition(0)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	errs := make(chan error, 1)
	go func() {
		for range b.N {
			waitWritable(part)
			buf := s.TakeBuffer(size)[:0]
			buf = append(buf, make([]byte, size)...)[:size]
			if _, err := s.Add(network.Item{Buf: buf}); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for n := 0; n < b.N; {
		it, ch, ok := g.Poll()
		if !ok {
			<-g.Available()
			continue
		}
		if err := failure(it); err != nil {
			b.Fatal(err)
		}
		n++
		g.Recycle(ch, it.Buf)
	}
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
