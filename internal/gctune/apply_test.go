package gctune_test

import (
	"bufio"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/gctune"
	"github.com/weir-engine/weir/internal/memsize"
)

// Apply sets both settings and restore puts back what was there; a
// decision that sets nothing changes nothing.
func TestApplyRestores(t *testing.T) {
	prevPercent := debug.SetGCPercent(137)
	prevLimit := debug.SetMemoryLimit(3 * memsize.GiB)
	defer func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}()

	restore := gctune.Apply(gctune.Decision{Set: true, GCPercent: 200, MemoryLimit: memsize.GiB})
	if p, l := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1); p != 200 || l != memsize.GiB {
		t.Errorf("applied: GOGC %d, limit %d; want 200, %d", p, l, memsize.GiB)
	}
	debug.SetGCPercent(200) // SetGCPercent(-1) turned the collector off
	restore()
	if p, l := debug.SetGCPercent(137), debug.SetMemoryLimit(-1); p != 137 || l != 3*memsize.GiB {
		t.Errorf("restored: GOGC %d, limit %d; want 137, %d", p, l, 3*memsize.GiB)
	}

	gctune.Apply(gctune.Decision{Reason: "GOGC=150 is set in the environment"})()
	if p, l := debug.SetGCPercent(137), debug.SetMemoryLimit(-1); p != 137 || l != 3*memsize.GiB {
		t.Errorf("after a decision that sets nothing: GOGC %d, limit %d; want 137, %d", p, l, 3*memsize.GiB)
	}
}

// On this machine (Linux, /proc and /sys readable) the available memory
// is known and not above what the kernel reports.
func TestAvailable(t *testing.T) {
	n := gctune.Available()
	if n <= 0 {
		t.Fatalf("Available() = %d, want the machine's memory", n)
	}
	total := memTotal(t)
	if n > total {
		t.Errorf("Available() = %s, above MemTotal %s", memsize.Format(n), memsize.Format(total))
	}
	t.Logf("available: %s of %s", memsize.Format(n), memsize.Format(total))
}

// memTotal is /proc/meminfo's MemTotal in bytes.
func memTotal(t *testing.T) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Skipf("no /proc/meminfo: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("MemTotal %q: %v", v, err)
			}
			return kb * memsize.KiB
		}
	}
	t.Fatal("no MemTotal in /proc/meminfo")
	return 0
}
