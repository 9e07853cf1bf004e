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
//
// As in Flink, the partitions a job writes become cluster partitions only
// when the job FINISHED: from CachingJobStarted to CachingJobFinished the
// partitions reported of its production wait aside, invisible to
// Dataset and Datasets; CachingJobFailed (the job failed or was
// cancelled) releases them, and later reports of that production too.
// A production no job started (written before the JobManager started,
// and kept in a TaskManager's data directory) is a cluster partition as
// soon as it is reported.

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
	// CachingJobStarted: a job that writes cached streams as Production
	// starts; its partitions wait for its end.
	CachingJobStarted struct{ Production int64 }
	// CachingJobFinished: the job of Production FINISHED; its partitions
	// are cluster partitions from now on.
	CachingJobFinished struct{ Production int64 }
	// CachingJobFailed: the job of Production failed or was cancelled;
	// its partitions are released.
	CachingJobFailed struct{ Production int64 }
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
	lastUsed   int64 // the table's clock at its latest use (quota.go)
	evicted    bool  // partitions evicted: it stays, incomplete
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
	// A report replaces the previous one: the datasets it names again
	// keep their last use.
	used := make(map[string]int64, len(rm.datasets))
	for id, d := range rm.datasets {
		used[id] = d.lastUsed
	}
	rm.dropPartitionsOf(e.TaskManager, false)
	if rm.datasets == nil {
		rm.datasets = make(map[string]*dataset)
	}
	stale := make(map[string]bool)
	for _, p := range e.Partitions {
		if rm.failed[p.Production] || rm.pending[p.Production] != nil {
			rm.reportUnfinished(e.TaskManager, p, stale)
			continue
		}
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
			if d.lastUsed = used[p.Dataset]; d.lastUsed == 0 {
				rm.use(d)
			}
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

// reportUnfinished takes partition p, reported by tm, of a job that did
// not finish: put aside while it runs, released if it failed.
func (rm *ResourceManager) reportUnfinished(tm string, p ClusterPartition, stale map[string]bool) {
	if rm.failed[p.Production] {
		if !stale[p.Dataset] {
			stale[p.Dataset] = true
			rm.ready = append(rm.ready, ReleasePartitions{TaskManager: tm, Dataset: p.Dataset, Production: p.Production})
		}
		return
	}
	pend := rm.pending[p.Production]
	d := pend[p.Dataset]
	if d == nil {
		d = &dataset{production: p.Production, total: p.Total, parts: make(map[int]PartitionLocation)}
		pend[p.Dataset] = d
	}
	if _, held := d.parts[p.Index]; !held {
		d.parts[p.Index] = PartitionLocation{Index: p.Index, TaskManager: tm, Records: p.Records, Bytes: p.Bytes}
	}
}

func (rm *ResourceManager) startCaching(e CachingJobStarted) error {
	if rm.pending[e.Production] != nil || rm.failed[e.Production] {
		return fmt.Errorf("%w: production %d started twice", ErrInvalid, e.Production)
	}
	if rm.pending == nil {
		rm.pending = make(map[int64]map[string]*dataset)
	}
	rm.pending[e.Production] = make(map[string]*dataset)
	return nil
}

// finishCaching promotes the partitions of the production's job: each
// dataset replaces an earlier production of it (released), unless a
// later one is in the table already (then it is released itself).
func (rm *ResourceManager) finishCaching(e CachingJobFinished) error {
	pend := rm.pending[e.Production]
	delete(rm.pending, e.Production)
	if rm.datasets == nil {
		rm.datasets = make(map[string]*dataset)
	}
	for _, id := range sortedIDs(pend) {
		d := pend[id]
		if old := rm.datasets[id]; old != nil {
			if old.production > d.production {
				rm.releaseHolders(id, d)
				continue
			}
			rm.releaseDataset(id)
		}
		rm.datasets[id] = d
		rm.use(d)
	}
	return nil
}

// failCaching releases the partitions of the production's job, and any
// reported later.
func (rm *ResourceManager) failCaching(e CachingJobFailed) error {
	pend := rm.pending[e.Production]
	delete(rm.pending, e.Production)
	for _, id := range sortedIDs(pend) {
		rm.releaseHolders(id, pend[id])
	}
	if rm.failed == nil {
		rm.failed = make(map[int64]bool)
	}
	rm.failed[e.Production] = true
	return nil
}

func sortedIDs(ds map[string]*dataset) []string {
	ids := make([]string, 0, len(ds))
	for id := range ds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
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
// without any unless lost or evicted: a dataset whose partitions were all lost with
// TaskManagers stays, incomplete, so that the next job that needs it says
// it computes it again.
func (rm *ResourceManager) dropPartitionsOf(tm string, lost bool) {
	for id, d := range rm.datasets {
		for i, p := range d.parts {
			if p.TaskManager == tm {
				delete(d.parts, i)
			}
		}
		if len(d.parts) == 0 && !lost && !d.evicted {
			delete(rm.datasets, id)
		}
	}
	for _, pend := range rm.pending {
		for id, d := range pend {
			for i, p := range d.parts {
				if p.TaskManager == tm {
					delete(d.parts, i)
				}
			}
			if len(d.parts) == 0 {
				delete(pend, id)
			}
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
	rm.releaseHolders(id, rm.datasets[id])
	delete(rm.datasets, id)
}

// releaseHolders tells every holder of a partition of d, dataset id, to
// delete its partitions of d's production and earlier ones.
func (rm *ResourceManager) releaseHolders(id string, d *dataset) {
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
