package taskmanager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// storages are the checkpoint storages the TaskManager's subtasks write
// their snapshots to and restore from, one per root (a path or URL, as a
// deployment names it). A storage given with UseStorage is shared with its
// owner (in the embedded cluster, the JobMaster's); any other root is
// opened on first use and closed with the TaskManager.
type storages struct {
	log *slog.Logger
	mu  struct {
		sync.Mutex
		byRoot map[string]*storage.Storage
		opened []*storage.Storage
	}
}

func newStorages(log *slog.Logger) *storages {
	s := &storages{log: log}
	s.mu.byRoot = make(map[string]*storage.Storage)
	return s
}

func (s *storages) use(st *storage.Storage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.byRoot[st.Root()] = st
}

// get returns the storage of root, opening it if none is known.
func (s *storages) get(ctx context.Context, root string) (*storage.Storage, error) {
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

func (s *storages) close() error {
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
