package async

import "sync"

// inbox carries outcomes from the requests' goroutines to the task's.
type inbox[T, R any] struct {
	mu    sync.Mutex
	items []outcome[T, R]
	// signal has a token after a push, for a task goroutine that waits.
	signal chan struct{}
}

func newInbox[T, R any]() *inbox[T, R] { return &inbox[T, R]{signal: make(chan struct{}, 1)} }

func (b *inbox[T, R]) push(o outcome[T, R]) {
	b.mu.Lock()
	b.items = append(b.items, o)
	b.mu.Unlock()
	select {
	case b.signal <- struct{}{}:
	default:
	}
}

// take returns the outcomes pushed so far, reusing spare's storage.
func (b *inbox[T, R]) take(spare []outcome[T, R]) []outcome[T, R] {
	b.mu.Lock()
	items := b.items
	b.items = spare[:0]
	b.mu.Unlock()
	return items
}
