package network

import (
	"io"
	"sync"
)

// Subpartition is the part of a ResultPartition that one consumer channel
// reads (Flink's PipelinedSubpartition): an Outbox behind a mutex, and the
// input channel it is connected to once the consumer asked for it.
//
// Lock order: a subpartition's mutex before its consumer gate's. The
// subpartition hands items to the input channel while holding its own
// mutex, so that they arrive in order; the gate calls back into the
// subpartition (credit, release) only after it let go of its own.
type Subpartition struct {
	parent *ResultPartition
	index  int
	mu     struct {
		sync.Mutex
		out      Outbox
		consumer Receiver
		released bool
		// writable is the writability last reported to the parent.
		writable bool
		// free holds buffers the consumer recycled, for the writer to
		// reuse (locally a buffer moves without a copy).
		free [][]byte
		// reader reads a finished Blocking partition's file for the
		// consumer, as credit allows; file is what it reads.
		reader *segmentReader
		file   io.Closer
		// opened is set once the current consumer's reader was opened.
		opened bool
	}
}

// Index is the subpartition's index in its partition.
func (s *Subpartition) Index() int { return s.index }

// Add queues an item for the consumer and hands over what credit allows.
// It never waits. For a priority event it returns copies of the data
// buffers the event overtook in this subpartition (they still go to the
// consumer, after the event). It fails with ErrReleased once the consumer
// or the partition is gone.
func (s *Subpartition) Add(it Item) (overtaken [][]byte, err error) {
	if s.parent.blocking != nil {
		return nil, s.addBlocking(it)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.released {
		return nil, ErrReleased
	}
	for _, b := range s.mu.out.Add(it) {
		overtaken = append(overtaken, append([]byte(nil), b...))
	}
	s.dispatchLocked()
	return overtaken, nil
}

// TakeBuffer returns an empty buffer for the writer, reusing recycled
// memory when there is some.
func (s *Subpartition) TakeBuffer(size int) []byte {
	s.mu.Lock()
	if n := len(s.mu.free); n > 0 {
		b := s.mu.free[n-1]
		s.mu.free = s.mu.free[:n-1]
		s.mu.Unlock()
		return b
	}
	s.mu.Unlock()
	return make([]byte, 0, size)
}

// Backlog is the number of non-priority items waiting for credit.
func (s *Subpartition) Backlog() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.out.Backlog()
}

// Connect makes r the consumer: r.Connect announces its credit, and the
// subpartition hands over what that credit allows. It fails with
// ErrReleased when the subpartition was released before (its consumer, or
// its partition, is gone); a receiver that refuses (it was released) only
// releases the subpartition. A blocking subpartition may be connected
// again (see connectBlocking).
func (s *Subpartition) Connect(r Receiver) error {
	if s.parent.blocking != nil {
		return s.connectBlocking(r)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.released {
		return ErrReleased
	}
	credit, ok := r.Connect(s)
	if !ok {
		s.releaseLocked()
		return nil
	}
	s.mu.consumer = r
	s.mu.out.Grant(credit)
	s.dispatchLocked()
	return nil
}

// Consumed implements Source: it returns the credit of an item the
// consumer consumed, and the memory of a data buffer (nil for an event).
func (s *Subpartition) Consumed(buf []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.released {
		return
	}
	if buf != nil {
		s.mu.free = append(s.mu.free, buf[:0])
	}
	s.mu.out.Grant(1)
	s.dispatchLocked()
}

// Grant returns n credits of a remote consumer, which keeps the memory of
// the buffers it consumed (see Reuse for the sender's copy).
func (s *Subpartition) Grant(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.released {
		return
	}
	s.mu.out.Grant(n)
	s.dispatchLocked()
}

// Reuse hands back the memory of a data buffer the subpartition handed
// over and that is no longer needed (a connection manager wrote it to its
// socket), for the writer to fill again. It returns no credit.
func (s *Subpartition) Reuse(buf []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.mu.released && buf != nil {
		s.mu.free = append(s.mu.free, buf[:0])
	}
}

// dispatchLocked hands the consumer what may go now and reports the
// subpartition's writability.
func (s *Subpartition) dispatchLocked() {
	if c := s.mu.consumer; c != nil {
		for {
			it, ok := s.mu.out.Next()
			if !ok && s.mu.reader != nil && s.mu.out.Len() == 0 && s.mu.out.Credit() > 0 {
				// A finished blocking partition reads its next item when
				// the consumer has credit for it.
				if s.readLocked() {
					continue
				}
			}
			if !ok {
				break
			}
			if !c.Receive(it) {
				s.releaseLocked()
				return
			}
		}
	}
	s.updateWritableLocked()
}

func (s *Subpartition) updateWritableLocked() {
	w := s.mu.released || s.parent.blocking != nil || s.mu.out.Writable()
	if w != s.mu.writable {
		s.mu.writable = w
		s.parent.setWritable(w)
	}
}

// Release implements Source: it drops what is queued; later adds fail
// with ErrReleased.
func (s *Subpartition) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.releaseLocked()
}

func (s *Subpartition) releaseLocked() {
	if s.mu.released {
		return
	}
	s.mu.released = true
	s.closeReaderLocked()
	s.mu.out.Clear()
	s.mu.free = nil
	s.mu.consumer = nil
	// A released subpartition counts as writable: its writer must not
	// wait for it, it learns of the release from its next Add.
	s.updateWritableLocked()
}
