package network_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// keyedLog is a batchLog that also takes key groups, noting each record's
// group and the batches that came without them.
type keyedLog struct {
	batchLog
	groups    []int
	ungrouped int
}

func (k *keyedLog) CollectBatch(ts []int64, vs []int) error {
	k.ungrouped++
	for range vs {
		k.groups = append(k.groups, -1)
	}
	return k.batchLog.CollectBatch(ts, vs)
}

func (k *keyedLog) CollectKeyedBatch(ts []int64, groups []uint16, vs []int) error {
	if len(groups) != len(vs) {
		return fmt.Errorf("%d groups for %d records", len(groups), len(vs))
	}
	for _, g := range groups {
		k.groups = append(k.groups, int(g))
	}
	return k.batchLog.CollectBatch(ts, vs)
}

// keyGroupOf is the key group of an int record among maxParallelism,
// hashed as a keyed exchange of ints hashes it.
func keyGroupOf(maxParallelism int) func(v int) int {
	return func(v int) int { return keygroup.Of(uint32(v)*2654435761, maxParallelism) }
}

// A keyed writer sends every record to the subtask whose key-group range
// holds its key group, and the frame carries that group to a keyed input,
// beside the records, timestamps and watermarks a record-at-a-time reader
// sees of the same buffers.
func TestKeyedFramesCarryTheSendersKeyGroup(t *testing.T) {
	tests := []struct{ subtasks, maxParallelism int }{{1, 128}, {3, 128}, {4, 7}, {2, 32768}}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("p%d-max%d", tt.subtasks, tt.maxParallelism), func(t *testing.T) {
			p, g := pair(t, tt.subtasks, 64, 64)
			c := intCodec(t)
			groupOf := keyGroupOf(tt.maxParallelism)
			w := network.NewKeyedRecordWriter(p, c, groupOf, tt.maxParallelism, 256)
			for i := range 500 {
				ts := int64(i)
				if i%3 == 0 {
					ts = op.NoTimestamp
				}
				if err := w.Collect(ts, i); err != nil {
					t.Fatal(err)
				}
				if i == 250 {
					if err := w.EmitWatermark(249); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			keyed := make([]*keyedLog, tt.subtasks)
			plain := make([]*logInput, tt.subtasks)
			readers := make([]*network.RecordReader[int], tt.subtasks)
			for i := range keyed {
				keyed[i], plain[i] = &keyedLog{}, &logInput{}
				readers[i] = network.NewBatchReader[int](c, keyed[i])
			}
			for {
				it, ch, ok := g.Poll()
				if !ok {
					break
				}
				if _, err := readers[ch].Deliver(it.Buf, keyed[ch].watermark, keyed[ch].status); err != nil {
					t.Fatal(err)
				}
				if _, err := network.NewRecordReader[int](c, plain[ch]).Deliver(it.Buf, plain[ch].watermark, plain[ch].status); err != nil {
					t.Fatal(err)
				}
				g.Recycle(ch, it.Buf)
			}
			total := 0
			for ch, in := range keyed {
				if got := withoutBatchMarks(in.log); !slices.Equal(got, plain[ch].log) {
					t.Fatalf("channel %d: keyed batches give\n%v\nrecords give\n%v", ch, got, plain[ch].log)
				}
				if in.ungrouped > 0 {
					t.Errorf("channel %d: %d batches without key groups", ch, in.ungrouped)
				}
				r := keygroup.RangeFor(tt.maxParallelism, tt.subtasks, ch)
				j := 0
				for _, e := range in.log {
					var v int
					var ts int64
					if _, err := fmt.Sscanf(e, "rec %d@%d", &v, &ts); err != nil {
						continue
					}
					if want := groupOf(v); in.groups[j] != want {
						t.Errorf("channel %d: record %d came with key group %d, want %d", ch, v, in.groups[j], want)
					}
					if !r.Contains(in.groups[j]) {
						t.Errorf("channel %d (key groups %v) got record %d of key group %d", ch, r, v, in.groups[j])
					}
					j++
				}
				total += j
			}
			if total != 500 {
				t.Errorf("%d records arrived, want 500", total)
			}
		})
	}
}

// A batch holding a record without a key group (a buffer of a writer that
// is not keyed, such as one written before keyed frames, or in a mixed
// buffer) goes on without groups, and the input computes them.
func TestUnkeyedRecordsGoOnWithoutGroups(t *testing.T) {
	c := intCodec(t)
	var buf []byte
	for i := range 4 {
		group := 7
		if i == 2 {
			group = -1
		}
		buf = c.Append(network.AppendRecordHeader(buf, int64(i), group), i)
	}
	in := &keyedLog{}
	if _, err := network.NewBatchReader[int](c, in).Deliver(buf, in.watermark, in.status); err != nil {
		t.Fatal(err)
	}
	if in.ungrouped != 1 || !slices.Equal(in.groups, []int{-1, -1, -1, -1}) {
		t.Errorf("groups %v in %d batches without groups; want one batch without", in.groups, in.ungrouped)
	}
	keyedOnly := c.Append(network.AppendRecordHeader(nil, 5, 9), 5)
	in = &keyedLog{}
	if _, err := network.NewBatchReader[int](c, in).Deliver(keyedOnly, in.watermark, in.status); err != nil {
		t.Fatal(err)
	}
	if in.ungrouped != 0 || !slices.Equal(in.groups, []int{9}) {
		t.Errorf("groups %v, %d batches without; want [9] with", in.groups, in.ungrouped)
	}
}

// A keyed frame cut short in its timestamp or key group is an error, and
// the records before it still go on.
func TestTruncatedKeyedFrames(t *testing.T) {
	c := intCodec(t)
	good := c.Append(network.AppendRecordHeader(nil, 1, 3), 1)
	tests := []struct {
		name string
		tail []byte
		want string
	}{
		{"key group", []byte{network.TagKeyedRecord, 1}, "truncated record key group"},
		{"timestamp", []byte{network.TagKeyedRecordTS, 0, 0, 0}, "truncated record timestamp"},
		{"key group after timestamp", []byte{network.TagKeyedRecordTS, 0, 0, 0, 0, 0, 0, 0, 0, 4}, "truncated record key group"},
		{"record", []byte{network.TagKeyedRecord, 1, 0}, "decode record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := append(slices.Clone(good), tt.tail...)
			for _, batching := range []bool{false, true} {
				in := &keyedLog{}
				r := network.NewRecordReader[int](c, in)
				if batching {
					r = network.NewBatchReader[int](c, in)
				}
				_, err := r.Deliver(buf, in.watermark, in.status)
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("batching %v: error %v, want one with %q", batching, err, tt.want)
				}
				if got := withoutBatchMarks(in.log); !slices.Equal(got, []string{"rec 1@1"}) {
					t.Errorf("batching %v: delivered %v, want the record before", batching, got)
				}
			}
		})
	}
}
