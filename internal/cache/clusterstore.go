package cache

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/weir-engine/weir/internal/network"
)

// Store is a TaskManager's cluster partitions (Flink's
// TaskExecutorPartitionTracker with the files it keeps): the partitions
// of cached datasets that the subtasks of session-cluster jobs wrote on
// this TaskManager, kept in its data directory beyond their job, served
// to later jobs over the data plane as BLOCKING_PERSISTENT partitions and
// reported to the ResourceManager. Each partition has a manifest next to
// its files (written crash-safely once they are synced), so that a
// TaskManager started again on the same directory holds them again. The
// store keeps one production of a dataset: a partition of a later one
// replaces every partition of the earlier ones. Its methods are safe for
// concurrent use.
type Store struct {
	opts StoreOptions
	// reg carries the options of the writers of its productions.
	reg *Registry
	mu  sync.Mutex
	// held is the partitions by dataset, then index.
	held map[string]map[int]*held
}

// StoreOptions configure a Store.
type StoreOptions struct {
	// Dir is the store's directory, made if missing.
	Dir string
	// Serve is where its partitions are served (nil: not served).
	Serve network.ConnectionManager
	// OnChange is called, outside the store's lock, each time the
	// partitions held changed (a partition finished, a dataset
	// released): the TaskManager reports them.
	OnChange    func()
	Logger      *slog.Logger
	RegionBytes int
}

// HeldPartition is a cluster partition a Store holds: partition Index of
// Total of production Production of Dataset, in Files.
type HeldPartition struct {
	Dataset      string
	Name         string
	Production   int64
	Index, Total int
	Files        Partition
}

type held struct {
	HeldPartition
	served *network.ResultPartition
}

// partitionManifestSuffix ends the name of a cluster partition's
// manifest: <dataset>-p<index>.partition.json.
const partitionManifestSuffix = ".partition.json"

func partitionManifestName(dataset string, index int) string {
	return fmt.Sprintf("%s-p%d%s", dataset, index, partitionManifestSuffix)
}

// OpenStore opens the store of o.Dir, holding and serving again every
// partition whose manifest and files are there and whole; others are
// deleted with a warning.
func OpenStore(o StoreOptions) (*Store, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: cluster partition directory: %w", err)
	}
	s := &Store{opts: o, reg: NewRegistry(Options{Dir: o.Dir, Logger: o.Logger, RegionBytes: o.RegionBytes}),
		held: make(map[string]map[int]*held)}
	names, err := filepath.Glob(filepath.Join(o.Dir, "*"+partitionManifestSuffix))
	if err != nil {
		return nil, fmt.Errorf("cache: cluster partition directory: %w", err)
	}
	for _, name := range names {
		h, err := readPartitionManifest(o.Dir, name)
		kept := false
		if err == nil {
			kept, err = s.add(h)
		}
		if err == nil && !kept {
			_ = os.Remove(name) // of a production a later one replaced
		}
		if err != nil {
			o.Logger.Warn("cluster partition dropped: its files are missing or damaged", "manifest", name, "error", err)
			_ = os.Remove(name)
			if h.Dataset != "" {
				_ = removeDataset(&Dataset{Partitions: []Partition{h.Files}})
			}
		}
	}
	return s, nil
}

// Begin starts writing partitions of production production of dataset id,
// of total partitions, on this TaskManager: its writers' finished
// partitions join the store.
func (s *Store) Begin(id, name string, production int64, total int) (*Production, error) {
	if !validID(id) {
		return nil, fmt.Errorf("cache: invalid dataset id %q", id)
	}
	p := &Production{reg: s.reg, id: id, name: name, dir: s.opts.Dir, parallel: total, token: randomToken()}
	p.mu.parts = make([]*Partition, total)
	p.onFinished = func(subtask int, part *Partition) {
		h := HeldPartition{Dataset: id, Name: name, Production: production, Index: subtask, Total: total, Files: *part}
		changed, err := s.add(h)
		if err != nil {
			s.opts.Logger.Warn("cache: cannot keep the cluster partition; the execution goes on without it",
				"dataset", id, "partition", subtask, "error", err)
			_ = removeDataset(&Dataset{Partitions: []Partition{*part}})
			return
		}
		if changed && s.opts.OnChange != nil {
			s.opts.OnChange()
		}
	}
	return p, nil
}

