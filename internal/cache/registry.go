package cache

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/weir-engine/weir/internal/network"
)

// Partition is the files of what one producing subtask wrote.
type Partition struct {
	Data, Index string
	// Records and Bytes are what the partition holds (Bytes: the data
	// file's size).
	Records, Bytes int64
}

// Dataset is a complete cached intermediate result: a partition per
// producing subtask, in subtask order.
type Dataset struct {
	// ID names the dataset (Flink's IntermediateDataSetID): 32 hex
	// characters.
	ID         string
	Name       string
	Partitions []Partition
	Created    time.Time
	// LastUsed is when an execution last read or created the dataset
	// (least-recently-used eviction under Options.Quota).
	LastUsed time.Time
}

// Records is the number of records of the dataset.
func (d *Dataset) Records() int64 {
	var n int64
	for _, p := range d.Partitions {
		n += p.Records
	}
	return n
}

// Bytes is the size of the dataset's data files.
func (d *Dataset) Bytes() int64 {
	var n int64
	for _, p := range d.Partitions {
		n += p.Bytes
	}
	return n
}

// Options configure a Registry.
type Options struct {
	// Dir is the directory under which the registry makes its own
	// (os.TempDir() when empty), created at the first dataset. With
	// Persistent, Dir is the cache directory itself.
	Dir string
	// Persistent keeps the datasets in Dir beyond the registry (and the
	// process): each complete dataset has a manifest there (manifest.go),
	// Lookup finds the datasets other processes created, and Close
	// leaves them in place.
	Persistent bool
	// Quota bounds the bytes of the datasets (for a persistent registry:
	// of all in Dir); 0: no bound. A dataset created beyond it evicts the
	// least recently used others, or is dropped itself when it alone is
	// larger.
	Quota int64
	// MaxPartitionBytes bounds each partition's data (0: no bound): a
	// partition that would grow past it is abandoned as on a full disk.
	MaxPartitionBytes int64
	// RegionBytes is the region size of the partition files (0: 4 MiB).
	RegionBytes int
	Logger      *slog.Logger
}

// Registry is the table of an Env's datasets. Its methods are safe for
// concurrent use: writers report from task goroutines.
type Registry struct {
	opts Options
	mu   struct {
		sync.Mutex
		dir      string // made at the first production; "" before
		complete map[string]*Dataset
		closed   bool
	}
}

// NewRegistry returns an empty registry.
func NewRegistry(o Options) *Registry {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Registry{opts: o}
	r.mu.complete = make(map[string]*Dataset)
	return r
}

// ErrClosed is returned once the registry was closed.
var ErrClosed = errors.New("cache: the environment was closed")

// Lookup returns the complete dataset id, and records its use. A
// persistent registry looks in its directory, where another process may
// have created or dropped it.
func (r *Registry) Lookup(id string) (*Dataset, bool) {
	if r.opts.Persistent {
		d, err := readManifest(r.opts.Dir, id)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				r.opts.Logger.Warn("cache: unreadable manifest; the dataset is computed again", "dataset", id, "error", err)
			}
			return nil, false
		}
		touch(r.opts.Dir, id)
		return d, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.mu.complete[id]
	if ok {
		d.LastUsed = time.Now()
	}
	return d, ok
}

// Datasets returns the complete datasets, most recently used first.
func (r *Registry) Datasets() ([]*Dataset, error) {
	if r.opts.Persistent {
		return ListDir(r.opts.Dir)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Dataset, 0, len(r.mu.complete))
	for _, d := range r.mu.complete {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *Dataset) int { return b.LastUsed.Compare(a.LastUsed) })
	return out, nil
}

// Check verifies that every partition of a complete dataset is there with
// a whole index consistent with its data file; the segments' checksums are
// checked as they are read. The error wraps network.ErrPartitionNotFound
// or network.ErrCorruptPartition.
func (d *Dataset) Check() error {
	for i, p := range d.Partitions {
		if err := network.CheckPartitionFile(p.Data, p.Index); err != nil {
			return fmt.Errorf("cache: dataset %s, partition %d: %w", d.ID, i, err)
		}
	}
	return nil
}

