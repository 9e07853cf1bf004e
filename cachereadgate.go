package weir

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// cacheReadGateEnv names the test-only hook that holds the reads of
// cluster partitions in the middle, so that a process test can lose the
// TaskManager that serves one while it is read (cmd/weir's cache failover
// tests): with the variable set to a directory that holds a file "armed"
// when a remote partition is opened (holding the partition's index, or
// empty for every partition), the reader, once the partition's
// first records arrived, creates "reading-<dataset>-p<partition>-<pid>"
// there and reads on only once a file "resume" exists. The holder sends
// no more than its credit meanwhile, so a partition larger than that is
// still being read. Unset, it costs one look-up of the variable.
const cacheReadGateEnv = "WEIR_TEST_CACHE_READ_GATE"

// cacheReadGateDir is the hook's directory ("" when unset).
var cacheReadGateDir = sync.OnceValue(func() string { return os.Getenv(cacheReadGateEnv) })

// cacheReadGateRecheck is how often a held reader looks for "resume".
const cacheReadGateRecheck = 10 * time.Millisecond

// readGate holds one remote partition's read (nil: not held).
type readGate struct {
	dir, name string
	// announced: the first records arrived and the reading file is made.
	announced, open bool
}

// newReadGate returns the gate of partition p of dataset, or nil when the
// hook is unset or not armed.
func newReadGate(dataset string, p int) *readGate {
	dir := cacheReadGateDir()
	if dir == "" {
		return nil
	}
	armed, err := os.ReadFile(filepath.Join(dir, "armed"))
	if err != nil {
		return nil
	}
	// Only the partition the test loses is held: a subtask that reads
	// several partitions one after another must reach it.
	if len(armed) > 0 && string(armed) != strconv.Itoa(p) {
		return nil
	}
	return &readGate{dir: dir, name: fmt.Sprintf("reading-%s-p%d-%d", dataset, p, os.Getpid())}
}

// held reports whether the read must wait, once records arrived.
func (g *readGate) held(read int64) bool {
	if g == nil || g.open || read == 0 {
		return false
	}
	if !g.announced {
		g.announced = true
		_ = os.WriteFile(filepath.Join(g.dir, g.name), nil, 0o644)
	}
	if _, err := os.Stat(filepath.Join(g.dir, "resume")); err == nil {
		g.open = true
		return false
	}
	return true
}

// available is when to look again while held (nil: not held).
func (g *readGate) available() <-chan struct{} {
	if g == nil || g.open || !g.announced {
		return nil
	}
	ch := make(chan struct{})
	time.AfterFunc(cacheReadGateRecheck, func() { close(ch) })
	return ch
}
