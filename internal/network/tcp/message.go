package tcp

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unicode/utf8"

	"github.com/weir-engine/weir/internal/network"
)

// PartitionRequest is the payload of a PARTITION_REQUEST frame: the
// consumer asks for a subpartition on the frame's channel and announces
// its initial credit.
type PartitionRequest struct {
	Partition    network.PartitionID
	Subpartition int
	Credit       int
}

// Credit is the payload of a CREDIT frame: credits the consumer returns.
type Credit int

// ErrorMessage is the payload of an ERROR frame: why the producer's side
// cannot serve the channel.
type ErrorMessage string

// maxCredit bounds the credit of one request or frame.
const maxCredit = 1 << 20

// Event kinds inside an EVENT frame.
const (
	kindEndOfData      byte = 0x01
	kindEndOfPartition byte = 0x02
	kindBarrier        byte = 0x03
	kindCancel         byte = 0x04
)

// Flags of a checkpoint barrier.
const (
	flagSavepoint byte = 1 << iota
	flagUnaligned
	flagDrain
	flagTerminate
	flagsKnown = flagSavepoint | flagUnaligned | flagDrain | flagTerminate
)

func appendRequest(b []byte, r PartitionRequest) []byte {
	id := r.Partition
	b = binary.AppendUvarint(b, uint64(len(id.Job)))
	b = append(b, id.Job...)
	for _, v := range []int{id.Generation, id.Vertex, id.Subtask, id.Output, r.Subpartition, r.Credit} {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

func appendCredit(b []byte, n int) []byte { return binary.AppendUvarint(b, uint64(n)) }

// appendEvent encodes an event a producer sends; ChannelFailed is local
// to a consumer and is refused.
func appendEvent(b []byte, e network.Event) ([]byte, error) {
	switch e := e.(type) {
	case network.EndOfData:
		return append(b, kindEndOfData), nil
	case network.EndOfPartition:
		return append(b, kindEndOfPartition), nil
	case network.CheckpointBarrier:
		var f byte
		for _, x := range []struct {
			set  bool
			flag byte
		}{{e.Savepoint, flagSavepoint}, {e.Unaligned, flagUnaligned}, {e.Drain, flagDrain}, {e.Terminate, flagTerminate}} {
			if x.set {
				f |= x.flag
			}
		}
		b = append(b, kindBarrier)
		b = binary.AppendVarint(b, e.ID)
		b = binary.AppendVarint(b, e.Timestamp)
		b = append(b, f)
		b = binary.AppendVarint(b, e.AlignedTimeoutMillis)
		b = binary.AppendUvarint(b, uint64(len(e.Location)))
		return append(b, e.Location...), nil
	case network.CancelCheckpointMarker:
		return binary.AppendVarint(append(b, kindCancel), e.ID), nil
	}
	return b, fmt.Errorf("tcp: event %T cannot be sent", e)
}

// decoder reads the fields of a payload; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
}

func (d *decoder) varint(what string) int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad %s", what)
		return 0
	}
	if n != uvarintLen(uint64(v)<<1^uint64(v>>63)) {
		d.fail("non-minimal encoding of %s", what)
	}
	d.b = d.b[n:]
	return v
}

// uvarintLen is the length of the shortest encoding of v: each value has
// one encoding, so a frame re-encodes to the same bytes.
func uvarintLen(v uint64) int { return max(1, (bits.Len64(v)+6)/7) }

