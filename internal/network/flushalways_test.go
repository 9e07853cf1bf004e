package network_test

import (
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

// A writer set to flush always (buffer timeout 0) sends a channel's buffer
// after every record and watermark, so each arrives in a buffer of its own
// before any Flush; a default writer sends nothing until its buffer fills
// or it is flushed.
func TestFlushAlwaysSendsEveryElement(t *testing.T) {
	tests := []struct {
		name        string
		flushAlways bool
		want        [][]string // per channel, the elements of each buffer
	}{
		{"flush always", true, [][]string{{"rec 10@1", "rec 12@2", "wm 5"}, {"wm 5"}}},
		{"default", false, [][]string{nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, g := pair(t, 2, 8, 8)
			c := intCodec(t)
			w := network.NewRecordWriter(p, c, func(v int) int { return v % 2 }, network.DefaultBufferSize)
			if tt.flushAlways {
				w.SetFlushAlways()
			}
			for i, e := range []func() error{
				func() error { return w.Collect(1, 10) },
				func() error { return w.Collect(2, 12) },
				func() error { return w.EmitWatermark(5) },
			} {
				if err := e(); err != nil {
					t.Fatalf("emit %d: %v", i, err)
				}
			}
			got := make([][]string, 2)
			for {
				it, ch, ok := g.Poll()
				if !ok {
					break
				}
				in := &logInput{}
				if _, err := network.NewRecordReader[int](c, in).Deliver(it.Buf, in.watermark, in.status); err != nil {
					t.Fatal(err)
				}
				if len(in.log) != 1 {
					t.Errorf("channel %d: a buffer holds %v, want one element per buffer", ch, in.log)
				}
				got[ch] = append(got[ch], in.log...)
				g.Recycle(ch, it.Buf)
			}
			for ch := range tt.want {
				if !slices.Equal(got[ch], tt.want[ch]) {
					t.Errorf("channel %d got %v, want %v", ch, got[ch], tt.want[ch])
				}
			}
		})
	}
}
