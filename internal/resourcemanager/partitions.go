package resourcemanager

import (
	"fmt"
	"slices"
	"sort"
)

// The ResourceManager's table of cluster partitions (Flink's
// ResourceManagerPartitionTracker): the BLOCKING_PERSISTENT partitions
// that outlived the job that wrote them, grouped by dataset (a cached
// stream, Flink's IntermediateDataSetID), with the TaskManager that holds
// each. TaskManagers report what they hold in full (PartitionsReported,
// on registration and afterwards); a report replaces the previous one of
// the same TaskManager. A lost TaskManager takes its partitions with it,
// which leaves its datasets incomplete: a job must not read them, and the
// next job that needs one computes it again. ReleaseDataset forgets a
// dataset and tells every TaskManager that holds part of it to delete its
// files (ReleasePartitions).

// ClusterPartition is one partition of a dataset as a TaskManager reports
// it: partition Index of Total of the dataset's Production, with what it
// holds. Production orders the executions that wrote a dataset (the
// JobManager stamps each job that creates caches): a later one replaces
// the dataset whole, since its partitions need not split the records the
// way an earlier one's did.
type ClusterPartition struct {
	Dataset        string
	Production     int64
	Index, Total   int
	Records, Bytes int64
}

// PartitionLocation is a partition of a dataset in the table: where it is
// and what it holds.
type PartitionLocation struct {
	Index          int
	TaskManager    string
	Records, Bytes int64
}

// DatasetInfo describes a dataset of the table. It is Complete when every
// one of its Total partitions is held by a registered TaskManager.
type DatasetInfo struct {
	ID         string
	Production int64
	Total      int
	Partitions []PartitionLocation // by Index
}

// Complete reports whether every partition of the dataset is held.
func (d DatasetInfo) Complete() bool { return len(d.Partitions) == d.Total }

// Events and the decision of the table.
type (
	// PartitionsReported: TaskManager holds exactly Partitions (its full
	// cluster partition report).
	PartitionsReported struct {
		TaskManager string
		Partitions  []ClusterPartition
	}
	// ReleaseDataset: release every partition of Dataset.
	ReleaseDataset struct{ Dataset string }
	// ReleasePartitions tells TaskManager to delete its partitions of
	// Dataset's productions up to Production (those of a later one, which
	// it may be writing already, stay).
	ReleasePartitions struct {
		TaskManager, Dataset string
		Production           int64
	}
)

// dataset is a dataset of the table: its size and, by partition index,
// the partitions held.
type dataset struct {
	production int64
	total      int
	parts      map[int]PartitionLocation
}

func (rm *ResourceManager) report(e PartitionsReported) error {
	if rm.taskManager(e.TaskManager) == nil {
		return fmt.Errorf("%w: unknown TaskManager %s reported cluster partitions", ErrInvalid, e.TaskManager)
	}
	totals := make(map[string]ClusterPartition)
	for _, p := range e.Partitions {
		if err := rm.checkPartition(p, totals); err != nil {
			return fmt.Errorf("%w: TaskManager %s reported %w", ErrInvalid, e.TaskManager, err)
		}
	}
	rm.dropPartitionsOf(e.TaskManager, false)
	if rm.datasets == nil {
		rm.datasets = make(map[string]*dataset)
	}
	stale := make(map[string]bool)
	for _, p := range e.Partitions {
		d := rm.datasets[p.Dataset]
		switch {
		case d != nil && p.Production < d.production:
			// What an older execution wrote: the TaskManager deletes it.
			if !stale[p.Dataset] {
				stale[p.Dataset] = true
				rm.ready = append(rm.ready, ReleasePartitions{TaskManager: e.TaskManager, Dataset: p.Dataset, Production: p.Production})
			}
			continue
		case d != nil && p.Production > d.production:
			// The dataset was written again: the new result replaces
			// what is left of the old one.
			rm.releaseDataset(p.Dataset)
			d = nil
		}
		if d == nil {
			d = &dataset{production: p.Production, total: p.Total, parts: make(map[int]PartitionLocation)}
			rm.datasets[p.Dataset] = d
		}
		if _, held := d.parts[p.Index]; held {
			// Another TaskManager holds it already (the same result
			// written twice): the first one keeps serving it.
			continue
		}
		d.parts[p.Index] = PartitionLocation{Index: p.Index, TaskManager: e.TaskManager, Records: p.Records, Bytes: p.Bytes}
	}
	return nil
}

