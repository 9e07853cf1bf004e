package queries

import (
	"testing"

	"github.com/weir-engine/weir/bench/nexmark"
)

// No subtask ever sees an event at or below the watermark its own events
// allow: the OutOfOrderness bound holds for every split.
func TestOutOfOrdernessMakesNoEventLate(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rate, group int64
		parts       int
	}{
		{"in order", 10_000, 1, 1},
		{"in order, 3 splits", 10_000, 1, 3},
		{"fast, big groups", 1_000_000, 500, 2},
		{"slow, groups of 37", 50, 37, 3},
		{"odd rate", 7_777, 101, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := nexmark.DefaultConfig()
			cfg.NumEvents, cfg.FirstEventRate, cfg.OutOfOrderGroupSize = 20_000, tc.rate, tc.group
			bound := OutOfOrderness(cfg).Milliseconds()
			g := nexmark.NewGenerator(cfg)
			for i := range tc.parts {
				maxTS := int64(-1 << 63)
				s := g.Split(i, tc.parts)
				for {
					e, ok := s.Next()
					if !ok {
						break
					}
					ts := e.Timestamp()
					if maxTS != -1<<63 && ts <= maxTS-bound-1 {
						t.Fatalf("split %d: event at %d is late for watermark %d", i, ts, maxTS-bound-1)
					}
					maxTS = max(maxTS, ts)
				}
			}
		})
	}
}