// int reads a varint that must fit in [lo, hi].
func (d *decoder) int(what string, lo, hi int64) int {
	v := d.varint(what)
	if d.err == nil && (v < lo || v > hi) {
		d.fail("%s %d out of range [%d, %d]", what, v, lo, hi)
	}
	return int(v)
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad %s", what)
		return 0
	}
	if n != uvarintLen(v) {
		d.fail("non-minimal encoding of %s", what)
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte(what string) byte {
	if d.err != nil {
		return 0
	}
	if len(d.b) == 0 {
		d.fail("missing %s", what)
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// string reads a length-prefixed UTF-8 string; the length is checked
// against what is left, so nothing is allocated beyond the payload.
func (d *decoder) string(what string) string {
	n := d.uvarint(what + " length")
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail("%s of %d bytes, %d left", what, n, len(d.b))
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	if !utf8.ValidString(s) {
		d.fail("%s is not UTF-8", what)
	}
	return s
}

// end checks that the payload was consumed completely.
func (d *decoder) end(what string) error {
	if d.err == nil && len(d.b) > 0 {
		d.fail("%d trailing bytes after %s", len(d.b), what)
	}
	return d.err
}

func decodeRequest(p []byte) (*PartitionRequest, error) {
	d := &decoder{b: p}
	var r PartitionRequest
	r.Partition.Job = d.string("job id")
	r.Partition.Generation = d.int("generation", 0, math.MaxInt32)
	r.Partition.Vertex = d.int("vertex", 0, math.MaxInt32)
	r.Partition.Subtask = d.int("subtask", 0, math.MaxInt32)
	r.Partition.Output = d.int("output", 0, math.MaxInt32)
	r.Subpartition = d.int("subpartition", 0, math.MaxInt32)
	r.Credit = d.int("credit", 0, maxCredit)
	return &r, d.end("partition request")
}

func decodeCredit(p []byte) (Credit, error) {
	d := &decoder{b: p}
	n := d.uvarint("credit")
	if d.err == nil && (n == 0 || n > maxCredit) {
		d.fail("credit %d out of range [1, %d]", n, maxCredit)
	}
	return Credit(n), d.end("credit")
}

func decodeEvent(p []byte) (network.Event, error) {
	d := &decoder{b: p}
	var e network.Event
	switch k := d.byte("event kind"); k {
	case kindEndOfData:
		e = network.EndOfData{}
	case kindEndOfPartition:
		e = network.EndOfPartition{}
	case kindBarrier:
		var b network.CheckpointBarrier
		b.ID = d.varint("checkpoint id")
		b.Timestamp = d.varint("barrier timestamp")
		f := d.byte("barrier flags")
		if f&^flagsKnown != 0 {
			d.fail("unknown barrier flags 0x%02x", f&^flagsKnown)
		}
		b.Savepoint, b.Unaligned = f&flagSavepoint != 0, f&flagUnaligned != 0
		b.Drain, b.Terminate = f&flagDrain != 0, f&flagTerminate != 0
		b.AlignedTimeoutMillis = d.varint("aligned timeout")
		b.Location = d.string("barrier location")
		e = b
	case kindCancel:
		e = network.CancelCheckpointMarker{ID: d.varint("checkpoint id")}
	default:
		if d.err == nil {
			d.fail("unknown event kind 0x%02x", k)
		}
	}
	if err := d.end("event"); err != nil {
		return nil, err
	}
	return e, nil
}

func decodeError(p []byte) (ErrorMessage, error) {
	if !utf8.Valid(p) {
		return "", fmt.Errorf("%w: error message is not UTF-8", ErrCorrupt)
	}
	return ErrorMessage(p), nil
}

// decodeMessage decodes the payload of a frame of type t.
func decodeMessage(t FrameType, p []byte) (any, error) {
	switch t {
	case FramePartitionRequest:
		return decodeRequest(p)
	case FrameCredit:
		return decodeCredit(p)
	case FrameRelease:
		if len(p) > 0 {
			return nil, fmt.Errorf("%w: RELEASE with a payload of %d bytes", ErrCorrupt, len(p))
		}
		return nil, nil
	case FrameBuffer:
		return p, nil
	case FrameEvent:
		return decodeEvent(p)
	case FrameError:
		return decodeError(p)
	}
	return nil, fmt.Errorf("%w: unknown type 0x%02x", ErrCorrupt, byte(t))
}
