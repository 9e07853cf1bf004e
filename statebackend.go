package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/op"
)

// StateBackendKind names where keyed state lives.
type StateBackendKind int

const (
	// HashMap keeps keyed state in Go maps on the heap (Flink's
	// HashMapStateBackend): the fastest, bounded by memory. Checkpoints are
	// copy-on-write per key group: the task goes on while a snapshot is
	// written.
	HashMap StateBackendKind = iota
	// Pebble keeps keyed state in a Pebble LSM tree on local disk (Flink's
	// EmbeddedRocksDBStateBackend): state larger than memory, and
	// incremental checkpoints.
	Pebble
)

// String returns "hashmap" or "pebble".
func (k StateBackendKind) String() string {
	if k == Pebble {
		return "pebble"
	}
	return "hashmap"
}

// ParseStateBackendKind parses "hashmap" or "pebble".
func ParseStateBackendKind(s string) (StateBackendKind, error) {
	switch s {
	case "hashmap", "":
		return HashMap, nil
	case "pebble":
		return Pebble, nil
	}
	return 0, fmt.Errorf("weir: unknown state backend %q (want hashmap or pebble)", s)
}

// StateBackend configures where keyed operators keep their state. The
// zero value is the heap backend.
type StateBackend struct {
	Kind StateBackendKind
	// LocalDir is where the Pebble backend keeps its working directories,
	// one per keyed operator subtask, removed when the subtask ends, and
	// where a batch job writes its blocking partitions (in
	// weir-partitions, removed when the job ends) and sort runs (default
	// os.TempDir()).
	LocalDir string
	// Incremental makes the Pebble backend's checkpoints upload only the
	// SST files that the last completed checkpoint did not already hold;
	// the others are shared between checkpoints, reference-counted, and
	// deleted once no retained checkpoint needs them. Savepoints are
	// always complete and in the backend-independent format.
	Incremental bool
	// LocalRecovery makes each TaskManager keep a local copy of the Pebble
	// state of its subtasks' latest completed checkpoint; a subtask that
	// restarts in the same TaskManager with the same key groups restores
	// from it instead of downloading the checkpoint's files (Flink's
	// state.backend.local-recovery). Off by default: the copies hold disk.
	LocalRecovery bool
}

// WithStateBackend chooses the state backend.
func WithStateBackend(b StateBackend) Option { return func(o *Options) { o.StateBackend = b } }

func (b StateBackend) config() op.StateBackend {
	return op.StateBackend{Pebble: b.Kind == Pebble, LocalDir: b.LocalDir, Incremental: b.Incremental, LocalRecovery: b.LocalRecovery}
}
