package grpcrpc_test

import (
	"context"
	"testing"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
)

// BenchmarkCall is one call at a time over loopback: the round trip.
func BenchmarkCall(b *testing.B) {
	c := newBenchCluster(b)
	m := &rpcpb.EndOfData{Task: task}
	for b.Loop() {
		if _, err := c.jm.EndOfData(context.Background(), m).Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPipelinedCalls makes 100 calls before it waits for their
// answers, as a TaskManager reporting many subtasks does: ns/op is per
// call.
func BenchmarkPipelinedCalls(b *testing.B) {
	c := newBenchCluster(b)
	m := &rpcpb.EndOfData{Task: task}
	fs := make([]*rpc.Future[*rpcpb.Ack], 0, 100)
	for b.Loop() {
		fs = append(fs, c.jm.EndOfData(context.Background(), m))
		if len(fs) == cap(fs) {
			for _, f := range fs {
				if _, err := f.Wait(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			fs = fs[:0]
		}
	}
	for _, f := range fs {
		if _, err := f.Wait(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
