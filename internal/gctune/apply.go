package gctune

import (
	"log/slog"
	"math"
	"os"
	"runtime/debug"

	"github.com/KimMachineGun/automemlimit/memlimit"
)

// Available is the memory this process may use: the smaller of its
// cgroup's memory limit (v1 or v2) and the machine's memory; 0 when neither
// is known.
func Available() int64 {
	avail := uint64(math.MaxInt64)
	known := false
	for _, from := range []memlimit.Provider{memlimit.FromCgroup, memlimit.FromSystem} {
		if n, err := from(); err == nil && n > 0 {
			avail, known = min(avail, n), true
		}
	}
	if !known {
		return 0
	}
	return int64(avail)
}

// FromEnvironment is the Input of this process: its environment and
// Available, with the configured process memory (0: none).
func FromEnvironment(configured int64) Input {
	return Input{
		GOGC:       os.Getenv("GOGC"),
		GOMEMLIMIT: os.Getenv("GOMEMLIMIT"),
		Configured: configured,
		Available:  Available(),
	}
}

// Apply puts d into effect and returns the function that restores the
// settings it replaced. The settings are the process's: a caller that
// shares its process with other work (a test, a program embedding the
// engine) restores them when its tasks are done.
func Apply(d Decision) (restore func()) {
	if !d.Set {
		return func() {}
	}
	limit := debug.SetMemoryLimit(d.MemoryLimit)
	percent := debug.SetGCPercent(d.GCPercent)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// Configure decides for this process with the configured process memory
// (0: none), logs the decision at info level and applies it; see Apply for
// restore.
func Configure(configured int64, log *slog.Logger) (restore func()) {
	d := Decide(FromEnvironment(configured))
	log.Info(d.String())
	return Apply(d)
}
