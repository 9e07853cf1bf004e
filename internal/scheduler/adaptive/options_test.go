package adaptive_test

import (
	"errors"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/scheduler/adaptive"
	"github.com/weir-engine/weir/internal/scheduler/adaptive/allocator"
)

func TestOptionsDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   adaptive.Options
		want adaptive.Options
	}{
		{"zero takes Flink's defaults", adaptive.Options{}, adaptive.Options{
			Mode: adaptive.Default, ResourceWaitTimeout: 5 * time.Minute, ResourceStabilizationTimeout: 10 * time.Second,
			Rescale: adaptive.RescaleOptions{MinParallelismIncrease: 1, Cooldown: 30 * time.Second, FailedCheckpoints: 2},
		}},
		{"reactive waits forever and does not stabilize", adaptive.Options{Mode: adaptive.Reactive, ResourceWaitTimeout: time.Minute}, adaptive.Options{
			Mode: adaptive.Reactive, ResourceWaitTimeout: -1, ResourceStabilizationTimeout: -1,
			Rescale: adaptive.RescaleOptions{MinParallelismIncrease: 1, Cooldown: 30 * time.Second, FailedCheckpoints: 2},
		}},
		{"set values stay", adaptive.Options{ResourceWaitTimeout: -1, Rescale: adaptive.RescaleOptions{MinParallelismIncrease: 3, MaxDelay: time.Hour, OnCheckpoint: true}}, adaptive.Options{
			Mode: adaptive.Default, ResourceWaitTimeout: -1, ResourceStabilizationTimeout: 10 * time.Second,
			Rescale: adaptive.RescaleOptions{MinParallelismIncrease: 3, Cooldown: 30 * time.Second, MaxDelay: time.Hour, OnCheckpoint: true, FailedCheckpoints: 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.WithDefaults(); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	ok := []allocator.Vertex{{ID: 0, Max: 2, MaxParallelism: 8}}
	tests := []struct {
		name     string
		vertices []allocator.Vertex
		opts     adaptive.Options
		want     error
	}{
		{"unknown mode", ok, adaptive.Options{Mode: "eager"}, adaptive.ErrInvalidOptions},
		{"negative min increase", ok, adaptive.Options{Rescale: adaptive.RescaleOptions{MinParallelismIncrease: -1}}, adaptive.ErrInvalidOptions},
		{"negative cooldown", ok, adaptive.Options{Rescale: adaptive.RescaleOptions{Cooldown: -time.Second}}, adaptive.ErrInvalidOptions},
		{"negative max delay", ok, adaptive.Options{Rescale: adaptive.RescaleOptions{MaxDelay: -time.Second}}, adaptive.ErrInvalidOptions},
		{"negative failed checkpoints", ok, adaptive.Options{Rescale: adaptive.RescaleOptions{FailedCheckpoints: -1}}, adaptive.ErrInvalidOptions},
		{"no vertices", nil, adaptive.Options{}, allocator.ErrInvalidVertex},
		{"duplicate vertex", append(ok, ok...), adaptive.Options{}, allocator.ErrInvalidVertex},
		{"bounds above max parallelism", []allocator.Vertex{{ID: 0, Max: 9, MaxParallelism: 8}}, adaptive.Options{}, allocator.ErrInvalidVertex},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := adaptive.New(tt.vertices, nil, tt.opts); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}
