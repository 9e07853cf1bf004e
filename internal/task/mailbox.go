package task

import (
	"sync"
	"sync/atomic"
)

// mailbox is the queue of actions that other goroutines hand to the task's
// goroutine. Any goroutine may Put; only the task runs actions.
type mailbox struct {
	mu      sync.Mutex
	actions []func() error
	closed  bool
	pending atomic.Int32
	signal  chan struct{}
	// spare is the array of the last batch run, emptied, for the next
	// batch to fill; only the task's goroutine, in runAll, touches it.
	spare []func() error
}

func newMailbox() *mailbox { return &mailbox{signal: make(chan struct{}, 1)} }

// Put implements op.Mailbox.
func (m *mailbox) Put(action func() error) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false
	}
	m.actions = append(m.actions, action)
	m.pending.Add(1)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
	return true
}

// runAll runs the actions queued so far, stopping at the first error.
func (m *mailbox) runAll() error {
	if m.pending.Load() == 0 {
		return nil
	}
	m.mu.Lock()
	batch := m.actions
	m.actions, m.spare = m.spare, nil
	m.pending.Store(0)
	m.mu.Unlock()
	for _, a := range batch {
		if err := a(); err != nil {
			return err
		}
	}
	clear(batch)
	m.spare = batch[:0]
	return nil
}

// close refuses further actions and drops queued ones.
func (m *mailbox) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.actions = nil
}
