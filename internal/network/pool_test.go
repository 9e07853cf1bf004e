package network_test

import (
	"errors"
	"testing"

	"github.com/weir-engine/weir/internal/network"
)

func TestCapacityOf(t *testing.T) {
	for _, tt := range []struct {
		memory     int64
		bufferSize int
		want       network.Capacity
		str        string
	}{
		{64 << 20, network.DefaultBufferSize, network.Capacity{Memory: 64 << 20, Buffers: 1820, BufferMemory: 36 << 10}, "64 MiB (1,820 buffers)"},
		{network.DefaultNetworkMemory, network.DefaultBufferSize, network.Capacity{Memory: 1 << 30, Buffers: 29127, BufferMemory: 36 << 10}, "1 GiB (29,127 buffers)"},
		{1000, 1024, network.Capacity{Memory: 1000, Buffers: 0, BufferMemory: 1152}, "1000 B (0 buffers)"},
	} {
		got := network.CapacityOf(tt.memory, tt.bufferSize)
		if got != tt.want || got.String() != tt.str {
			t.Errorf("CapacityOf(%d, %d) = %+v %q, want %+v %q", tt.memory, tt.bufferSize, got, got, tt.want, tt.str)
		}
	}
}

func TestBufferPool(t *testing.T) {
	p := network.NewBufferPool(10*network.DefaultBufferSize*9/8, network.DefaultBufferSize) // 10 buffers
	steps := []struct {
		request, recycle int
		fails            bool
		inUse            int
	}{
		{request: 4, inUse: 4},
		{request: 6, inUse: 10},
		{request: 1, fails: true, inUse: 10}, // full: nothing taken
		{recycle: 6, inUse: 4},
		{request: 7, fails: true, inUse: 4}, // all or nothing
		{request: 6, inUse: 10},
		{recycle: 10, inUse: 0},
		{request: 0, inUse: 0},
	}
	for i, s := range steps {
		if s.recycle > 0 {
			p.Recycle(s.recycle)
		} else {
			err := p.Request(s.request)
			if s.fails != (err != nil) || (err != nil && !errors.Is(err, network.ErrInsufficientBuffers)) {
				t.Fatalf("step %d: Request(%d) = %v, want failure %v", i, s.request, err, s.fails)
			}
		}
		if got := p.InUse(); got != s.inUse {
			t.Fatalf("step %d: %d in use, want %d", i, got, s.inUse)
		}
	}
}
