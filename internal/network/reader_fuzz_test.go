package network_test

import (
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// Any bytes as a data buffer: the readers never panic, and a batching
// reader that takes key groups delivers the records, watermarks and
// statuses a record-at-a-time reader delivers, fails where it fails, and
// hands on one key group (or none) per record.
func FuzzRecordReader(f *testing.F) {
	c := intCodec(f)
	f.Add(elements(f))
	keyed := c.Append(network.AppendRecordHeader(nil, 7, 3), 1)
	keyed = c.Append(network.AppendRecordHeader(keyed, -1<<63, 32767), 2)
	f.Add(keyed)
	f.Add(c.Append(network.AppendRecordHeader(slices.Clone(keyed), 9, -1), 3))
	f.Add([]byte{network.TagKeyedRecordTS, 1, 2, 3})
	f.Fuzz(func(t *testing.T, buf []byte) {
		one := &logInput{}
		_, oneErr := network.NewRecordReader[int](c, one).Deliver(buf, one.watermark, one.status)
		in := &keyedLog{}
		_, err := network.NewBatchReader[int](c, in).Deliver(buf, in.watermark, in.status)
		if (err == nil) != (oneErr == nil) {
			t.Fatalf("batching reader error %v, record-at-a-time %v", err, oneErr)
		}
		if got := withoutBatchMarks(in.log); !slices.Equal(got, one.log) {
			t.Fatalf("batching reader delivered\n%v\nrecord at a time\n%v", got, one.log)
		}
		records := 0
		for _, e := range one.log {
			if len(e) > 4 && e[:4] == "rec " {
				records++
			}
		}
		if len(in.groups) != records {
			t.Fatalf("%d key groups for %d records", len(in.groups), records)
		}
	})
}
