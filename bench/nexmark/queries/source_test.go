package queries

import (
	"fmt"
	"slices"
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
			for _, block := range []int64{1, 7, 1000, BlockEvents} {
				for i, sp := range splits(tc.parts, cfg.NumEvents, block) {
					maxTS := int64(-1 << 63)
					for _, e := range readAll(t, cfg, &sp, 1000, true) {
						ts := e.Timestamp()
						if maxTS != -1<<63 && ts <= maxTS-bound-1 {
							t.Fatalf("blocks of %d, split %d: event at %d is late for watermark %d", block, i, ts, maxTS-bound-1)
						}
						maxTS = max(maxTS, ts)
					}
				}
			}
		})
	}
}

// The splits of every parallelism and block size emit, between them, every
// event of the stream once: each split the events of its blocks, in order,
// and its progress says how many it emitted of how many it holds after
// every read.
func TestSplitsDealTheStreamInBlocks(t *testing.T) {
	cfg := nexmark.DefaultConfig()
	cfg.NumEvents = 10_007
	all := slices.Collect(nexmark.NewGenerator(cfg).All())
	for _, tc := range []struct {
		parts  int
		block  int64
		budget int
	}{
		{1, BlockEvents, 1000}, {2, 1, 64}, {2, 7, 5}, {3, 1000, 333},
		{4, 2500, 10_000}, {3, 5000, 1}, {2, BlockEvents, 700},
	} {
		t.Run(fmt.Sprintf("p%d-block%d-budget%d", tc.parts, tc.block, tc.budget), func(t *testing.T) {
			for i, sp := range splits(tc.parts, cfg.NumEvents, tc.block) {
				var want []nexmark.Event
				for n := range cfg.NumEvents {
					if n/tc.block%int64(tc.parts) == int64(i) {
						want = append(want, all[n])
					}
				}
				if done, total := sp.progress(); done != 0 || total != int64(len(want)) {
					t.Fatalf("split %d starts at progress %d of %d, want 0 of %d", i, done, total, len(want))
				}
				for _, fill := range []bool{false, true} {
					sp := sp
					if got := readAll(t, cfg, &sp, tc.budget, fill); !slices.Equal(got, want) {
						t.Fatalf("split %d (fill %v) emitted %d events, want its %d in order", i, fill, len(got), len(want))
					}
				}
			}
		})
	}
}

// readAll reads sp to its end with reads of budget events, checking its
// progress after each, and returns what it emitted. It reads with the
// source's Read, and with its Fill (as the engine does when the operators
// chained to the source take batches) when fill is set.
func readAll(t *testing.T, cfg nexmark.Config, sp *split, budget int, fill bool) []nexmark.Event {
	t.Helper()
	read, fillFn := readEvents(cfg), fillEvents(cfg)
	buf := make([]nexmark.Event, budget)
	var got []nexmark.Event
	_, total := sp.progress()
	for {
		var done bool
		var err error
		if fill {
			var n int
			n, done, err = fillFn(sp, buf)
			got = append(got, buf[:n]...)
		} else {
			done, err = read(sp, budget, func(e nexmark.Event) error {
				got = append(got, e)
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
		if d, tot := sp.progress(); d != int64(len(got)) || tot != total {
			t.Fatalf("progress %d of %d after %d events of %d", d, tot, len(got), total)
		}
		if done {
			return got
		}
	}
}