// checkPartition refuses a partition out of its dataset's range, one
// whose production has another size in the table, and a dataset reported
// twice in a report with other sizes or productions.
func (rm *ResourceManager) checkPartition(p ClusterPartition, totals map[string]ClusterPartition) error {
	switch {
	case p.Dataset == "":
		return fmt.Errorf("a partition without dataset")
	case p.Total < 1 || p.Index < 0 || p.Index >= p.Total:
		return fmt.Errorf("partition %d of %d of dataset %s", p.Index, p.Total, p.Dataset)
	}
	if first, ok := totals[p.Dataset]; ok && (first.Total != p.Total || first.Production != p.Production) {
		return fmt.Errorf("dataset %s as production %d of %d partitions and production %d of %d", p.Dataset,
			first.Production, first.Total, p.Production, p.Total)
	}
	if d := rm.datasets[p.Dataset]; d != nil && d.production == p.Production && d.total != p.Total {
		return fmt.Errorf("dataset %s with %d partitions, known with %d", p.Dataset, p.Total, d.total)
	}
	totals[p.Dataset] = p
	return nil
}

// dropPartitionsOf forgets the partitions tm holds, and the datasets left
// without any unless lost: a dataset whose partitions were all lost with
// TaskManagers stays, incomplete, so that the next job that needs it says
// it computes it again.
func (rm *ResourceManager) dropPartitionsOf(tm string, lost bool) {
	for id, d := range rm.datasets {
		for i, p := range d.parts {
			if p.TaskManager == tm {
				delete(d.parts, i)
			}
		}
		if len(d.parts) == 0 && !lost {
			delete(rm.datasets, id)
		}
	}
}

func (rm *ResourceManager) release(e ReleaseDataset) error {
	if rm.datasets[e.Dataset] == nil {
		return fmt.Errorf("%w: unknown dataset %q released", ErrInvalid, e.Dataset)
	}
	rm.releaseDataset(e.Dataset)
	return nil
}

// releaseDataset forgets dataset id and tells its holders to delete it.
func (rm *ResourceManager) releaseDataset(id string) {
	d := rm.datasets[id]
	var tms []string
	for _, p := range d.parts {
		if !slices.Contains(tms, p.TaskManager) {
			tms = append(tms, p.TaskManager)
		}
	}
	sort.Strings(tms)
	for _, tm := range tms {
		rm.ready = append(rm.ready, ReleasePartitions{TaskManager: tm, Dataset: id, Production: d.production})
	}
	delete(rm.datasets, id)
}

// Datasets describes the datasets of the table, complete or not, by id.
func (rm *ResourceManager) Datasets() []DatasetInfo {
	out := make([]DatasetInfo, 0, len(rm.datasets))
	for id := range rm.datasets {
		d, _ := rm.Dataset(id)
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Dataset describes dataset id, if the table has it.
func (rm *ResourceManager) Dataset(id string) (DatasetInfo, bool) {
	d := rm.datasets[id]
	if d == nil {
		return DatasetInfo{}, false
	}
	info := DatasetInfo{ID: id, Production: d.production, Total: d.total}
	for _, p := range d.parts {
		info.Partitions = append(info.Partitions, p)
	}
	sort.Slice(info.Partitions, func(i, j int) bool { return info.Partitions[i].Index < info.Partitions[j].Index })
	return info, true
}
