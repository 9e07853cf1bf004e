// Package queue is an unbounded multi-producer, single-consumer queue with a
// wake-up channel: producers never block, and the one consumer goroutine
// selects on Signal alongside its other inputs. It is how events reach an
// event loop such as the JobMaster's.
package queue

import "sync"

// Queue holds values of T in arrival order.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T
	signal chan struct{}
}

// New returns an empty queue.
func New[T any]() *Queue[T] { return &Queue[T]{signal: make(chan struct{}, 1)} }

// Push appends v and wakes the consumer.
func (q *Queue[T]) Push(v T) {
	q.mu.Lock()
	q.items = append(q.items, v)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// Signal receives a token after a Push; drain with Pop afterwards.
func (q *Queue[T]) Signal() <-chan struct{} { return q.signal }

// PopAll returns every queued value, oldest first.
func (q *Queue[T]) PopAll() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}
