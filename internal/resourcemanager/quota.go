package resourcemanager

import (
	"sort"
)

// The quota of cluster partitions: with SetPartitionQuota, each
// TaskManager keeps at most that many bytes of cluster partitions. When a
// TaskManager holds more (a job's partitions were promoted, a report came
// in), the table evicts its partitions of the least recently used
// datasets until it fits: they are released (ReleasePartitions, after a
// DatasetEvicted saying why) and their datasets left incomplete, so that
// the next job that needs one computes it again. A dataset is used when
// it is promoted or first reported, and when a job reads it (DatasetsRead);
// a dataset that alone does not fit is evicted last.

// DatasetsRead: a job reads Datasets (they were used now).
type DatasetsRead struct{ Datasets []string }

// DatasetEvicted says that TaskManager's partitions of Dataset, Bytes in
// all, are evicted to keep within the quota; the ReleasePartitions that
// deletes them follows.
type DatasetEvicted struct {
	TaskManager, Dataset string
	Bytes                int64
}

// SetPartitionQuota bounds the bytes of cluster partitions each
// TaskManager keeps (0: no bound).
func (rm *ResourceManager) SetPartitionQuota(bytes int64) { rm.quota = bytes }

// use records that dataset d is used now.
func (rm *ResourceManager) use(d *dataset) {
	rm.clock++
	d.lastUsed = rm.clock
}

func (rm *ResourceManager) read(e DatasetsRead) error {
	for _, id := range e.Datasets {
		if d := rm.datasets[id]; d != nil {
			rm.use(d)
		}
	}
	return nil
}

// enforceQuota evicts, on every TaskManager over the quota, its
// partitions of the least recently used datasets until it fits.
func (rm *ResourceManager) enforceQuota() {
	if rm.quota <= 0 {
		return
	}
	for _, tm := range rm.tms {
		held := make(map[string]int64) // bytes by dataset
		var total int64
		for id, d := range rm.datasets {
			for _, p := range d.parts {
				if p.TaskManager == tm.id {
					held[id] += p.Bytes
					total += p.Bytes
				}
			}
		}
		if total <= rm.quota {
			continue
		}
		ids := make([]string, 0, len(held))
		for id := range held {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			a, b := rm.datasets[ids[i]], rm.datasets[ids[j]]
			if a.lastUsed != b.lastUsed {
				return a.lastUsed < b.lastUsed
			}
			return ids[i] < ids[j]
		})
		for _, id := range ids {
			if total <= rm.quota {
				break
			}
			d := rm.datasets[id]
			for i, p := range d.parts {
				if p.TaskManager == tm.id {
					delete(d.parts, i)
				}
			}
			d.evicted = true
			total -= held[id]
			rm.ready = append(rm.ready, DatasetEvicted{TaskManager: tm.id, Dataset: id, Bytes: held[id]},
				ReleasePartitions{TaskManager: tm.id, Dataset: id, Production: d.production})
		}
	}
}
