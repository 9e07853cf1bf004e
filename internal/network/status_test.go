package network_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
)

// logInput records what a reader delivers, in order.
type logInput struct{ log []string }

func (l *logInput) ProcessElement(ts int64, v int) error {
	l.log = append(l.log, fmt.Sprintf("rec %d@%d", v, ts))
	return nil
}

func (l *logInput) watermark(wm int64) error {
	l.log = append(l.log, fmt.Sprintf("wm %d", wm))
	return nil
}

func (l *logInput) status(idle bool) error {
	l.log = append(l.log, map[bool]string{true: "idle", false: "active"}[idle])
	return nil
}

func intCodec(t testing.TB) codec.Codec[int] {
	t.Helper()
	c, err := codec.For[int]()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Watermark statuses travel in the data buffers of every channel, in order
// with records and watermarks; a writer announces each change once, and
// active again before a watermark that follows idle.
func TestWatermarkStatusKeepsItsOrder(t *testing.T) {
	p, g := pair(t, 2, 4, 4)
	c := intCodec(t)
	w := network.NewRecordWriter(p, c, func(v int) int { return v % 2 }, network.DefaultBufferSize)
	emit := []func() error{
		func() error { return w.Collect(1, 10) },
		func() error { return w.EmitWatermarkStatus(true) },
		func() error { return w.EmitWatermarkStatus(true) }, // announced already
		func() error { return w.Collect(2, 11) },
		func() error { return w.EmitWatermark(5) }, // active first
		func() error { return w.EmitWatermarkStatus(false) },
		func() error { return w.EmitWatermarkStatus(true) },
		w.Flush,
	}
	for i, e := range emit {
		if err := e(); err != nil {
			t.Fatalf("emit %d: %v", i, err)
		}
	}
	ins := []*logInput{{}, {}}
	for {
		it, ch, ok := g.Poll()
		if !ok {
			break
		}
		in := ins[ch]
		if _, err := network.NewRecordReader[int](c, in).Deliver(it.Buf, in.watermark, in.status); err != nil {
			t.Fatal(err)
		}
		g.Recycle(ch, it.Buf)
	}
	want := [][]string{
		{"rec 10@1", "idle", "active", "wm 5", "idle"},
		{"idle", "rec 11@2", "active", "wm 5", "idle"},
	}
	for ch := range want {
		if !slices.Equal(ins[ch].log, want[ch]) {
			t.Errorf("channel %d got %v, want %v", ch, ins[ch].log, want[ch])
		}
	}
}

func TestWatermarkStatusCorrupt(t *testing.T) {
	tests := []struct {
		name string
		buf  []byte
		want string
	}{
		{"truncated", []byte{network.TagWatermarkStatus}, "truncated watermark status"},
		{"unknown status", []byte{network.TagWatermarkStatus, 0x07}, "unknown watermark status 0x07"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &logInput{}
			_, err := network.NewRecordReader[int](intCodec(t), in).Deliver(tt.buf, in.watermark, in.status)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
			if len(in.log) != 0 {
				t.Fatalf("delivered %v from a corrupt buffer", in.log)
			}
		})
	}
}
