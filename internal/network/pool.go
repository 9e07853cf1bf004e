package network

import (
	"errors"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/memsize"
)

// DefaultNetworkMemory is the network memory of a TaskManager when none is
// configured: Flink's default ceiling (taskmanager.memory.network.max).
// It is a ceiling, not an allocation: buffers are allocated as channels
// fill, so a small job uses a small part of it.
const DefaultNetworkMemory = 1 << 30

// BufferMemory is the memory of one buffer whose payload is sent at
// bufferSize bytes: the writer allocates an eighth more, so that the record
// that crosses the threshold usually fits without growing the buffer.
func BufferMemory(bufferSize int) int { return bufferSize + bufferSize/8 }

// ErrInsufficientBuffers says a TaskManager's network memory cannot hold
// the buffers a job or a subtask needs (Flink's "Insufficient number of
// network buffers").
var ErrInsufficientBuffers = errors.New("network: insufficient network buffers")

// Capacity is a TaskManager's network memory counted in buffers.
type Capacity struct {
	// Memory is the configured bytes; Buffers how many buffers of
	// BufferMemory bytes fit in it.
	Memory       int64
	Buffers      int
	BufferMemory int
}

// CapacityOf is the capacity of memory bytes of network memory with
// buffers of the given payload size.
func CapacityOf(memory int64, bufferSize int) Capacity {
	m := BufferMemory(bufferSize)
	return Capacity{Memory: memory, Buffers: int(memory / int64(m)), BufferMemory: m}
}

func (c Capacity) String() string {
	unit := "buffers"
	if c.Buffers == 1 {
		unit = "buffer"
	}
	return fmt.Sprintf("%s (%s %s)", memsize.Format(c.Memory), group(int64(c.Buffers)), unit)
}

// BufferPool is the network memory of one TaskManager: a bounded number of
// buffers that the subtasks it runs draw their channels' buffers from. A
// subtask requests all of its buffers when it is deployed (see Usage and
// Sizing) and recycles them when it ends, so a running subtask can never
// run short and no two subtasks wait for each other's buffers. The pool
// counts buffers; their memory is allocated by the channels as they fill
// (a channel that carries only watermarks and events holds a few bytes),
// so the pool bounds the network memory rather than reserving it.
type BufferPool struct {
	capacity Capacity
	mu       struct {
		sync.Mutex
		inUse int
	}
}

// NewBufferPool returns the pool of a TaskManager with memory bytes of
// network memory and buffers of the given payload size.
func NewBufferPool(memory int64, bufferSize int) *BufferPool {
	return &BufferPool{capacity: CapacityOf(memory, bufferSize)}
}

// Capacity is the pool's size.
func (p *BufferPool) Capacity() Capacity { return p.capacity }

// InUse is the number of buffers requested and not yet recycled.
func (p *BufferPool) InUse() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.inUse
}

// Request takes n buffers from the pool, or none and an error wrapping
// ErrInsufficientBuffers when fewer than n are free. It never waits: a
// subtask that cannot have its buffers must fail, not hold some while
// waiting for more.
func (p *BufferPool) Request(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if free := p.capacity.Buffers - p.mu.inUse; n > free {
		return fmt.Errorf("%w: %s requested, %s of %s free", ErrInsufficientBuffers,
			group(int64(n)), group(int64(free)), p.capacity)
	}
	p.mu.inUse += n
	return nil
}

// Recycle returns n buffers taken with Request.
func (p *BufferPool) Recycle(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > p.mu.inUse {
		panic(fmt.Sprintf("network: %d buffers recycled, only %d in use", n, p.mu.inUse))
	}
	p.mu.inUse -= n
}

// group writes n with thousands separators: 1,048,576.
func group(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
