package kafkatest

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReadAll reads every record of topic that a consumer with the isolation
// level sees now (read_committed when committed is true: up to each
// partition's last stable offset, without the records of aborted
// transactions; read_uncommitted otherwise: up to the high watermark,
// everything) and returns their values, partition by partition. It knows
// it is done from the partitions' end offsets, asked first, and not from a
// quiet period: records written while it reads may or may not be in the
// result.
func ReadAll(ctx context.Context, brokers []string, topic string, committed bool) ([]string, error) {
	iso := kgo.ReadUncommitted()
	if committed {
		iso = kgo.ReadCommitted()
	}
	admin, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return nil, err
	}
	ends, err := endOffsets(ctx, admin, topic, committed)
	admin.Close()
	if err != nil {
		return nil, fmt.Errorf("kafkatest: end offsets of %s: %w", topic, err)
	}
	from := make(map[int32]kgo.Offset)
	for p, end := range ends {
		if end > 0 {
			from[p] = kgo.NewOffset().AtStart()
		}
	}
	if len(from) == 0 {
		return nil, nil
	}
	// Control records (transaction markers) are kept so that the position
	// passes them: a partition often ends with one.
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	byPartition := make(map[int32][]string)
	pos := make(map[int32]int64)
	for !reached(pos, ends) {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("kafkatest: read %s: at %v of %v: %w", topic, pos, ends, err)
		}
		if err := fs.Err0(); err != nil {
			return nil, fmt.Errorf("kafkatest: read %s: %w", topic, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset >= ends[r.Partition] {
				return
			}
			pos[r.Partition] = r.Offset + 1
			if !r.Attrs.IsControl() {
				byPartition[r.Partition] = append(byPartition[r.Partition], string(r.Value))
			}
		})
	}
	var out []string
	for p := range int32(len(ends)) {
		out = append(out, byPartition[p]...)
	}
	return out, nil
}

func reached(pos, ends map[int32]int64) bool {
	for p, end := range ends {
		if pos[p] < end {
			return false
		}
	}
	return true
}

// endOffsets returns each partition's last stable offset (committed) or
// high watermark.
func endOffsets(ctx context.Context, cl *kgo.Client, topic string, committed bool) (map[int32]int64, error) {
	meta := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	meta.Topics = append(meta.Topics, mt)
	mresp, err := meta.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if len(mresp.Topics) != 1 {
		return nil, fmt.Errorf("metadata has %d topics", len(mresp.Topics))
	}
	if err := kerr.ErrorForCode(mresp.Topics[0].ErrorCode); err != nil {
		return nil, err
	}
	req := kmsg.NewPtrListOffsetsRequest()
	if committed {
		req.IsolationLevel = 1
	}
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for _, p := range mresp.Topics[0].Partitions {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp = p.Partition, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	ends := make(map[int32]int64)
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return nil, fmt.Errorf("partition %d: %w", p.Partition, err)
			}
			ends[p.Partition] = p.Offset
		}
	}
	return ends, nil
}
