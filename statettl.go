package weir

import (
	"time"

	"github.com/weir-engine/weir/internal/state"
)

// StateOption configures a keyed state when it is registered
// (GetValueState, GetListState, GetMapState).
type StateOption = state.Option

// StateTTLUpdate says which accesses refresh a state entry's time to live.
type StateTTLUpdate = state.TTLUpdate

const (
	// OnCreateAndWrite refreshes an entry when it is written (Flink's
	// default).
	OnCreateAndWrite = state.OnCreateAndWrite
	// OnReadAndWrite refreshes it when it is read, too.
	OnReadAndWrite = state.OnReadAndWrite
)

// StateTTLConfig is the time to live of a keyed state (Flink's
// StateTtlConfig). A key's entry expires TTL after its last refresh, on
// the task's processing-time clock, and is never returned once expired.
// The TTL covers a key's whole entry: all of a ListState's list or a
// MapState's map. The refresh times are part of checkpoints; a state
// cannot gain or lose its TTL between a savepoint and the restored job.
type StateTTLConfig struct {
	TTL    time.Duration
	Update StateTTLUpdate
	// CleanupFullSnapshot removes expired entries before each checkpoint
	// of the heap backend captures its state, so no snapshot holds them.
	CleanupFullSnapshot bool
	// IncrementalCleanupSize entries of the state are checked, and the
	// expired ones removed, at each access (Flink's cleanupIncrementally).
	IncrementalCleanupSize int
	// CompactionCleanupSize entries are checked at each checkpoint of the
	// Pebble backend, and the expired ones deleted, for Pebble's
	// compactions to drop: Pebble has no compaction filter, this is the
	// stand-in for Flink's cleanupInRocksdbCompactFilter.
	CompactionCleanupSize int
}

// NewStateTTLConfig returns a TTL configuration with Flink's defaults:
// refresh on create and write, background cleanup of 5 entries per access
// and of 1000 entries per Pebble checkpoint.
func NewStateTTLConfig(ttl time.Duration) StateTTLConfig {
	return StateTTLConfig{TTL: ttl, Update: OnCreateAndWrite, IncrementalCleanupSize: 5, CompactionCleanupSize: 1000}
}

// WithStateTTL gives a state a time to live. An invalid configuration (a
// TTL that is not positive) makes the Get*State call fail.
func WithStateTTL(c StateTTLConfig) StateOption {
	return state.WithTTL(state.TTLConfig{TTL: c.TTL, Update: c.Update, CleanupFullSnapshot: c.CleanupFullSnapshot,
		IncrementalCleanupSize: c.IncrementalCleanupSize, CompactionCleanupSize: c.CompactionCleanupSize})
}
