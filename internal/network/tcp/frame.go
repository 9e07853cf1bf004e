package tcp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Version is the frame format version this package writes and reads.
const Version = 1

// HeaderSize is the size of a frame's header: length, version, type,
// reserved, channel and checksum (see docs/format/data-plane.md).
const HeaderSize = 16

// DefaultMaxPayload is the largest frame payload a Manager accepts unless
// told otherwise. A data buffer holds whole records, so one large record
// makes a buffer larger than the buffer size; this bounds it.
const DefaultMaxPayload = 64 << 20

// FrameType says what a frame carries.
type FrameType byte

// The frame types. Requests, credit and releases go from the consumer's
// TaskManager (the dialer) to the producer's; buffers, events and errors
// the other way.
const (
	FramePartitionRequest FrameType = 0x01
	FrameCredit           FrameType = 0x02
	FrameRelease          FrameType = 0x03
	FrameBuffer           FrameType = 0x04
	FrameEvent            FrameType = 0x05
	FrameError            FrameType = 0x06
)

func (t FrameType) String() string {
	switch t {
	case FramePartitionRequest:
		return "PARTITION_REQUEST"
	case FrameCredit:
		return "CREDIT"
	case FrameRelease:
		return "RELEASE"
	case FrameBuffer:
		return "BUFFER"
	case FrameEvent:
		return "EVENT"
	case FrameError:
		return "ERROR"
	}
	return fmt.Sprintf("FrameType(0x%02x)", byte(t))
}

func (t FrameType) known() bool { return t >= FramePartitionRequest && t <= FrameError }

// ErrCorrupt marks a frame that does not follow the format: the connection
// that carried it cannot be trusted and is closed.
var ErrCorrupt = errors.New("tcp: corrupt frame")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is the decoded header of a frame.
type Header struct {
	Type    FrameType
	Channel uint32
	// Len is the payload's length.
	Len int
	crc uint32
	raw [HeaderSize]byte
}

// appendHeader appends the header of a frame carrying payload.
func appendHeader(dst []byte, t FrameType, channel uint32, payload []byte) []byte {
	var h [HeaderSize]byte
	binary.BigEndian.PutUint32(h[0:], uint32(HeaderSize-4+len(payload)))
	h[4] = Version
	h[5] = byte(t)
	binary.BigEndian.PutUint32(h[8:], channel)
	crc := crc32.Update(crc32.Update(0, castagnoli, h[4:12]), castagnoli, payload)
	binary.BigEndian.PutUint32(h[12:], crc)
	return append(dst, h[:]...)
}

// AppendFrame appends a whole frame: header and payload.
func AppendFrame(dst []byte, t FrameType, channel uint32, payload []byte) []byte {
	return append(appendHeader(dst, t, channel, payload), payload...)
}

// frameReader reads frames from a stream, the header first so that the
// caller can choose where the payload goes.
type frameReader struct {
	r          *bufio.Reader
	maxPayload int
}

func newFrameReader(r io.Reader, maxPayload int) *frameReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &frameReader{r: br, maxPayload: maxPayload}
}

// header reads and checks the next header. io.EOF means the stream ended
// cleanly between two frames.
func (fr *frameReader) header() (Header, error) {
	var h Header
	if _, err := io.ReadFull(fr.r, h.raw[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return h, fmt.Errorf("%w: truncated header", ErrCorrupt)
		}
		return h, err
	}
	length := binary.BigEndian.Uint32(h.raw[0:])
	if v := h.raw[4]; v != Version {
		return h, fmt.Errorf("%w: version %d, this TaskManager speaks version %d", ErrCorrupt, v, Version)
	}
	h.Type = FrameType(h.raw[5])
	if !h.Type.known() {
		return h, fmt.Errorf("%w: unknown type 0x%02x", ErrCorrupt, byte(h.Type))
	}
	if h.raw[6] != 0 || h.raw[7] != 0 {
		return h, fmt.Errorf("%w: reserved bytes 0x%02x%02x are not zero", ErrCorrupt, h.raw[6], h.raw[7])
	}
	if length < HeaderSize-4 {
		return h, fmt.Errorf("%w: length %d is shorter than the header", ErrCorrupt, length)
	}
	if n := int64(length) - (HeaderSize - 4); n > int64(fr.maxPayload) {
		return h, fmt.Errorf("%w: %s payload of %d bytes exceeds the maximum of %d", ErrCorrupt, h.Type, n, fr.maxPayload)
	}
	h.Len = int(length) - (HeaderSize - 4)
	h.Channel = binary.BigEndian.Uint32(h.raw[8:])
	h.crc = binary.BigEndian.Uint32(h.raw[12:])
	return h, nil
}

// payloadChunk bounds how much is allocated ahead of the bytes that
// arrived: a header that claims a large payload costs memory only as the
// payload really comes.
const payloadChunk = 64 << 10

// payload reads h's payload into buf (reusing its memory) and checks the
// checksum.
func (fr *frameReader) payload(h Header, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < h.Len {
		want := min(h.Len, len(buf)+payloadChunk)
		if cap(buf) < want {
			grown := make([]byte, len(buf), max(want, min(h.Len, 2*cap(buf))))
			copy(grown, buf)
			buf = grown
		}
		n, err := io.ReadFull(fr.r, buf[len(buf):want])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return buf, fmt.Errorf("%w: %s payload truncated at %d of %d bytes", ErrCorrupt, h.Type, len(buf), h.Len)
			}
			return buf, err
		}
	}
	crc := crc32.Update(crc32.Update(0, castagnoli, h.raw[4:12]), castagnoli, buf)
	if crc != h.crc {
		return buf, fmt.Errorf("%w: %s on channel %d: checksum 0x%08x, computed 0x%08x", ErrCorrupt, h.Type, h.Channel, h.crc, crc)
	}
	return buf, nil
}

// Frame is a decoded frame, for tests and tools.
type Frame struct {
	Type    FrameType
	Channel uint32
	// Message is the decoded payload: *PartitionRequest, Credit, nil
	// (release), []byte (buffer), network.Event, or ErrorMessage.
	Message any
}

// ReadFrame reads and decodes one frame of at most maxPayload bytes of
// payload. Malformed input gives an error wrapping ErrCorrupt.
func ReadFrame(r io.Reader, maxPayload int) (Frame, error) {
	fr := newFrameReader(r, maxPayload)
	h, err := fr.header()
	if err != nil {
		return Frame{}, err
	}
	p, err := fr.payload(h, nil)
	if err != nil {
		return Frame{}, err
	}
	m, err := decodeMessage(h.Type, p)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Type: h.Type, Channel: h.Channel, Message: m}, nil
}
