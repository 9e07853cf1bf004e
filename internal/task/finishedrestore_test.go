package task_test

import (
	"encoding/binary"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
)

// A subtask restored as finished (FLIP-147) ends its outputs as a finishing
// subtask does: the final watermark, then EndOfData, then EndOfPartition. A
// consumer restored from a checkpoint taken before it had taken the final
// watermark would otherwise never fire its event-time timers.
func TestFinishedOnRestoreSendsFinalWatermark(t *testing.T) {
	var polls atomic.Int64
	jg := pipeline(t, func(out any) (any, error) {
		return &bigSource{out: out.(op.Output[string]), polls: &polls, polled: make(chan struct{})}, nil
	}, notRun)
	net := network.NewRegistry()
	start(t, task.Descriptor{JobID: "j", Graph: jg, Vertex: jg.Vertices[0], Network: net, FinishedOnRestore: true})
	g := network.NewGate(1, network.DefaultCredit)
	if err := net.RequestSubpartition(network.PartitionID{Job: "j", Vertex: jg.Vertices[0].ID}, 0, g.Channel(0)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) == 0 || got[len(got)-1] != "EndOfPartition" {
		it, ch, ok := g.Poll()
		if !ok {
			<-g.Available()
			continue
		}
		switch e := it.Event.(type) {
		case nil:
			for buf := it.Buf; len(buf) > 0; {
				if buf[0] != network.TagWatermark || len(buf) < 9 {
					t.Fatalf("data %x, want only the final watermark", buf)
				}
				if wm := int64(binary.LittleEndian.Uint64(buf[1:])); wm != op.MaxWatermark {
					t.Fatalf("watermark %d, want the final one", wm)
				}
				got = append(got, "MaxWatermark")
				buf = buf[9:]
			}
			g.Recycle(ch, it.Buf)
		case network.EndOfData:
			got = append(got, "EndOfData")
		case network.EndOfPartition:
			got = append(got, "EndOfPartition")
		default:
			t.Fatalf("unexpected event %T", e)
		}
	}
	if want := []string{"MaxWatermark", "EndOfData", "EndOfPartition"}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("output %v, want %v", got, want)
	}
	if polls.Load() != 0 {
		t.Fatalf("the finished source was polled %d times", polls.Load())
	}
}
