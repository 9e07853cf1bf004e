// Package cputime reads the CPU time the process has used, for benchmarks
// on a loaded machine, where the CPU time a piece of work takes is a
// steadier measure than the wall-clock time.
package cputime

import (
	"fmt"
	"syscall"
	"time"
)

// Process returns the user and system CPU time of the whole process so
// far (every goroutine, the garbage collector included).
func Process() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, fmt.Errorf("cputime: getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}
