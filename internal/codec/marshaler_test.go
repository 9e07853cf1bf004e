package codec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"time"
)

// Event embeds time.Time: the promoted MarshalBinary must not replace the
// encoding of Event's own fields.
type Event struct {
	time.Time
	Name string
}

// Stamped declares its own MarshalBinary and UnmarshalBinary, but embeds
// time.Time, whose AppendBinary is promoted; its own methods must win.
type Stamped struct {
	time.Time
	Seq uint32
}

func (s Stamped) MarshalBinary() ([]byte, error) {
	return binary.BigEndian.AppendUint32([]byte("own"), s.Seq), nil
}

func (s *Stamped) UnmarshalBinary(b []byte) error {
	if len(b) != 7 || !bytes.HasPrefix(b, []byte("own")) {
		return errors.New("not mine")
	}
	s.Seq = binary.BigEndian.Uint32(b[3:])
	return nil
}

// PtrMarshaler has its methods on the pointer receiver only.
type PtrMarshaler struct {
	A, B uint8
}

func (p *PtrMarshaler) MarshalBinary() ([]byte, error) { return []byte{p.B, p.A}, nil }
func (p *PtrMarshaler) UnmarshalBinary(b []byte) error {
	if len(b) != 2 {
		return errors.New("want 2 bytes")
	}
	p.B, p.A = b[0], b[1]
	return nil
}

// HalfMarshaler has MarshalBinary but no UnmarshalBinary: it is encoded by
// reflection.
type HalfMarshaler struct{ X int }

func (HalfMarshaler) MarshalBinary() ([]byte, error) { return []byte("unused"), nil }

func TestMarshalers(t *testing.T) {
	when := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for _, c := range []roundTripCase{
		rt("embedded time keeps other fields", Event{Time: when, Name: "deploy"}),
		rt("own methods beat promoted ones", Stamped{Seq: 7}),
		rt("pointer-receiver methods", PtrMarshaler{A: 1, B: 2}),
		rt("pointer-receiver methods in a slice", []PtrMarshaler{{1, 2}, {3, 4}}),
		rt("half a marshaler", HalfMarshaler{X: -3}),
	} {
		t.Run(c.name, c.run)
	}
	if got := mustFor[Stamped](t).Append(nil, Stamped{Seq: 1}); string(got[:4]) != "\x07own" {
		t.Errorf("Stamped encoded as %q, want its own MarshalBinary", got)
	}
	if got := mustFor[PtrMarshaler](t).Append(nil, PtrMarshaler{A: 1, B: 2}); !bytes.Equal(got, []byte{2, 2, 1}) {
		t.Errorf("PtrMarshaler encoded as %x", got)
	}
	if got := mustFor[HalfMarshaler](t).Append(nil, HalfMarshaler{X: 1}); !bytes.Equal(got, []byte{2}) {
		t.Errorf("HalfMarshaler encoded as %x, want its field", got)
	}
	if err := decodeErr[Stamped](t, []byte{3, 'b', 'a', 'd'}); !isCorrupt(err) {
		t.Errorf("UnmarshalBinary error: %v, want ErrCorrupt", err)
	}
}
