// Package task owns the life of one subtask: it builds the operator chain of
// a job vertex, runs the single-goroutine mailbox loop, and takes the
// operators through the FLIP-147 lifecycle (see package op).
//
// The loop, in priority order: run queued mailbox actions (timers, control
// actions from other goroutines), then process one unit of input (one
// buffer or event from the gate, or one batch from the source), and when
// there is none, flush the record writers and sleep until mail, input or
// cancellation arrives. Everything an operator does happens inside this
// loop, so operators need no locks.
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
