package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
)

// cacheReadGateEnv is the root package's test-only hook that holds reads
// of cluster partitions (cachereadgate.go).
const cacheReadGateEnv = "WEIR_TEST_CACHE_READ_GATE"

// recomputeLine is what the JobManager logs when a job could not read a
// cached result and runs again computing it.
const recomputeLine = "cached result lost during read: recomputing"

// TestClusterCacheHolderLostMidReadIsRecomputed runs `wordcount --cache`
// in batch mode: the first job writes the cached lines as cluster
// partitions on two TaskManagers; B is the one with the largest. A
// detached job then takes both their slots, and a third TaskManager
// joins, so that the second wordcount runs there and reads B's partition
// from B over the data plane. That read is held (by the test-only hook)
// once its first records arrived, so B's partition of a few MB is still
// being read when the test SIGKILLs B. The reading subtask fails on the
// lost partition; the JobManager releases the dataset, builds the job
// again without reading it, says so, and the run succeeds with the exact
// counts, its cache written anew on the TaskManagers left.
func TestClusterCacheHolderLostMidReadIsRecomputed(t *testing.T) {
	gate := t.TempDir()
	t.Setenv(cacheReadGateEnv, gate)
	input, want := wordsInput(t, 3<<20)
	c, tms, id := cachedOnTwoTaskManagers(t, input, want)
	// The victim holds the largest partition (wordcount's lines come from
	// one source subtask: one partition holds them all). A detached job
	// takes both slots of the two holders, so the second run reads every
	// partition from a third TaskManager, over the data plane.
	victimDir, part := holderOf(t, tms)
	blocker := runWeir(t, "run", "--jobmanager", c.rest, "--detach", "--parallelism", "2",
		"sequence", "--keys", "2", "--records-per-key", "1000000", "--rate", "10", "--output", t.TempDir())
	if blocker.code != 0 {
		t.Fatalf("run --detach: exit %d, stderr %q", blocker.code, blocker.stderr)
	}
	c.awaitNoFreeSlot(t)
	third := t.TempDir()
	tms[third] = c.startTaskManager(t, "2", "--data-dir", third)

	// Hold only the victim's partition: a reading subtask dealt both
	// partitions may read the other one first.
	if err := os.WriteFile(filepath.Join(gate, "armed"), []byte(strconv.Itoa(part)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "second")
	run := startWeir(t, c.cachedWordcountArgs(input, out)...)
	await(t, "the victim's partition being read", func() (bool, string) {
		m, _ := filepath.Glob(filepath.Join(gate, fmt.Sprintf("reading-%s-p%d-*", id, part)))
		return len(m) > 0, c.jm.stderrSoFar()
	})
	killTaskManager(t, tms[victimDir])
	if err := os.WriteFile(filepath.Join(gate, "resume"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c.awaitSuccess(t, run)
	checkCounts(t, "second", out, want)
	lines := recomputeLines(c)
	if len(lines) != 1 || !strings.Contains(lines[0], "dataset="+id) || !strings.Contains(lines[0], "cache: read dataset "+id) {
		t.Fatalf("the JobManager did not say it recomputes dataset %s after failing to read it:\n%s", id, c.jm.stderrSoFar())
	}
	if again := c.onlyDataset(t, true); again != id {
		t.Fatalf("the cache was recreated as %s, want %s", again, id)
	}
	if n := manifestsOn(t, tms, victimDir); n != 2 {
		t.Fatalf("the TaskManagers left hold %d partitions of the new cache, want 2", n)
	}
}

// cachedOnTwoTaskManagers starts a cluster of two TaskManagers of one
// slot, each with a data directory of its own (the keys of tms), runs
// `wordcount --cache` of input on it and returns the complete dataset's id.
func cachedOnTwoTaskManagers(t *testing.T, input string, want []string) (c *cluster, tms map[string]*proc, id string) {
	t.Helper()
	c = startCluster(t, t.TempDir(), "--heartbeat-timeout", "60s")
	tms = make(map[string]*proc)
	for range 2 {
		dir := t.TempDir()
		tms[dir] = c.startTaskManager(t, "1", "--data-dir", dir)
	}
	c.runCachedWordcount(t, "first", input, want)
	return c, tms, c.onlyDataset(t, true)
}

// awaitNoFreeSlot waits until no TaskManager of c has a free slot.
func (c *cluster) awaitNoFreeSlot(t *testing.T) {
	t.Helper()
	await(t, "every slot taken", func() (bool, string) {
		var l api.TaskManagers
		c.getJSON(t, "/taskmanagers", &l)
		for _, tm := range l.TaskManagers {
			if tm.FreeSlots != 0 {
				return false, fmt.Sprintf("%+v", l)
			}
		}
		return len(l.TaskManagers) > 0, fmt.Sprintf("%+v", l)
	})
}

// TestClusterCacheDamagedPartitionIsRecomputed damages a cluster
// partition on its holder's disk between two runs of `wordcount --cache`
// in batch mode, one way per subtest (each on a cluster of its own): a
// flipped byte, which the segment's CRC32C finds while it is served; a
// data file gone; a data file truncated under its running holder, which
// the holder finds when it opens the files to serve them (it keeps no
// descriptor open between reads, and checks the index against the data
// file's size each time). Each time the reading job fails on the
// partition, the JobManager recomputes the dataset and says so, and the
// run's counts are exact. The partition damaged is the largest: wordcount
// reads its one input file with one source subtask, so the other cached
// partition holds no line (a data file of one byte, its EndOfPartition),
// which os.Truncate to 100 bytes would grow rather than cut.
func TestClusterCacheDamagedPartitionIsRecomputed(t *testing.T) {
	input, want := wordsInput(t, 1<<20)
	for _, d := range []struct {
		name string
		do   func(data string) error
		says string // in the JobManager's log, alternatives split by |
	}{
		// The holder's checksum failure reaches the reader as its text or,
		// when the data plane cannot send it as an event (see the tcp
		// package), as the holder's refusal to serve the partition.
		{"byte flipped", flipByte, "checksum mismatch|cannot serve dataset-"},
		{"data file gone", os.Remove, "no such file or directory|cannot serve dataset-"},
		{"data truncated", truncate100, "is outside the data file|cannot serve dataset-"},
	} {
		t.Run(d.name, func(t *testing.T) {
			c, tms, id := cachedOnTwoTaskManagers(t, input, want)
			dir, part := holderOf(t, tms)
			if err := d.do(partitionData(t, dir, id, part)); err != nil {
				t.Fatal(err)
			}
			c.runCachedWordcount(t, "second", input, want)
			lines := recomputeLines(c)
			if len(lines) != 1 {
				t.Fatalf("%d recompute lines in the JobManager's log, want 1:\n%s", len(lines), c.jm.stderrSoFar())
			}
			if !strings.Contains(lines[0], "cache: read dataset "+id) || !containsAny(lines[0], strings.Split(d.says, "|")) {
				t.Fatalf("the JobManager's recompute line does not say it failed to read the partition (%q):\n%s", d.says, lines[0])
			}
			if again := c.onlyDataset(t, true); again != id {
				t.Fatalf("the cache was recreated as %s, want %s", again, id)
			}
		})
	}
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(sub string) bool { return strings.Contains(s, sub) })
}

// recomputeLines are the lines of the JobManager's log that say it
// recomputes a cached result.
func recomputeLines(c *cluster) []string {
	var out []string
	for _, l := range strings.Split(c.jm.stderrSoFar(), "\n") {
		if strings.Contains(l, recomputeLine) {
			out = append(out, l)
		}
	}
	return out
}

// wordsInput writes a text file of about size bytes of lower-case words
// (a fixed pseudo-random sequence) and returns it with wordcount's
// expected output lines, sorted.
func wordsInput(t *testing.T, size int) (string, []string) {
	t.Helper()
	var b strings.Builder
	counts := make(map[string]int)
	x := uint32(12345)
	for n := 0; b.Len() < size; n++ {
		x = x*1664525 + 1013904223
		w := fmt.Sprintf("w%c%c", 'a'+byte(x>>24)%26, 'a'+byte(x>>16)%20)
		counts[w]++
		b.WriteString(w)
		if n%12 == 11 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	b.WriteByte('\n')
	path := filepath.Join(t.TempDir(), "words.txt")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var want []string
	for w, n := range counts {
		want = append(want, fmt.Sprintf("%s\t%d", w, n))
	}
	slices.Sort(want)
	return path, want
}

// holderOf returns the data directory of a TaskManager of tms that holds
// the largest cluster partition, and the partition's index.
func holderOf(t *testing.T, tms map[string]*proc) (string, int) {
	t.Helper()
	dir, part, size := "", 0, int64(-1)
	for d := range tms {
		for _, p := range heldPartitions(t, d) {
			if p.Bytes > size {
				dir, part, size = d, p.Index, p.Bytes
			}
		}
	}
	if size < 0 {
		t.Fatal("no TaskManager holds a cluster partition")
	}
	return dir, part
}

// heldPartition is what a cluster partition's manifest says of it.
type heldPartition struct {
	Index int
	Bytes int64
}

// heldPartitions returns the cluster partitions whose manifests are in
// the data directory dir.
func heldPartitions(t *testing.T, dir string) []heldPartition {
	t.Helper()
	var out []heldPartition
	for _, m := range partitionManifests(t, dir) {
		var p heldPartition
		b, err := os.ReadFile(m)
		if err == nil {
			err = json.Unmarshal(b, &p)
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// partitionData is the data file of partition part of dataset id held in
// the data directory dir.
func partitionData(t *testing.T, dir, id string, part int) string {
	t.Helper()
	cp := filepath.Join(dir, "cluster-partitions")
	b, err := os.ReadFile(filepath.Join(cp, fmt.Sprintf("%s-p%d.partition.json", id, part)))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Data string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(cp, m.Data)
}

// manifestsOn counts the cluster partitions held by the TaskManagers of
// tms but the one of data directory except.
func manifestsOn(t *testing.T, tms map[string]*proc, except string) int {
	t.Helper()
	n := 0
	for dir := range tms {
		if dir != except {
			n += len(partitionManifests(t, dir))
		}
	}
	return n
}

// truncate100 cuts file to its first 100 bytes.
func truncate100(file string) error { return os.Truncate(file, 100) }

// flipByte flips a bit of the byte in the middle of file.
func flipByte(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	b[len(b)/2] ^= 0x40
	return os.WriteFile(file, b, 0o644)
}

// TestClusterCacheRestartedHolderChecksItsPartitions SIGKILLs the
// TaskManager that holds the largest partition of a cached dataset
// (`wordcount --cache` in batch mode), which leaves the dataset
// incomplete, and starts it again on the same data directory, one way per
// subtest. With its files intact, the restarted TaskManager holds the
// partition again and reports it with its registration: the dataset is
// complete and the next job reads it. With its data file truncated while
// it was down, the TaskManager checks the files when it opens its store,
// drops the partition and deletes its files, saying so, and does not
// report it: the dataset stays incomplete and the next job computes it
// again before it starts (not after a failed read), with the exact counts,
// and caches it anew.
func TestClusterCacheRestartedHolderChecksItsPartitions(t *testing.T) {
	input, want := wordsInput(t, 1<<20)
	for _, tc := range []struct {
		name     string
		truncate bool
	}{
		{"intact", false},
		{"data truncated", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, tms, id := cachedOnTwoTaskManagers(t, input, want)
			dir, part := holderOf(t, tms)
			data := partitionData(t, dir, id, part)
			killTaskManager(t, tms[dir])
			await(t, "the dataset incomplete after its holder was lost", func() (bool, string) {
				ds := c.datasets(t)
				return len(ds) == 1 && !ds[0].IsComplete, fmt.Sprint(ds)
			})
			if tc.truncate {
				if err := truncate100(data); err != nil {
					t.Fatal(err)
				}
			}
			tm := c.startTaskManager(t, "1", "--data-dir", dir)
			dropped := strings.Contains(tm.stderrSoFar(), "cluster partition dropped: its files are missing or damaged")
			_, statErr := os.Stat(data)
			if dropped != tc.truncate || errors.Is(statErr, os.ErrNotExist) != tc.truncate {
				t.Fatalf("restarted holder: dropped %v, data file stat %v, want dropped and deleted %v:\n%s",
					dropped, statErr, tc.truncate, tm.stderrSoFar())
			}
			if !tc.truncate {
				await(t, "the dataset complete again", func() (bool, string) {
					ds := c.datasets(t)
					return len(ds) == 1 && ds[0].IsComplete, fmt.Sprint(ds)
				})
			} else if ds := c.datasets(t); len(ds) != 1 || ds[0].IsComplete {
				t.Fatalf("datasets after the holder restarted without its truncated partition: %+v, want %s incomplete", ds, id)
			}

			c.runCachedWordcount(t, "second", input, want)
			log := c.jm.stderrSoFar()
			if n := len(recomputeLines(c)); n != 0 {
				t.Fatalf("%d reads of the cache failed, want none (a damaged partition is not served):\n%s", n, log)
			}
			recomputed := strings.Contains(log, "cached result lost with a TaskManager: computing it again")
			if recomputed != tc.truncate {
				t.Fatalf("the second job recomputed the cache: %v, want %v:\n%s", recomputed, tc.truncate, log)
			}
			if again := c.onlyDataset(t, true); again != id {
				t.Fatalf("the cache is %s after the second job, want %s", again, id)
			}
		})
	}
}
