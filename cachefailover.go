package weir

import (
	"slices"

	"github.com/weir-engine/weir/internal/cache"
)

// FLIP-205's failover of caches: an execution that reads a cached
// dataset and cannot (a partition file missing, truncated or failing its
// checksum, the TaskManager that holds a cluster partition lost while the
// job read it) fails; its restarts would read the same files from the
// same holders, so the dataset's owner (the Env, or the JobManager for a
// job of a session cluster) releases the dataset and runs the execution
// again as if the cache had never been created: the producers upstream of
// it run, and the cache is written anew. cacheFailover decides, once per
// dataset, so that a dataset that cannot be written and read back ends
// the execution instead of looping.

// cacheFailover is the state of one execution's failover: the datasets
// whose loss ran it again already.
type cacheFailover struct {
	recomputed map[string]bool
}

// executionEnd is how an execution that may have read cached datasets
// ended.
type executionEnd struct {
	// err is its failure; nil when it finished.
	err error
	// canceled: its client or the JobManager's shutdown ended it.
	canceled bool
	// reads are the datasets it read.
	reads []string
	// incomplete reports whether a dataset it read lost partitions since
	// it started (a holder lost: the failure may be that TaskManager's
	// rather than the read's); nil when none can.
	incomplete func(id string) bool
}

// next returns the datasets to release and recompute by running the
// execution again without reading them, and records them; none means
// that the execution's end stands. A failure that names a dataset the
// execution read (cache.Lost) recomputes it, unless it was recomputed
// already; any failure recomputes the datasets it read that became
// incomplete while it ran.
func (f *cacheFailover) next(e executionEnd) []string {
	if e.err == nil || e.canceled || len(e.reads) == 0 {
		return nil
	}
	var drop []string
	if ds, ok := cache.Lost(e.err); ok {
		if !slices.Contains(e.reads, ds) || f.recomputed[ds] {
			return nil
		}
		drop = append(drop, ds)
	}
	if e.incomplete != nil {
		for _, ds := range e.reads {
			if !f.recomputed[ds] && !slices.Contains(drop, ds) && e.incomplete(ds) {
				drop = append(drop, ds)
			}
		}
	}
	if f.recomputed == nil && len(drop) > 0 {
		f.recomputed = make(map[string]bool)
	}
	for _, ds := range drop {
		f.recomputed[ds] = true
	}
	return drop
}
