package gctune_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/gctune"
	"github.com/weir-engine/weir/internal/memsize"
)

func TestDecide(t *testing.T) {
	const gib = memsize.GiB
	for _, c := range []struct {
		name string
		in   gctune.Input
		want gctune.Decision
		log  string
	}{
		{"configured memory", gctune.Input{Configured: 2 * gib, Available: 24 * gib},
			gctune.Decision{Set: true, GCPercent: 200, MemoryLimit: 2 * gib * 9 / 10},
			"Go runtime: GOGC 200, memory limit 1.80 GiB (90% of 2 GiB, the configured process memory)"},
		{"available memory", gctune.Input{Available: 24 * gib},
			gctune.Decision{Set: true, GCPercent: 200, MemoryLimit: 24 * gib * 9 / 10},
			"Go runtime: GOGC 200, memory limit 21.6 GiB (90% of 24 GiB, the memory available to the process)"},
		{"configured above available", gctune.Input{Configured: 32 * gib, Available: 24 * gib},
			gctune.Decision{Set: true, GCPercent: 200, MemoryLimit: 32 * gib * 9 / 10},
			"Go runtime: GOGC 200, memory limit 28.8 GiB (90% of 32 GiB, the configured process memory)"},
		{"GOGC set", gctune.Input{GOGC: "150", Configured: 2 * gib, Available: 24 * gib},
			gctune.Decision{},
			"Go runtime settings left alone: GOGC=150 is set in the environment"},
		{"GOGC off", gctune.Input{GOGC: "off", Available: 24 * gib},
			gctune.Decision{},
			"Go runtime settings left alone: GOGC=off is set in the environment"},
		{"GOMEMLIMIT set", gctune.Input{GOMEMLIMIT: "1GiB", Available: 24 * gib},
			gctune.Decision{},
			"Go runtime settings left alone: GOMEMLIMIT=1GiB is set in the environment"},
		{"both set", gctune.Input{GOGC: "100", GOMEMLIMIT: "1GiB", Configured: gib},
			gctune.Decision{},
			"Go runtime settings left alone: GOGC=100 and GOMEMLIMIT=1GiB are set in the environment"},
		{"nothing known", gctune.Input{},
			gctune.Decision{},
			"Go runtime settings left alone: no process memory is configured and the available memory is unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := gctune.Decide(c.in)
			if got.Set != c.want.Set || got.GCPercent != c.want.GCPercent || got.MemoryLimit != c.want.MemoryLimit {
				t.Errorf("Decide(%+v) = %+v, want %+v", c.in, got, c.want)
			}
			if got.String() != c.log {
				t.Errorf("log line %q, want %q", got.String(), c.log)
			}
		})
	}
}

func TestCheckProcessMemory(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{64 * memsize.MiB, ""},
		{8 * memsize.GiB, ""},
		{64*memsize.MiB - 1, "64.0 MiB is too small: want at least 64 MiB"},
		{16 * memsize.MiB, "16 MiB is too small: want at least 64 MiB"},
	} {
		err := gctune.CheckProcessMemory(c.n)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("CheckProcessMemory(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
