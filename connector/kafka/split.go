package kafka

import (
	"hash/fnv"
	"strconv"
)

// split is one topic partition with its read position: the unit the
// enumerator hands out and a reader checkpoints (Flink's
// KafkaPartitionSplit).
type split struct {
	Topic     string
	Partition int32
	// Offset is the offset of the next record to read.
	Offset int64
	// Stop, in a bounded source, is the offset to stop before (the end
	// offset when the job started); noStop otherwise.
	Stop int64
}

// noStop marks the split of an unbounded source.
const noStop = -1

// topicPartition names a partition.
type topicPartition struct {
	Topic     string
	Partition int32
}

func (s split) tp() topicPartition { return topicPartition{s.Topic, s.Partition} }

// id names the split in per-split watermarks and logs: topic-partition.
func (s split) id() string { return s.Topic + "-" + strconv.Itoa(int(s.Partition)) }

// finished says whether a bounded split read everything up to its stop.
func (s split) finished() bool { return s.Stop != noStop && s.Offset >= s.Stop }

// owner is the subtask a partition is assigned to among p, as Flink's
// KafkaSourceEnumerator spreads them: the partitions of a topic go round
// the subtasks from a start that the topic's name chooses, so that the
// first partitions of several topics do not all land on subtask 0.
func owner(t topicPartition, p int) int {
	h := fnv.New32a()
	h.Write([]byte(t.Topic))
	start := int((h.Sum32() & 0x7fffffff) % uint32(p))
	return (start + int(t.Partition)) % p
}
