// Package op is the contract between the task runtime and the operators it
// runs: the lifecycle every operator goes through, the typed inputs and
// outputs that chained operators call directly, and the context a task hands
// an operator when it opens.
//
// The lifecycle is the one FLIP-147 defines:
//
//	Open                          (tail of the chain first, so a downstream
//	                               operator is ready before its upstream emits)
//	ProcessElement / ProcessWatermark, timers, mailbox actions
//	EndInput(i) for each input    (BoundedInput; when input i has no more data)
//	Finish                        (flush buffered data; may still emit; head first)
//	[snapshot, NotifyCheckpointComplete: the checkpoint issues]
//	Close                         (release resources; never emits; always called,
//	                               also after a failure or a cancel, and then
//	                               without Finish)
//
// Operators run on their task's single goroutine: every call above, every
// timer and every mailbox action happen on it, so operators hold no locks.
// Records are passed by value with their event timestamp (NoTimestamp when a
// record has none) through Output[T] to the next chained operator, or to a
// record writer that serializes them for the network.
package op
