package operator

import "github.com/weir-engine/weir/internal/op"

// The batch path of a chain (op.BatchOutput): a source hands the records of
// one poll to its chained successor in one call, and the map, filter, flat
// map and sink operators here run their user function over the batch in a
// tight loop and pass their results on as one batch again, so the chain
// makes one dispatch per operator per batch instead of one per record.
// Nothing else (watermark, barrier, timer, mail) can come between the
// records of a batch: a batch is made inside one step of the task's loop,
// as the records of one source poll were before. An operator whose output
// does not take batches (a record writer, a fan-out, an operator that
// handles watermarks) falls back to one Collect per record, so the order
// its output sees is the same either way.

// maxBatch bounds the results a flat map buffers before it passes them on.
const maxBatch = 1024

// tsPrefix is the timestamps of the first n records of a batch.
func tsPrefix(ts []int64, n int) []int64 {
	if ts == nil {
		return nil
	}
	return ts[:n]
}

// batchOf returns out as an op.BatchOutput, or nil when it takes records
// one at a time only.
func batchOf[T any](out op.Output[T]) op.BatchOutput[T] {
	b, _ := out.(op.BatchOutput[T])
	return b
}
