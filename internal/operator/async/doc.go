// Package async is Flink's AsyncWaitOperator: it calls a user function that
// may take long (a database or service lookup) for many elements at once,
// up to a capacity, and emits the results in input order (ordered mode) or
// as they complete (unordered mode).
//
// Threads. Each request runs on a goroutine of its own; it never emits.
// Its outcome goes to the operator's inbox, and the operator drains the
// inbox on the task's goroutine: from a mailbox action that the first
// outcome of a batch enqueues, or directly while it waits for room (a full
// queue in ProcessElement) or for the last requests (Finish). Waiting runs
// no other mail of the task (Flink's yield to the operator's own mailbox
// priority): a checkpoint trigger or another operator's timer never runs
// in the middle of a ProcessElement.
//
// Order. In ordered mode results leave in the order their inputs arrived,
// and a watermark after them. In unordered mode a result leaves as soon as
// it completes, but never across a watermark: the queue is cut into
// segments at each watermark, a segment's results leave only once every
// earlier segment emptied, and the watermark closing a segment leaves after
// all of them (Flink's UnorderedStreamElementQueue).
//
// Timeouts and retries. Every request has a deadline, Timeout after it was
// issued, on the operator's clock; the deadline covers all attempts. The
// request's context is cancelled then, and the timeout handler runs on the
// task's goroutine (without one, the task fails with ErrTimeout). A
// retry strategy re-runs the function after a delay when its error or
// result says so, until MaxAttempts; the last outcome counts.
//
// Checkpoints. A snapshot holds, as split list state, the input of every
// request whose results were not emitted yet (pending, or completed but
// held back by order); on restore they are issued again, so each input's
// results are emitted exactly once into the state downstream.
package async
