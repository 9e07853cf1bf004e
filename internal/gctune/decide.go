package gctune

import (
	"fmt"

	"github.com/weir-engine/weir/internal/memsize"
)

// GCPercent is the GOGC a task process runs with when the environment does
// not set one. Measured on the word count job at parallelism 2 (2 cores,
// 100 MB input): as a whole `weir run`, 200 takes 0.965x the time of 100
// and 400 1.05x that of 200; Nexmark's q0 and q5 take 0.99x
// (docs/benchmarks.md).
const GCPercent = 200

// LimitFraction is the share of the process's memory that becomes the Go
// runtime's soft memory limit. The rest is headroom for memory the limit
// does not count: what cgo code allocates and the kernel's page cache of
// the files the process writes.
const LimitFraction = 0.9

// MinProcessMemory is the least process memory a task process accepts:
// below it the runtime's own memory and the network buffers of a single
// channel leave a job no room, and the collector would run without pause.
const MinProcessMemory = 64 * memsize.MiB

// Input is what Decide decides from.
type Input struct {
	// GOGC and GOMEMLIMIT are the environment's variables ("" when unset).
	GOGC, GOMEMLIMIT string
	// Configured is the process memory the user configured
	// (taskmanager.memory.process.size, --process-memory); 0 when not.
	Configured int64
	// Available is the memory the process may use without a configuration:
	// its cgroup's limit, else the machine's memory; 0 when unknown.
	Available int64
}

// Decision is what Apply sets. Set false leaves the runtime as it is.
type Decision struct {
	Set bool
	// GCPercent and MemoryLimit are the GOGC and GOMEMLIMIT to set.
	GCPercent   int
	MemoryLimit int64
	// Reason says where the settings come from, for the log.
	Reason string
}

// String is the decision as the log shows it.
func (d Decision) String() string {
	if !d.Set {
		return "Go runtime settings left alone: " + d.Reason
	}
	return fmt.Sprintf("Go runtime: GOGC %d, memory limit %s (%s)", d.GCPercent, memsize.Format(d.MemoryLimit), d.Reason)
}

// CheckProcessMemory refuses a configured process memory too small to run
// tasks in.
func CheckProcessMemory(n int64) error {
	if n < MinProcessMemory {
		return fmt.Errorf("%s is too small: want at least %s", memsize.Format(n), memsize.Format(MinProcessMemory))
	}
	return nil
}

// Decide is the policy: the environment's settings win; otherwise the
// configured process memory, else the available memory, gives the limit,
// and GOGC is raised to GCPercent under it. With neither a configuration
// nor a known amount of memory nothing is set: a higher GOGC without a
// limit could grow the heap past what the machine has.
func Decide(in Input) Decision {
	switch {
	case in.GOGC != "" && in.GOMEMLIMIT != "":
		return Decision{Reason: fmt.Sprintf("GOGC=%s and GOMEMLIMIT=%s are set in the environment", in.GOGC, in.GOMEMLIMIT)}
	case in.GOGC != "":
		return Decision{Reason: fmt.Sprintf("GOGC=%s is set in the environment", in.GOGC)}
	case in.GOMEMLIMIT != "":
		return Decision{Reason: fmt.Sprintf("GOMEMLIMIT=%s is set in the environment", in.GOMEMLIMIT)}
	}
	mem, from := in.Configured, "the configured process memory"
	if mem <= 0 {
		mem, from = in.Available, "the memory available to the process"
	}
	if mem <= 0 {
		return Decision{Reason: "no process memory is configured and the available memory is unknown"}
	}
	return Decision{
		Set:         true,
		GCPercent:   GCPercent,
		MemoryLimit: int64(float64(mem) * LimitFraction),
		Reason:      fmt.Sprintf("%.0f%% of %s, %s", LimitFraction*100, memsize.Format(mem), from),
	}
}
