package tcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// outbound is a frame waiting for the connection's writer.
type outbound struct {
	typ     FrameType
	channel uint32
	payload []byte
	// reuse, when set, gets the payload back once it is written (a data
	// buffer goes back to its subpartition).
	reuse *sender
	// credit, when set, makes a CREDIT frame of the credit the fetcher
	// gathered by the time the frame is written.
	credit *fetcher
}

// side is what distinguishes the two ends of a connection: the producer's
// (server: it accepted) and the consumer's (client: it dialed).
type side interface {
	// handle processes one frame whose header was read; it reads the
	// payload through fr. An error closes the connection.
	handle(h Header, fr *frameReader) error
	// closed releases or fails every channel of the connection.
	closed(err error)
}

// conn is one TCP connection between two TaskManagers with its many
// logical channels. Two goroutines serve it: the reader, which hands
// frames to its side, and the writer, which writes what the channels
// queue. Neither ever waits for a channel: a producer queues only what the
// consumer has credit for, so the consumer's reader always has room for
// what arrives, and one back-pressured channel never holds up another.
//
// Lock order: a subpartition's mutex, then conn.mu (a sender queues under
// its subpartition's lock); a fetcher's mutex before conn.mu.
type conn struct {
	nc   net.Conn
	peer string
	side side
	fr   *frameReader
	mu   struct {
		sync.Mutex
		queue  []outbound
		closed bool
		err    error
	}
	cond *sync.Cond
}

func newConn(nc net.Conn, maxPayload int) *conn {
	c := &conn{nc: nc, peer: nc.RemoteAddr().String()}
	c.cond = sync.NewCond(&c.mu)
	c.fr = newFrameReader(bufio.NewReaderSize(nc, 64<<10), maxPayload)
	return c
}

// start runs the reader and the writer; wg counts them.
func (c *conn) start(s side, wg *sync.WaitGroup) {
	c.side = s
	wg.Add(2)
	go func() { defer wg.Done(); c.readLoop() }()
	go func() { defer wg.Done(); c.writeLoop() }()
}

// enqueue queues a frame; false when the connection is closed. It never
// waits.
func (c *conn) enqueue(o outbound) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mu.closed {
		return false
	}
	c.mu.queue = append(c.mu.queue, o)
	if len(c.mu.queue) == 1 {
		c.cond.Signal()
	}
	return true
}

// isClosed reports whether the connection is closed.
func (c *conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.closed
}

// close closes the connection with its cause, once, and lets the side
// fail its channels.
func (c *conn) close(err error) {
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		return
	}
	c.mu.closed = true
	c.mu.err = err
	c.mu.queue = nil
	c.cond.Broadcast()
	c.mu.Unlock()
	_ = c.nc.Close()
	c.side.closed(err)
}

func (c *conn) readLoop() {
	for {
		h, err := c.fr.header()
		if err == nil {
			err = c.side.handle(h, c.fr)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("tcp: connection with %s closed by the peer", c.peer)
			} else {
				err = fmt.Errorf("tcp: connection with %s: %w", c.peer, err)
			}
			c.close(err)
			return
		}
	}
}

// inline is the payload size up to which a payload is copied next to
// its header; larger ones (data buffers) are written from where they are.
const inline = 512

// writeLoop writes what the channels queue, a batch at a time: the
// headers and small payloads are gathered into one buffer, and the batch
// goes out in one vectored write (writev), so a data buffer is never
// copied in this process.
func (c *conn) writeLoop() {
	var (
		batch, spare []outbound
		scratch      []byte
		ends         []int // per frame: end of its header (+inline payload) in scratch
		vec          net.Buffers
	)
	for {
		c.mu.Lock()
		for len(c.mu.queue) == 0 && !c.mu.closed {
			c.cond.Wait()
		}
		if c.mu.closed {
			c.mu.Unlock()
			return
		}
		batch, c.mu.queue = c.mu.queue, spare[:0]
		c.mu.Unlock()
		scratch, ends = scratch[:0], ends[:0]
		for i := range batch {
			o := &batch[i]
			if o.credit != nil {
				n := o.credit.takeCredit()
				if n == 0 {
					o.typ = 0 // nothing to send: the credit went with an earlier frame
					ends = append(ends, len(scratch))
					continue
				}
				o.payload = appendCredit(nil, n)
			}
			scratch = appendHeader(scratch, o.typ, o.channel, o.payload)
			if len(o.payload) <= inline {
				scratch = append(scratch, o.payload...)
			}
			ends = append(ends, len(scratch))
		}
		vec = vec[:0]
		start := 0
		for i, o := range batch {
			if o.typ == 0 {
				continue
			}
			vec = append(vec, scratch[start:ends[i]])
			if len(o.payload) > inline {
				vec = append(vec, o.payload)
			}
			start = ends[i]
		}
		if _, err := vec.WriteTo(c.nc); err != nil {
			c.close(fmt.Errorf("tcp: write to %s: %w", c.peer, err))
			return
		}
		for i := range batch {
			if o := batch[i]; o.reuse != nil {
				o.reuse.reuse(o.payload)
			}
			batch[i] = outbound{}
		}
		spare = batch
	}
}
