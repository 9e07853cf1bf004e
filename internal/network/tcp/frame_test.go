package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// sampleFrames is one valid frame of every type and event kind; the fuzz
// seeds are built from them too.
func sampleFrames(t testing.TB) []Frame {
	t.Helper()
	return []Frame{
		{FramePartitionRequest, 1, &PartitionRequest{Partition: network.PartitionID{Job: "0123abcd", Generation: 3, Vertex: 2, Subtask: 7, Output: 1}, Subpartition: 5, Credit: 2}},
		{FrameCredit, 2, Credit(3)},
		{FrameRelease, 3, nil},
		{FrameBuffer, 4, []byte("\x01some record bytes")},
		{FrameBuffer, 4, []byte(nil)},
		{FrameEvent, 5, network.EndOfData{}},
		{FrameEvent, 5, network.EndOfPartition{}},
		{FrameEvent, 6, network.CheckpointBarrier{ID: 42, Timestamp: 1700000000000, Savepoint: true, Unaligned: true,
			AlignedTimeoutMillis: 30000, Drain: true, Terminate: true, Location: "file:///tmp/savepoint-abc"}},
		{FrameEvent, 6, network.CheckpointBarrier{ID: 1}},
		{FrameEvent, 7, network.CancelCheckpointMarker{ID: 41}},
		{FrameError, 8, ErrorMessage("network: partition job/1/v0-s0-o0 has no subpartition 5")},
	}
}

func encode(t testing.TB, f Frame) []byte {
	t.Helper()
	var p []byte
	switch m := f.Message.(type) {
	case *PartitionRequest:
		p = appendRequest(nil, *m)
	case Credit:
		p = appendCredit(nil, int(m))
	case nil:
	case []byte:
		p = m
	case network.Event:
		var err error
		if p, err = appendEvent(nil, m); err != nil {
			t.Fatal(err)
		}
	case ErrorMessage:
		p = []byte(m)
	}
	return AppendFrame(nil, f.Type, f.Channel, p)
}

func TestFrameRoundTrip(t *testing.T) {
	for _, f := range sampleFrames(t) {
		t.Run(f.Type.String(), func(t *testing.T) {
			b := encode(t, f)
			got, err := ReadFrame(bytes.NewReader(b), DefaultMaxPayload)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, f) {
				t.Fatalf("decoded %#v, want %#v", got, f)
			}
		})
	}
}

// Every kind of damage gives an error that wraps ErrCorrupt and says what
// is wrong.
func TestFrameCorruption(t *testing.T) {
	valid := encode(t, Frame{FrameCredit, 9, Credit(1)})
	// reframe builds a frame of type typ with payload p and a correct
	// checksum, so that the payload's own checks are reached.
	reframe := func(typ FrameType, p []byte) []byte { return AppendFrame(nil, typ, 1, p) }
	patch := func(off int, v byte) []byte {
		b := bytes.Clone(valid)
		b[off] = v
		return b
	}
	withLength := func(n uint32) []byte {
		b := bytes.Clone(valid)
		binary.BigEndian.PutUint32(b, n)
		return b
	}
	req := appendRequest(nil, PartitionRequest{Partition: network.PartitionID{Job: "j"}, Credit: 1})
	tests := []struct {
		name  string
		input []byte
		want  string
	}{
		{"truncated header", valid[:7], "truncated header"},
		{"truncated payload", valid[:len(valid)-1], "payload truncated"},
		{"unknown version", patch(4, 2), "version 2"},
		{"unknown type", patch(5, 0x7f), "unknown type 0x7f"},
		{"reserved bytes", patch(6, 1), "reserved bytes"},
		{"length shorter than the header", withLength(3), "shorter than the header"},
		{"length beyond the maximum", withLength(1 << 31), "exceeds the maximum"},
		{"checksum", patch(len(valid)-1, valid[len(valid)-1]^0xff), "checksum"},
		{"channel bit flipped", patch(11, valid[11]^1), "checksum"},
		{"credit of zero", reframe(FrameCredit, []byte{0}), "credit 0 out of range"},
		{"credit not minimal", reframe(FrameCredit, []byte{0x81, 0x00}), "non-minimal encoding of credit"},
		{"checkpoint id not minimal", reframe(FrameEvent, []byte{kindCancel, 0x82, 0x80, 0x00}), "non-minimal encoding of checkpoint id"},
		{"credit trailing bytes", reframe(FrameCredit, []byte{1, 0}), "trailing bytes"},
		{"release with payload", reframe(FrameRelease, []byte{1}), "RELEASE with a payload"},
		{"request job longer than payload", reframe(FramePartitionRequest, []byte{0x7f, 'j'}), "job id of 127 bytes"},
		{"request truncated", reframe(FramePartitionRequest, req[:len(req)-1]), "bad credit"},
		{"request negative subtask", reframe(FramePartitionRequest, []byte{1, 'j', 0, 0, 1}), "subtask -1 out of range"},
		{"request job not UTF-8", reframe(FramePartitionRequest, []byte{1, 0xff, 0, 0, 0, 0, 0, 0}), "not UTF-8"},
		{"empty event", reframe(FrameEvent, nil), "missing event kind"},
		{"unknown event kind", reframe(FrameEvent, []byte{0x09}), "unknown event kind 0x09"},
		{"unknown barrier flag", reframe(FrameEvent, []byte{kindBarrier, 2, 2, 0x80, 0, 0}), "unknown barrier flags 0x80"},
		{"barrier truncated", reframe(FrameEvent, []byte{kindBarrier, 2}), "bad barrier timestamp"},
		{"event trailing bytes", reframe(FrameEvent, []byte{kindEndOfData, 0}), "trailing bytes"},
		{"error not UTF-8", reframe(FrameError, []byte{0xff}), "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadFrame(bytes.NewReader(tt.input), DefaultMaxPayload)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrCorrupt saying %q", err, tt.want)
			}
		})
	}
	if _, err := ReadFrame(bytes.NewReader(nil), DefaultMaxPayload); err != io.EOF {
		t.Fatalf("empty stream: %v, want io.EOF (a clean end between frames)", err)
	}
}

// A header that claims a large payload costs memory only as the payload
// arrives: a lying peer cannot make the reader allocate what it did not
// send.
func TestLargeClaimDoesNotAllocate(t *testing.T) {
	h := appendHeader(nil, FrameBuffer, 1, make([]byte, 1<<30))
	input := append(h, "only a few bytes"...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFrame(bytes.NewReader(input), 2<<30)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "truncated at 16 of 1073741824") {
		t.Fatalf("err = %v, want a truncated payload", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("reading a 16-byte payload that claimed 1 GiB allocated %d bytes", n)
	}
}
