package opstate

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/weir-engine/weir/internal/op"
)

// ErrState is wrapped by the errors of registering a state: a name used
// twice with different types or modes, or restored entries that do not
// decode.
var ErrState = errors.New("opstate: bad operator state")

// Store holds the operator states of one subtask.
type Store struct {
	restored *op.Restored
	states   map[string]*registered
	names    []string
}

// registered is one state: its mode and element type (to refuse a second
// registration that disagrees), the typed value, and its encoding.
type registered struct {
	mode   op.ListMode
	typ    reflect.Type
	value  any
	encode func() ([][]byte, error)
}

// NewStore returns the store of a subtask that restores restored (nil for
// a fresh start).
func NewStore(restored *op.Restored) *Store {
	return &Store{restored: restored, states: make(map[string]*registered)}
}

// IsRestored says whether the subtask started from a checkpoint or
// savepoint (Flink's FunctionInitializationContext.isRestored).
func (s *Store) IsRestored() bool { return s.restored != nil }

// register returns the state called name, creating it with create from
// the restored entries of that name on first use.
func register[S any](s *Store, name string, mode op.ListMode, create func(entries [][]byte) (S, func() ([][]byte, error), error)) (S, error) {
	var zero S
	if name == "" {
		return zero, fmt.Errorf("%w: a state needs a name", ErrState)
	}
	typ := reflect.TypeFor[S]()
	if r, ok := s.states[name]; ok {
		if r.mode != mode || r.typ != typ {
			return zero, fmt.Errorf("%w: %q is registered as %v state of %v, not as %v state of %v", ErrState, name, modeName(r.mode), r.typ, modeName(mode), typ)
		}
		return r.value.(S), nil
	}
	entries, restoredMode, found := s.restoredList(name)
	if found && len(entries) > 0 && restoredMode != mode {
		return zero, fmt.Errorf("%w: %q was snapshotted as %v state and is registered as %v state", ErrState, name, modeName(restoredMode), modeName(mode))
	}
	v, encode, err := create(entries)
	if err != nil {
		return zero, fmt.Errorf("%w: restore %q: %w", ErrState, name, err)
	}
	s.states[name] = &registered{mode: mode, typ: typ, value: v, encode: encode}
	s.names = append(s.names, name)
	return v, nil
}

func (s *Store) restoredList(name string) ([][]byte, op.ListMode, bool) {
	if s.restored == nil {
		return nil, 0, false
	}
	for _, l := range s.restored.Lists {
		if l.Name == name {
			return l.Entries, l.Mode, true
		}
	}
	return nil, 0, false
}

// Snapshot encodes every registered state, in the order of registration,
// then the restored states that were not registered again: split lists
// and broadcast state as they were restored (they are this subtask's), but
// not union lists, whose restored entries are every subtask's, so that
// keeping them would multiply them at every restore.
func (s *Store) Snapshot() ([]op.NamedList, error) {
	out := make([]op.NamedList, 0, len(s.names))
	for _, name := range s.names {
		r := s.states[name]
		entries, err := r.encode()
		if err != nil {
			return nil, fmt.Errorf("snapshot operator state %q: %w", name, err)
		}
		out = append(out, op.NamedList{Name: name, Mode: r.mode, Entries: entries})
	}
	if s.restored != nil {
		for _, l := range s.restored.Lists {
			if _, ok := s.states[l.Name]; !ok && l.Mode != op.UnionList {
				out = append(out, l)
			}
		}
	}
	return out, nil
}

func modeName(m op.ListMode) string {
	switch m {
	case op.UnionList:
		return "union list"
	case op.BroadcastList:
		return "broadcast"
	}
	return "list"
}
