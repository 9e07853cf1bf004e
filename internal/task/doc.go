// Package task owns the life of one subtask: it builds the operator chain of
// a job vertex, runs the single-goroutine mailbox loop, and takes the
// operators through the FLIP-147 lifecycle (see package op).
//
// The loop, in priority order: run queued mailbox actions (timers, control
// actions from other goroutines), then handle a priority event of the gate
// (an unaligned barrier or a cancel marker), then, only while every output
// partition is available, process one unit of input (the records of one
// buffer, stopping between records when mail, a priority event or
// back-pressure arrives, or one event from the gate, or one batch from the
// source); when there is none, flush the record writers and sleep until
// mail, input (or, back-pressured, a priority event or available output)
// or cancellation arrives. No send blocks, so a back-pressured task still
// answers triggers and barriers at once (see loop.go). Everything an
// operator does happens inside this loop, so operators need no locks.
//
// Termination of a task that was not cancelled or failed:
//
//	all inputs delivered EndOfData (or the source returned EndOfInput;
//	a source then emits MaxWatermark)
//	-> for each operator, head to tail: EndInput, Finish
//	-> quiesce processing-time timers, flush, send EndOfData downstream
//	-> [final checkpoint: the FLIP-147 issue]
//	-> wait for EndOfPartition on every input channel
//	-> Close every operator, send EndOfPartition downstream
//
// On failure or cancellation, the operators that were opened are closed
// (never finished), and Run returns the first error.
package task
