package tcp_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
)

// collect is the op.Input of a consumer channel: the records in order.
type collect struct{ got []int64 }

func (c *collect) ProcessElement(_ int64, v int64) error {
	c.got = append(c.got, v)
	return nil
}

// Two producer subtasks on one TaskManager write, through RecordWriters,
// to two consumer subtasks on another, over real loopback sockets: every
// record arrives once and in order per channel, watermarks with them, the
// aligned barrier at its place in every channel, then EndOfData and
// EndOfPartition last.
func TestWriterToGateAcrossTCP(t *testing.T) {
	const (
		records = 20000
		barrier = records / 2
		subs    = 2
	)
	c := newCluster(t, "producer-tm", "consumer-tm")
	cdc, err := codec.For[int64]()
	if err != nil {
		t.Fatal(err)
	}
	ids := []network.PartitionID{pid(0, 0), pid(0, 1)}
	var parts []*network.ResultPartition
	for _, id := range ids {
		parts = append(parts, c.place(t, "producer-tm", id, subs, 2))
	}
	// The consumers ask first: the producer's side holds their requests
	// until the partitions are registered.
	var gates []*network.Gate
	for sub := range subs {
		gates = append(gates, c.consume(t, "consumer-tm", 2, sub, ids...))
	}
	errs := make(chan error, len(ids))
	for p, part := range parts {
		if err := c.byName["producer-tm"].RegisterPartition(part); err != nil {
			t.Fatal(err)
		}
		w := network.NewRecordWriter(part, cdc, func(v int64) int { return int(v % subs) }, 4<<10)
		go func() { errs <- produce(w, part, int64(p)) }()
	}

	// Each consumer reads on its own goroutine, as its task would: the
	// producers wait for the slower of them (back-pressure).
	results := make([][]channelLog, len(gates))
	consumed := make(chan error, len(gates))
	for sub, g := range gates {
		go func() {
			var err error
			results[sub], err = drain(g, cdc)
			consumed <- err
		}()
	}
	for range gates {
		if err := <-consumed; err != nil {
			t.Fatal(err)
		}
	}
	for sub, logs := range results {
		for ch, l := range logs {
			var want []int64
			for i := int64(sub); i < records; i += subs {
				want = append(want, int64(ch)<<32|i)
			}
			if got := l.records; !slices.Equal(got, want) {
				t.Errorf("consumer %d channel %d: %d records, want %d in order (first %v)", sub, ch, len(got), len(want), got[:min(len(got), 5)])
			}
			wantEvents := []string{fmt.Sprintf("barrier 7 after %d records", barrier/subs), "event.EndOfData", "event.EndOfPartition"}
			if !slices.Equal(l.events, wantEvents) {
				t.Errorf("consumer %d channel %d: events %q, want %q", sub, ch, l.events, wantEvents)
			}
			if l.watermark != records-1 {
				t.Errorf("consumer %d channel %d: watermark %d, want %d", sub, ch, l.watermark, records-1)
			}
		}
	}
	for range ids {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// produce writes records 0..records-1 of producer p (p<<32|i), a
// watermark every 100, an aligned barrier halfway, then ends, waiting
// for the partition whenever it is not available (back-pressure).
func produce(w *network.RecordWriter[int64], part *network.ResultPartition, p int64) error {
	const records = 20000
	for i := range int64(records) {
		waitWritable(part)
		if i == records/2 {
			if _, err := w.BroadcastEvent(network.CheckpointBarrier{ID: 7, Timestamp: 1}); err != nil {
				return err
			}
		}
		if err := w.Collect(i, p<<32|i); err != nil {
			return err
		}
		if i%100 == 99 || i == records-1 {
			if err := w.EmitWatermark(i); err != nil {
				return err
			}
		}
	}
	if _, err := w.BroadcastEvent(network.EndOfData{}); err != nil {
		return err
	}
	_, err := w.BroadcastEvent(network.EndOfPartition{})
	return err
}

// channelLog is what one input channel delivered.
type channelLog struct {
	records   []int64
	events    []string
	watermark int64
}

// drain reads g until every channel ended, decoding records, and logs
// each channel's records, events and last watermark.
func drain(g *network.Gate, cdc codec.Codec[int64]) ([]channelLog, error) {
	logs := make([]channelLog, g.NumChannels())
	readers := make([]*network.RecordReader[int64], g.NumChannels())
	inputs := make([]*collect, g.NumChannels())
	for i := range readers {
		inputs[i] = &collect{}
		readers[i] = network.NewRecordReader(cdc, inputs[i])
	}
	for ended := 0; ended < g.NumChannels(); {
		it, ch, ok := g.Poll()
		if !ok {
			<-g.Available()
			continue
		}
		l := &logs[ch]
		if it.Event == nil {
			_, err := readers[ch].Deliver(it.Buf, func(wm int64) error { l.watermark = wm; return nil },
				func(bool) error { return nil })
			if err != nil {
				return nil, err
			}
			g.Recycle(ch, it.Buf)
			continue
		}
		if err := failure(it); err != nil {
			return nil, fmt.Errorf("channel %d failed: %w", ch, err)
		}
		name := fmt.Sprintf("%T", it.Event)
		if b, ok := it.Event.(network.CheckpointBarrier); ok {
			name = fmt.Sprintf("barrier %d after %d records", b.ID, len(inputs[ch].got))
		}
		l.events = append(l.events, name)
		if _, ok := it.Event.(network.EndOfPartition); ok {
			ended++
		}
	}
	for i := range logs {
		logs[i].records = inputs[i].got
	}
	return logs, nil
}
