package codec_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
)

// Money has a registered codec that writes cents as 8 fixed bytes after a
// marker byte, so the tests can tell it was used.
type Money struct{ cents int64 }

type moneyCodec struct{}

func (moneyCodec) Append(buf []byte, m Money) []byte {
	return binary.BigEndian.AppendUint64(append(buf, 'M'), uint64(m.cents))
}

func (moneyCodec) Decode(buf []byte) (Money, int, error) {
	if len(buf) < 9 || buf[0] != 'M' {
		return Money{}, 0, errors.New("bad money")
	}
	return Money{int64(binary.BigEndian.Uint64(buf[1:]))}, 9, nil
}

type Order struct {
	Items  []Money
	Total  Money
	Prices map[Money]*Money
}

// Shape is an interface: it only has a codec because one is registered.
type Shape interface{ Area() float64 }

type Square struct{ Side float64 }
type Circle struct{ R float64 }

func (s Square) Area() float64 { return s.Side * s.Side }
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }

type shapeCodec struct{}

func (shapeCodec) Append(buf []byte, s Shape) []byte {
	switch s := s.(type) {
	case Square:
		return binary.LittleEndian.AppendUint64(append(buf, 1), math.Float64bits(s.Side))
	case Circle:
		return binary.LittleEndian.AppendUint64(append(buf, 2), math.Float64bits(s.R))
	}
	return append(buf, 0)
}

func (shapeCodec) Decode(buf []byte) (Shape, int, error) {
	if len(buf) > 0 && buf[0] == 0 {
		return nil, 1, nil
	}
	if len(buf) < 9 {
		return nil, 0, fmt.Errorf("%w: short shape", codec.ErrCorrupt)
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(buf[1:]))
	switch buf[0] {
	case 1:
		return Square{f}, 9, nil
	case 2:
		return Circle{f}, 9, nil
	}
	return nil, 0, fmt.Errorf("%w: shape tag %d", codec.ErrCorrupt, buf[0])
}

type Drawing struct {
	Name   string
	Shapes []Shape
}

// lying returns n bigger than the input, which must not make a decoder
// slice out of range.
type Lying struct{}

type lyingCodec struct{}

func (lyingCodec) Append(buf []byte, _ Lying) []byte { return append(buf, 0) }
func (lyingCodec) Decode([]byte) (Lying, int, error) { return Lying{}, 1 << 20, nil }

// registeredShapes says that TestRegister registered the codecs of this
// file: registration is for the process, so a second run (go test -count)
// finds them there.
var registeredShapes bool

func TestRegister(t *testing.T) {
	// Ask first, so that Register has a cached plan to drop.
	if err := codec.Check(reflect.TypeFor[Drawing]()); err == nil && !registeredShapes {
		t.Fatal("Drawing has a codec before Shape is registered")
	}
	registeredShapes = true
	codec.Register[Money](moneyCodec{})
	codec.Register[Shape](shapeCodec{})
	codec.Register[Lying](lyingCodec{})

	if c := mustFor[Money](t); reflect.TypeOf(c) != reflect.TypeOf(moneyCodec{}) {
		t.Errorf("For[Money] = %T, want the registered codec", c)
	}
	// Inside other types, too.
	if got := mustFor[Order](t).Append(nil, Order{Total: Money{1}}); string(got[:2]) != "\x00M" {
		t.Errorf("Order encoding %x does not use the registered codec", got)
	}
	for _, c := range []roundTripCase{
		rt("registered", Money{-5}),
		rt("registered in struct", Order{Items: []Money{{1}, {2}}, Total: Money{3}, Prices: map[Money]*Money{{4}: {5}, {6}: nil}}),
		rt("registered interface", Drawing{Name: "d", Shapes: []Shape{Square{2}, nil, Circle{1}}}),
		truncations("registered truncated", Order{Items: []Money{{1}}, Total: Money{3}}),
	} {
		t.Run(c.name, c.run)
	}

	// A registered codec's plain error becomes ErrCorrupt, and its own
	// ErrCorrupt is kept.
	if err := decodeErr[Order](t, []byte{2, 'X', 0, 0, 0, 0, 0, 0, 0, 0}); !isCorrupt(err) {
		t.Errorf("bad money: %v", err)
	}
	if err := decodeErr[Drawing](t, []byte{0, 2, 9}); !isCorrupt(err) {
		t.Errorf("bad shape: %v", err)
	}
	if err := decodeErr[[]Lying](t, []byte{2, 0}); !isCorrupt(err) {
		t.Errorf("codec consuming more than its input: %v", err)
	}

	// A registered codec overrides the one of a predeclared type.
	codec.Register[uint16](fixed16{})
	if got := mustFor[[]uint16](t).Append(nil, []uint16{1}); len(got) != 3 {
		t.Errorf("[]uint16 encoding %x ignores the registered uint16 codec", got)
	}
	codec.Register[uint16](nil)
	if got := mustFor[[]uint16](t).Append(nil, []uint16{1}); len(got) != 2 {
		t.Errorf("[]uint16 encoding %x after unregistering", got)
	}
}

type fixed16 struct{}

func (fixed16) Append(buf []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(buf, v) }
func (fixed16) Decode(buf []byte) (uint16, int, error) {
	if len(buf) < 2 {
		return 0, 0, codec.ErrCorrupt
	}
	return binary.LittleEndian.Uint16(buf), 2, nil
}
