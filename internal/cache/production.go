package cache

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Production is a dataset being written by the subtasks of one execution.
// A subtask that runs again (a region failover) replaces the partition of
// its earlier attempt.
type Production struct {
	reg      *Registry
	id, name string
	dir      string
	parallel int
	// token tells apart the files of productions of the same dataset by
	// several processes sharing a persistent directory.
	token string
	seq   atomic.Int64
	// onFinished, when set, takes every finished partition (a
	// TaskManager's Store) in place of the production's own table.
	onFinished func(subtask int, part *Partition)
	mu         struct {
		sync.Mutex
		parts     []*Partition
		abandoned error
	}
}

// Registry is the registry the dataset is produced for.
func (p *Production) Registry() *Registry { return p.reg }

// ID is the dataset's id.
func (p *Production) ID() string { return p.id }

// abandon records why the dataset cannot be created; the first reason
// wins.
func (p *Production) abandon(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.abandoned == nil {
		p.mu.abandoned = err
	}
}

// finished records subtask's complete partition, removing one an earlier
// attempt left.
func (p *Production) finished(subtask int, part *Partition) {
	if p.onFinished != nil {
		p.onFinished(subtask, part)
		return
	}
	p.mu.Lock()
	old := p.mu.parts[subtask]
	p.mu.parts[subtask] = part
	p.mu.Unlock()
	if old != nil {
		_ = removeDataset(&Dataset{Partitions: []Partition{*old}})
	}
}

// dataset returns the complete dataset, or why there is none.
func (p *Production) dataset() (*Dataset, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.abandoned != nil {
		return nil, p.mu.abandoned
	}
	d := &Dataset{ID: p.id, Name: p.name, Created: time.Now()}
	for i, part := range p.mu.parts {
		if part == nil {
			return nil, fmt.Errorf("subtask %d wrote no partition", i)
		}
		d.Partitions = append(d.Partitions, *part)
	}
	return d, nil
}

// Abort removes every partition written.
func (p *Production) Abort() {
	p.mu.Lock()
	parts := p.mu.parts
	p.mu.parts = make([]*Partition, len(parts))
	p.mu.Unlock()
	for _, part := range parts {
		if part != nil {
			_ = removeDataset(&Dataset{Partitions: []Partition{*part}})
		}
	}
}

// fileName names a new partition of subtask: unique within the registry's
// directory whatever the attempt.
func (p *Production) fileName(subtask int) string {
	return fmt.Sprintf("weir-cache-%s-%s-s%d-%d", p.id, p.token, subtask, p.seq.Add(1))
}

// randomToken returns 8 random hex characters.
func randomToken() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// errNoSpace is the write error of a partition over
// Options.MaxPartitionBytes.
var errNoSpace = errors.New("cache: partition size limit reached")
