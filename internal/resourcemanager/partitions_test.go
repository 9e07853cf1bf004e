package resourcemanager_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/resourcemanager"
)

type (
	reported = resourcemanager.PartitionsReported
	release  = resourcemanager.ReleaseDataset
	part     = resourcemanager.ClusterPartition
	started  = resourcemanager.CachingJobStarted
	finished = resourcemanager.CachingJobFinished
	failed   = resourcemanager.CachingJobFailed
	read     = resourcemanager.DatasetsRead
)

// renderTable prints the dataset table one dataset a line:
// "ds 2/3 0@tm-0 2@tm-1" (partitions held / total, index@holder).
func renderTable(ds []resourcemanager.DatasetInfo) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s %d/%d", d.ID, len(d.Partitions), d.Total)
		for _, p := range d.Partitions {
			fmt.Fprintf(&b, " %d@%s", p.Index, p.TaskManager)
		}
		if d.Complete() {
			b.WriteString(" complete")
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// renderReleases prints ReleasePartitions decisions: "release tm ds/prod".
func renderReleases(ds []any) string {
	var b strings.Builder
	for _, d := range ds {
		switch d := d.(type) {
		case resourcemanager.ReleasePartitions:
			fmt.Fprintf(&b, "release %s %s/%d\n", d.TaskManager, d.Dataset, d.Production)
		case resourcemanager.DatasetEvicted:
			fmt.Fprintf(&b, "evict %s %s %dB\n", d.TaskManager, d.Dataset, d.Bytes)
		default:
			fmt.Fprintf(&b, "unexpected %T\n", d)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func TestClusterPartitionTable(t *testing.T) {
	twoTMs := []any{reg{ID: "tm-0", Slots: 1}, reg{ID: "tm-1", Slots: 1}}
	cases := []struct {
		name    string
		quota   int64 // of each TaskManager's cluster partitions
		events  []any
		last    any // the event whose decisions and error are checked
		err     string
		release string
		table   string
	}{
		{name: "partitions reported by two TaskManagers make a complete dataset",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 2}}}),
			last:   reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 1, Total: 2, Records: 5}}},
			table:  "a 2/2 0@tm-0 1@tm-1 complete"},
		{name: "a lost TaskManager leaves its datasets incomplete",
			events: append(twoTMs,
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 2}, {Dataset: "b", Index: 0, Total: 1}}},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 1, Total: 2}}}),
			last:  lost{ID: "tm-1", Reason: "killed"},
			table: "a 1/2 0@tm-0\nb 1/1 0@tm-0 complete"},
		{name: "a dataset whose every partition is lost stays, incomplete",
			events: append(twoTMs, reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}}),
			last:   lost{ID: "tm-1"}, table: "a 0/1"},
		{name: "a dataset its holder no longer reports is gone",
			events: append(twoTMs, reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}}),
			last:   reported{TaskManager: "tm-1"}},
		{name: "a report replaces the previous one of the TaskManager",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}}),
			last:   reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "b", Index: 0, Total: 1}}},
			table:  "b 1/1 0@tm-0 complete"},
		{name: "release tells every holder, once each, and forgets the dataset",
			events: append(twoTMs,
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 3}, {Dataset: "a", Index: 2, Total: 3}, {Dataset: "b", Index: 0, Total: 1}}},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 1, Total: 3}}}),
			last:    release{Dataset: "a"},
			release: "release tm-0 a/0\nrelease tm-1 a/0",
			table:   "b 1/1 0@tm-0 complete"},
		{name: "a partition held twice stays with its first holder",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}}),
			last:   reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}},
			table:  "a 1/1 0@tm-0 complete"},
		{name: "a dataset written again releases what is left of the earlier production",
			events: append(twoTMs,
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 2}}},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 1, Total: 2}}},
				lost{ID: "tm-0"}, reg{ID: "tm-2", Slots: 1}),
			last:    reported{TaskManager: "tm-2", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 1}}},
			release: "release tm-1 a/0",
			table:   "a 1/1 0@tm-2 complete"},
		{name: "a report of an earlier production is released, not tracked",
			events: append(twoTMs,
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 1}}}),
			last:    reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 3, Index: 0, Total: 2}, {Dataset: "b", Index: 0, Total: 1}}},
			release: "release tm-1 a/3",
			table:   "a 1/1 0@tm-0 complete\nb 1/1 0@tm-1 complete"},
		{name: "another size within a production is refused",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 2}}}),
			last:   reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}},
			err:    "known with 2", table: "a 1/2 0@tm-0"},
		{name: "a report of an unknown TaskManager is refused",
			events: twoTMs, last: reported{TaskManager: "tm-9", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}}},
			err: "unknown TaskManager tm-9"},
		{name: "a partition out of range refuses the whole report",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "b", Index: 0, Total: 1}}}),
			last:   reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}, {Dataset: "a", Index: 2, Total: 2}}},
			err:    "partition 2 of 2", table: "b 1/1 0@tm-0 complete"},
		{name: "one dataset with two sizes in a report is refused",
			events: twoTMs,
			last:   reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1}, {Dataset: "a", Index: 1, Total: 2}}},
			err:    "production 0 of 1 partitions and production 0 of 2"},
		{name: "the partitions of a running job wait for it to finish",
			events: append(twoTMs, started{Production: 7}, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 2}}}),
			last:   reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 1, Total: 2}}}},
		{name: "the partitions of a finished job make a complete dataset",
			events: append(twoTMs, started{Production: 7},
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 2}}},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 1, Total: 2}}}),
			last:  finished{Production: 7},
			table: "a 2/2 0@tm-0 1@tm-1 complete"},
		{name: "the partitions of a failed or cancelled job are released, never listed",
			events: append(twoTMs, started{Production: 7},
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 2}, {Dataset: "b", Production: 7, Index: 0, Total: 1}}},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 1, Total: 2}}}),
			last:    failed{Production: 7},
			release: "release tm-0 a/7\nrelease tm-1 a/7\nrelease tm-0 b/7"},
		{name: "a partition reported after its job failed is released",
			events: append(twoTMs, started{Production: 7}, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 2}}},
				failed{Production: 7}),
			last:    reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 1, Total: 2}}},
			release: "release tm-1 a/7"},
		{name: "while a job writes a dataset again the earlier production stays listed",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 3, Index: 0, Total: 1}}}, started{Production: 7}),
			last:   reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 1}}},
			table:  "a 1/1 0@tm-0 complete"},
		{name: "a finished job's dataset replaces the earlier production",
			events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 3, Index: 0, Total: 1}}}, started{Production: 7},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 1}}}),
			last:    finished{Production: 7},
			release: "release tm-0 a/3",
			table:   "a 1/1 0@tm-1 complete"},
		{name: "a finished job's dataset older than the table's is released",
			events: append(twoTMs, started{Production: 7}, reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 1}}},
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 9, Index: 0, Total: 1}}}),
			last:    finished{Production: 7},
			release: "release tm-1 a/7",
			table:   "a 1/1 0@tm-0 complete"},
		{name: "a TaskManager lost while the job ran leaves its dataset incomplete",
			events: append(twoTMs, started{Production: 7},
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Production: 7, Index: 0, Total: 2}}},
				reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Production: 7, Index: 1, Total: 2}}},
				lost{ID: "tm-1"}),
			last:  finished{Production: 7},
			table: "a 1/2 0@tm-0"},
		{name: "a production started twice is refused",
			events: append(twoTMs, started{Production: 7}), last: started{Production: 7}, err: "production 7 started twice"},
		{name: "beyond the quota the least recently used dataset is evicted, and stays incomplete",
			quota: 100, events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 60}}}),
			last:    reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 60}, {Dataset: "b", Index: 0, Total: 1, Bytes: 60}}},
			release: "evict tm-0 a 60B\nrelease tm-0 a/0",
			table:   "a 0/1\nb 1/1 0@tm-0 complete"},
		{name: "a dataset a job read is used later than one written after it",
			quota: 100, events: append(twoTMs,
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 40}}},
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 40}, {Dataset: "c", Index: 0, Total: 1, Bytes: 40}}},
				read{Datasets: []string{"a"}}),
			last:    reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 40}, {Dataset: "b", Index: 0, Total: 1, Bytes: 40}, {Dataset: "c", Index: 0, Total: 1, Bytes: 40}}},
			release: "evict tm-0 c 40B\nrelease tm-0 c/0",
			table:   "a 1/1 0@tm-0 complete\nb 1/1 0@tm-0 complete\nc 0/1"},
		{name: "a dataset alone larger than the quota is evicted",
			quota: 50, events: twoTMs,
			last:    reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 60}}},
			release: "evict tm-1 a 60B\nrelease tm-1 a/0",
			table:   "a 0/1"},
		{name: "the quota is each TaskManager's",
			quota: 100, events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 2, Bytes: 60}}}),
			last:  reported{TaskManager: "tm-1", Partitions: []part{{Dataset: "a", Index: 1, Total: 2, Bytes: 60}, {Dataset: "b", Index: 0, Total: 1, Bytes: 30}}},
			table: "a 2/2 0@tm-0 1@tm-1 complete\nb 1/1 0@tm-1 complete"},
		{name: "a running job's partitions count once promoted, when they evict older datasets",
			quota: 100, events: append(twoTMs, reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 60}}},
				started{Production: 7},
				reported{TaskManager: "tm-0", Partitions: []part{{Dataset: "a", Index: 0, Total: 1, Bytes: 60}, {Dataset: "b", Production: 7, Index: 0, Total: 1, Bytes: 60}}}),
			last:    finished{Production: 7},
			release: "evict tm-0 a 60B\nrelease tm-0 a/0",
			table:   "a 0/1\nb 1/1 0@tm-0 complete"},
		{name: "releasing an unknown dataset is refused",
			events: twoTMs, last: release{Dataset: "nope"}, err: `unknown dataset "nope"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rm := resourcemanager.New()
			rm.SetPartitionQuota(c.quota)
			for _, ev := range c.events {
				if err := rm.Step(ev); err != nil {
					t.Fatalf("step %#v: %v", ev, err)
				}
			}
			rm.Ready()
			err := rm.Step(c.last)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("step %#v: %v", c.last, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("step %#v: error %v, want one containing %q", c.last, err, c.err)
			}
			if got := renderReleases(rm.Ready()); got != c.release {
				t.Errorf("decisions:\n%s\nwant:\n%s", got, c.release)
			}
			if got := renderTable(rm.Datasets()); got != c.table {
				t.Errorf("table:\n%s\nwant:\n%s", got, c.table)
			}
		})
	}
}