// add makes h a partition of the store: its manifest written, served,
// and the partitions it replaces released. It reports false when h is of
// an earlier production than the store holds (h's files are removed).
func (s *Store) add(h HeldPartition) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parts := s.held[h.Dataset]
	var replaced []*held
	for _, o := range parts {
		switch {
		case o.Production > h.Production:
			_ = removeDataset(&Dataset{Partitions: []Partition{h.Files}})
			return false, nil
		case o.Production < h.Production || o.Index == h.Index:
			replaced = append(replaced, o)
		}
	}
	for _, o := range replaced {
		delete(parts, o.Index)
		s.drop(o)
	}
	if err := writePartitionManifest(s.opts.Dir, h); err != nil {
		return false, err
	}
	e := &held{HeldPartition: h}
	if s.opts.Serve != nil {
		rp, err := network.OpenPersistentPartition(network.DatasetPartitionID(h.Dataset, h.Index), h.Files.Data, h.Files.Index)
		if err == nil {
			err = s.opts.Serve.RegisterPartition(rp)
		}
		if err != nil {
			_ = os.Remove(filepath.Join(s.opts.Dir, partitionManifestName(h.Dataset, h.Index)))
			return false, err
		}
		e.served = rp
	}
	if parts == nil {
		parts = make(map[int]*held)
		s.held[h.Dataset] = parts
	}
	parts[h.Index] = e
	return true, nil
}

// drop stops serving o and deletes its files and manifest, unless a newer
// partition of the same index took the manifest's name already.
func (s *Store) drop(o *held) {
	if o.served != nil {
		o.served.Release()
	}
	_ = removeDataset(&Dataset{Partitions: []Partition{o.Files}})
	_ = os.Remove(filepath.Join(s.opts.Dir, partitionManifestName(o.Dataset, o.Index)))
}

// Partitions returns the partitions held, by dataset and index.
func (s *Store) Partitions() []HeldPartition {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []HeldPartition
	for _, parts := range s.held {
		for _, h := range parts {
			out = append(out, h.HeldPartition)
		}
	}
	slices.SortFunc(out, func(a, b HeldPartition) int {
		if c := strings.Compare(a.Dataset, b.Dataset); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
	return out
}

// Release deletes the partitions of dataset id of its productions up to
// upTo (those of a later one stay); it reports whether there were any.
func (s *Store) Release(id string, upTo int64) bool {
	s.mu.Lock()
	var gone []*held
	for i, h := range s.held[id] {
		if h.Production <= upTo {
			gone = append(gone, h)
			delete(s.held[id], i)
		}
	}
	if len(s.held[id]) == 0 {
		delete(s.held, id)
	}
	for _, h := range gone {
		s.drop(h)
	}
	s.mu.Unlock()
	if len(gone) == 0 {
		return false
	}
	s.opts.Logger.Info("cluster partitions released", "dataset", id, "partitions", len(gone))
	if s.opts.OnChange != nil {
		s.opts.OnChange()
	}
	return true
}

// partitionManifest is the JSON of a cluster partition's manifest; file
// names are relative to the store's directory.
type partitionManifest struct {
	Version    int    `json:"version"`
	Dataset    string `json:"dataset"`
	Name       string `json:"name"`
	Production int64  `json:"production"`
	Index      int    `json:"index"`
	Total      int    `json:"total"`
	Data       string `json:"data"`
	IndexFile  string `json:"indexFile"`
	Records    int64  `json:"records"`
	Bytes      int64  `json:"bytes"`
}

func writePartitionManifest(dir string, h HeldPartition) error {
	b, err := json.MarshalIndent(partitionManifest{Version: manifestVersion, Dataset: h.Dataset, Name: h.Name,
		Production: h.Production, Index: h.Index, Total: h.Total, Data: filepath.Base(h.Files.Data),
		IndexFile: filepath.Base(h.Files.Index), Records: h.Files.Records, Bytes: h.Files.Bytes}, "", "  ")
	if err != nil {
		return err
	}
	if err := writeSynced(dir, partitionManifestName(h.Dataset, h.Index), b); err != nil {
		return fmt.Errorf("manifest of partition %d of %s: %w", h.Index, h.Dataset, err)
	}
	return nil
}

func readPartitionManifest(dir, path string) (HeldPartition, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return HeldPartition{}, err
	}
	var m partitionManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return HeldPartition{}, fmt.Errorf("manifest %s: %w", path, err)
	}
	h := HeldPartition{Dataset: m.Dataset, Name: m.Name, Production: m.Production, Index: m.Index, Total: m.Total,
		Files: Partition{Data: filepath.Join(dir, m.Data), Index: filepath.Join(dir, m.IndexFile), Records: m.Records, Bytes: m.Bytes}}
	switch {
	case m.Version != manifestVersion:
		return h, fmt.Errorf("manifest %s: version %d, want %d", path, m.Version, manifestVersion)
	case !validID(m.Dataset) || m.Index < 0 || m.Index >= m.Total || filepath.Base(path) != partitionManifestName(m.Dataset, m.Index):
		return HeldPartition{}, fmt.Errorf("manifest %s: partition %d of %d of dataset %q", path, m.Index, m.Total, m.Dataset)
	}
	if err := network.CheckPartitionFile(h.Files.Data, h.Files.Index); err != nil {
		return h, err
	}
	return h, nil
}
