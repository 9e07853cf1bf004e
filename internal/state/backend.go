package state

import (
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// KeyedBackend holds all keyed state of one operator instance for keys of type
// K, partitioned by the key groups [start, end] that the instance owns.
//
// It is not safe for concurrent use: one goroutine (the task's mailbox) owns
// it and every state registered on it. See the package documentation for what
// callers must do.
type KeyedBackend[K comparable] struct {
	start, end int

	// The current key. local is keyGroup-start, or -1 when no valid key is
	// set; the state accessors check only local.
	key      K
	keyGroup int
	local    int
	// seq counts SetCurrentKey calls, so that a state can cache what it
	// found for the current key (see cellTable).
	seq uint64

	states map[string]entry[K]
	// pending holds restored payloads, per local key group, of states not
	// registered yet (see snapshot.go).
	pending map[string][][]byte
	// pendingSchemas holds the schemas restored with pending payloads,
	// by state name (see evolve.go).
	pendingSchemas map[string][]byte
	// transcoders caches the transcoders of restored schemas by state
	// name and schema.
	transcoders map[string]*codec.Transcoder

	// err is the first usage error recorded; see Err.
	err error

	// kv is the Pebble store of a Pebble backend, nil on the heap.
	kv  *kvStore
	log *slog.Logger
	// clock is the processing-time clock of state TTL (time.Now if nil).
	clock func() time.Time
}

// NewKeyedBackend returns an empty backend owning the key groups
// [keyGroupStart, keyGroupEnd], both inclusive.
//
// It panics if the range is empty or negative: the range comes from the job
// graph, and a bad one is a bug in the caller, not a runtime condition.
func NewKeyedBackend[K comparable](keyGroupStart, keyGroupEnd int) *KeyedBackend[K] {
	if keyGroupStart < 0 || keyGroupEnd < keyGroupStart {
		panic(fmt.Sprintf("state: invalid key group range [%d, %d]", keyGroupStart, keyGroupEnd))
	}
	return &KeyedBackend[K]{
		start:    keyGroupStart,
		end:      keyGroupEnd,
		keyGroup: -1,
		local:    -1,
		states:   make(map[string]entry[K]),
	}
}

// OpenPebble returns a backend owning the key groups [keyGroupStart,
// keyGroupEnd] whose states live in a Pebble database in dir: a new one if
// dir is empty or missing, or the one a restore put there. The backend owns
// dir from then on and removes it in Close. log receives Pebble's log (nil
// for slog's default).
func OpenPebble[K comparable](keyGroupStart, keyGroupEnd int, dir string, log *slog.Logger) (*KeyedBackend[K], error) {
	b := NewKeyedBackend[K](keyGroupStart, keyGroupEnd)
	kv, err := openKV(dir, log)
	if err != nil {
		return nil, err
	}
	b.kv, b.log = kv, log
	return b, nil
}

// IsPebble reports whether the backend keeps its state in Pebble.
func (b *KeyedBackend[K]) IsPebble() bool { return b.kv != nil }

// Close releases the backend: a Pebble backend closes its database and
// removes its directory. A heap backend has nothing to release.
func (b *KeyedBackend[K]) Close() error {
	if b.kv == nil {
		return nil
	}
	kv := b.kv
	b.kv = nil
	return kv.close()
}

// numGroups is the number of key groups the backend owns.
func (b *KeyedBackend[K]) numGroups() int {
	return b.end - b.start + 1
}

// KeyGroupRange returns the first and last key group this backend owns.
func (b *KeyedBackend[K]) KeyGroupRange() (start, end int) {
	return b.start, b.end
}

// SetCurrentKey makes k, which belongs to keyGroup, the key that every state
// access is for, until the next call.
//
// A key group outside the backend's range records ErrKeyGroupOutOfRange
// (see Err) and leaves the backend without a valid current key: until the
// next valid SetCurrentKey, reads return zero values and writes are dropped.
// CurrentKey and CurrentKeyGroup still report what was passed.
func (b *KeyedBackend[K]) SetCurrentKey(k K, keyGroup int) {
	b.key = k
	b.keyGroup = keyGroup
	b.seq++
	if keyGroup < b.start || keyGroup > b.end {
		b.local = -1
		if b.err == nil {
			b.err = fmt.Errorf("%w: key group %d not in [%d, %d]",
				ErrKeyGroupOutOfRange, keyGroup, b.start, b.end)
		}
		return
	}
	b.local = keyGroup - b.start
}

// CurrentKey returns the key passed to the last SetCurrentKey, or the zero K
// if there was none.
func (b *KeyedBackend[K]) CurrentKey() K {
	return b.key
}

// CurrentKeyGroup returns the key group passed to the last SetCurrentKey, or
// -1 if there was none.
func (b *KeyedBackend[K]) CurrentKeyGroup() int {
	return b.keyGroup
}

// Err returns the first usage error recorded by the backend, or nil. Errors
// are sticky: a backend that recorded one is in an unknown state and its task
// should fail.
func (b *KeyedBackend[K]) Err() error {
	return b.err
}

// record keeps err if it is the first error.
func (b *KeyedBackend[K]) record(err error) error {
	if b.err == nil {
		b.err = err
	}
	return err
}

// current returns the local key group of the current key, or -1 after
// recording ErrNoCurrentKey. It is the first step of every state access.
func (b *KeyedBackend[K]) current() int {
	if b.local < 0 {
		b.record(ErrNoCurrentKey)
	}
	return b.local
}

// ClearCurrentKey drops the current key's entry from every registered
// state. Batch execution calls it when a key's records are all processed,
// so that the backend holds one key's state at a time.
func (b *KeyedBackend[K]) ClearCurrentKey() {
	g := b.current()
	if g < 0 {
		return
	}
	for _, s := range b.states {
		s.table.remove(g, b.key)
	}
}

// StateNames returns the names of the registered states, sorted.
func (b *KeyedBackend[K]) StateNames() []string {
	names := make([]string, 0, len(b.states))
	for name := range b.states {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// NumEntries returns the number of (state, key) pairs that hold state, across
// all states and key groups. A MapState counts one entry per key, however many
// user keys it maps.
func (b *KeyedBackend[K]) NumEntries() int {
	n := 0
	for _, s := range b.states {
		n += s.table.numEntries()
	}
	return n
}
