package network_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// batchLog is a logInput that also takes batches, noting where each one
// starts.
type batchLog struct {
	logInput
	batches int
}

func (b *batchLog) CollectBatch(ts []int64, vs []int) error {
	b.batches++
	b.log = append(b.log, "batch")
	for i, v := range vs {
		b.ProcessElement(op.TimestampAt(ts, i), v)
	}
	return nil
}

// elements is a data buffer of 150 records with timestamps, a watermark
// after the 100th, an idle status, then 10 records without.
func elements(t testing.TB) []byte {
	c := intCodec(t)
	var buf []byte
	for i := range 150 {
		buf = append(buf, network.TagRecordTS)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(1000+i))
		buf = c.Append(buf, i)
		if i == 99 {
			buf = append(buf, network.TagWatermark)
			buf = binary.LittleEndian.AppendUint64(buf, 1099)
		}
	}
	buf = append(buf, network.TagWatermarkStatus, network.StatusIdle)
	for i := range 10 {
		buf = append(buf, network.TagRecord)
		buf = c.Append(buf, 500+i)
	}
	return buf
}

// recordAtATime is what a reader that does not batch delivers of buf.
func recordAtATime(t *testing.T, buf []byte) *logInput {
	t.Helper()
	one := &logInput{}
	if _, err := network.NewRecordReader[int](intCodec(t), one).Deliver(buf, one.watermark, one.status); err != nil {
		t.Fatal(err)
	}
	return one
}

func withoutBatchMarks(log []string) []string {
	return slices.DeleteFunc(slices.Clone(log), func(s string) bool { return s == "batch" })
}

// A batching reader hands an input that takes batches the same records,
// timestamps, watermarks and statuses in the same order as a record at a
// time, no batch spanning a watermark or status.
func TestBatchReaderKeepsTheOrder(t *testing.T) {
	buf := elements(t)
	one := recordAtATime(t, buf)
	in := &batchLog{}
	n, err := network.NewBatchReader[int](intCodec(t), in).Deliver(buf, in.watermark, in.status)
	if err != nil {
		t.Fatal(err)
	}
	if n != 160 {
		t.Errorf("delivered %d records, want 160", n)
	}
	if got := withoutBatchMarks(in.log); !slices.Equal(got, one.log) {
		t.Fatalf("batches give\n%v\nrecords give\n%v", got, one.log)
	}
	// 100 records before the watermark: 64 + 36; 50 after: 50; 10 after
	// the status: 10.
	if in.batches != 4 {
		t.Errorf("%d batches, want 4: %s", in.batches, strings.Join(in.log, " "))
	}
}

// Batching, DeliverUntil still stops after any element stop asks it to:
// the records decoded so far go on as a shorter batch, what it reports
// consumed is exactly what it delivered, and resuming from there delivers
// the rest.
func TestBatchReaderStopsAfterAnyElement(t *testing.T) {
	buf := elements(t)
	one := recordAtATime(t, buf)
	in := &batchLog{}
	r := network.NewBatchReader[int](intCodec(t), in)
	total, rounds := 0, 0
	for rest := buf; len(rest) > 0; rounds++ {
		n, used, err := r.DeliverUntil(rest, in.watermark, in.status, func() bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		if used == 0 {
			t.Fatal("no progress")
		}
		total += n
		rest = rest[used:]
	}
	if got := withoutBatchMarks(in.log); !slices.Equal(got, one.log) || total != 160 {
		t.Fatalf("%d records in %d rounds:\n%v\nwant\n%v", total, rounds, got, one.log)
	}
	if rounds != 162 {
		t.Errorf("%d rounds, want one per element (162)", rounds)
	}
}

// A record that cannot be decoded ends the delivery with an error after
// the records before it went on, as a record at a time.
func TestBatchReaderDeliversWhatPrecedesABadRecord(t *testing.T) {
	c := intCodec(t)
	var buf []byte
	for i := range 3 {
		buf = append(buf, network.TagRecord)
		buf = c.Append(buf, i)
	}
	buf = append(buf, network.TagRecordTS, 1, 2) // a timestamp cut short
	in := &batchLog{}
	_, err := network.NewBatchReader[int](c, in).Deliver(buf, in.watermark, in.status)
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("error %v, want one about a truncated record", err)
	}
	want := []string{fmt.Sprintf("rec 0@%d", op.NoTimestamp), fmt.Sprintf("rec 1@%d", op.NoTimestamp), fmt.Sprintf("rec 2@%d", op.NoTimestamp)}
	if got := withoutBatchMarks(in.log); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
}
