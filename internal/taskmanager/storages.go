package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// Storages are the checkpoint storages that subtasks write their
// snapshots to and restore from, one per root (a path or URL, as a
// deployment names it); the TaskManagers of one cluster may share them. A
// storage given with Use stays its owner's (in an embedded cluster, the
// job's, shared with its JobMaster, so that both see one storage and its
// options); any other root is opened on first use and closed by Close.
type Storages struct {
	log *slog.Logger
	mu  struct {
		sync.Mutex
		byRoot map[string]*storage.Storage
		opened []*storage.Storage
	}
}

// NewStorages returns an empty set of storages.
func NewStorages(log *slog.Logger) *Storages {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Storages{log: log}
	s.mu.byRoot = make(map[string]*storage.Storage)
	return s
}

// Use makes the checkpoints under st.Root() go through st, in place of
// any storage of that root given or opened before.
func (s *Storages) Use(st *storage.Storage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.byRoot[st.Root()] = st
}

// get returns the storage of root, opening it if none is known.
func (s *Storages) get(ctx context.Context, root string) (*storage.Storage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.mu.byRoot[root]; ok {
		return st, nil
	}
	st, err := storage.Open(ctx, root, storage.Options{Logger: s.log})
	if err != nil {
		return nil, fmt.Errorf("open checkpoint storage %s: %w", root, err)
	}
	s.mu.byRoot[root] = st
	s.mu.opened = append(s.mu.opened, st)
	return st, nil
}

// Close closes the storages opened on demand and forgets them all.
func (s *Storages) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, st := range s.mu.opened {
		errs = append(errs, st.Close())
	}
	s.mu.opened = nil
	s.mu.byRoot = make(map[string]*storage.Storage)
	return errors.Join(errs...)
}