// Begin starts producing dataset id with parallelism partitions in an
// execution. It returns nil once the registry is closed.
func (r *Registry) Begin(id, name string, parallelism int) (*Production, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.mu.closed {
		return nil, ErrClosed
	}
	if r.mu.dir == "" && r.opts.Persistent {
		if err := os.MkdirAll(r.opts.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("cache: directory: %w", err)
		}
		r.mu.dir = r.opts.Dir
	}
	if r.mu.dir == "" {
		dir, err := os.MkdirTemp(r.opts.Dir, "weir-cache-")
		if err != nil {
			return nil, fmt.Errorf("cache: directory: %w", err)
		}
		r.mu.dir = dir
	}
	p := &Production{reg: r, id: id, name: name, dir: r.mu.dir, parallel: parallelism, token: randomToken()}
	p.mu.parts = make([]*Partition, parallelism)
	return p, nil
}

// Commit makes a production that finished every partition the complete
// dataset of its id, releasing any earlier one. It reports whether it
// did; a production that was abandoned or is missing a partition is
// removed instead.
func (r *Registry) Commit(p *Production) bool {
	d, err := p.dataset()
	if err != nil {
		r.opts.Logger.Warn("cache not created", "dataset", p.id, "name", p.name, "reason", err)
		p.Abort()
		return false
	}
	r.mu.Lock()
	if r.mu.closed {
		r.mu.Unlock()
		p.Abort()
		return false
	}
	d.LastUsed = d.Created
	old := r.mu.complete[p.id]
	r.mu.complete[p.id] = d
	r.mu.Unlock()
	if r.opts.Persistent {
		if prev, err := readManifest(r.opts.Dir, d.ID); err == nil {
			old = prev // another process's, or an earlier run's
		}
		if err := writeManifest(r.opts.Dir, d); err != nil {
			r.opts.Logger.Warn("cache not created", "dataset", p.id, "name", p.name, "reason", err)
			r.mu.Lock()
			delete(r.mu.complete, p.id)
			r.mu.Unlock()
			p.Abort()
			return false
		}
	}
	if old != nil {
		_ = removeDataset(old)
	}
	r.opts.Logger.Info("cache created", "dataset", d.ID, "name", d.Name, "partitions", len(d.Partitions),
		"records", d.Records(), "bytes", d.Bytes(), "persistent", r.opts.Persistent)
	r.enforceQuota(d.ID)
	return d.ID != "" && r.kept(d.ID)
}

// kept reports whether dataset id is still complete.
func (r *Registry) kept(id string) bool {
	if r.opts.Persistent {
		_, err := os.Stat(manifestPath(r.opts.Dir, id))
		return err == nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.mu.complete[id]
	return ok
}

// Release deletes dataset id's files and forgets it; releasing an unknown
// dataset does nothing.
func (r *Registry) Release(id string) error {
	if r.opts.Persistent {
		r.mu.Lock()
		delete(r.mu.complete, id)
		r.mu.Unlock()
		_, err := DropDir(r.opts.Dir, id)
		return err
	}
	r.mu.Lock()
	d := r.mu.complete[id]
	delete(r.mu.complete, id)
	r.mu.Unlock()
	if d == nil {
		return nil
	}
	if err := removeDataset(d); err != nil {
		return fmt.Errorf("cache: release dataset %s: %w", id, err)
	}
	return nil
}

// Close releases every dataset and removes the registry's directory;
// later productions are refused. A persistent registry's datasets stay.
func (r *Registry) Close() error {
	if r.opts.Persistent {
		r.mu.Lock()
		r.mu.complete, r.mu.closed = map[string]*Dataset{}, true
		r.mu.Unlock()
		return nil
	}
	r.mu.Lock()
	ds := r.mu.complete
	dir := r.mu.dir
	r.mu.complete, r.mu.closed, r.mu.dir = map[string]*Dataset{}, true, ""
	r.mu.Unlock()
	var errs []error
	for _, d := range ds {
		errs = append(errs, removeDataset(d))
	}
	if dir != "" {
		errs = append(errs, os.RemoveAll(dir))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cache: close: %w", err)
	}
	return nil
}

func removeDataset(d *Dataset) error {
	var errs []error
	for _, p := range d.Partitions {
		for _, f := range []string{p.Data, p.Index} {
			if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
