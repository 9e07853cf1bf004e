package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// fromCacheLine is what wordcount --cache logs when its build finds the
// lines cached (CachedStream.IsCached).
const fromCacheLine = "wordcount: reading the lines from the cache"

// partitionFiles lists every file of a TaskManager's cluster partitions.
func partitionFiles(t *testing.T, dataDir string) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join(dataDir, "cluster-partitions", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestClusterCachedStreamInvalidate runs `wordcount --cache` on a session
// cluster: the JobManager's build of the second job finds the lines cached
// (IsCached asks the ResourceManager's table); the third, with
// --invalidate-cache, releases them through the table first
// (CachedStream.Invalidate, as DELETE /datasets/:id), so it finds them
// not cached, the TaskManager deletes the files of the first production,
// and the job computes and caches the lines again (listed complete, with
// new files).
func TestClusterCachedStreamInvalidate(t *testing.T) {
	c := startCluster(t, t.TempDir(), "--heartbeat-timeout", "60s")
	dir := t.TempDir()
	c.startTaskManager(t, "2", "--data-dir", dir)
	fromCache := func() int { return strings.Count(c.jm.stderrSoFar(), fromCacheLine) }

	c.runCachedWordcount(t, "first", sample, expectedLines(t))
	id := c.onlyDataset(t, true)
	first := partitionFiles(t, dir)
	if n := len(partitionManifests(t, dir)); n != 2 || fromCache() != 0 {
		t.Fatalf("after the first job: %d partitions kept (want 2), %d builds found the cache (want 0)", n, fromCache())
	}
	c.runCachedWordcount(t, "second", sample, expectedLines(t))
	if n := fromCache(); n != 1 {
		t.Fatalf("the second job's build found the cache %d times, want 1", n)
	}

	c.runCachedWordcount(t, "invalidated", sample, expectedLines(t), "--invalidate-cache")
	if n := fromCache(); n != 1 {
		t.Fatalf("the build that invalidated the cache found it cached (%d builds found it, want 1)", n)
	}
	if log := c.jm.stderrSoFar(); !strings.Contains(log, "cached result released: its TaskManagers delete it") {
		t.Fatalf("the JobManager did not say it released the cache:\n%s", log)
	}
	await(t, "the first production's files deleted", func() (bool, string) {
		now := partitionFiles(t, dir)
		left := slices.DeleteFunc(slices.Clone(first), func(f string) bool {
			_, err := os.Stat(f)
			return os.IsNotExist(err) || strings.HasSuffix(f, ".partition.json") // a later production reuses its name
		})
		return len(left) == 0, fmt.Sprintf("left %v of %v", left, now)
	})
	if again := c.onlyDataset(t, true); again != id || len(partitionManifests(t, dir)) != 2 {
		t.Fatalf("the invalidated job cached the lines as %s with %d partitions, want %s with 2", again, len(partitionManifests(t, dir)), id)
	}

}

// TestClusterCacheOfAFailedJobIsReleased runs `wordcount --cache` on a
// session cluster with an output directory that cannot be made: the job
// fails in its second stage, after the TaskManager wrote and reported the
// cached lines. As in Flink, partitions become cluster partitions only
// when their job finishes: GET /datasets never lists them, and the
// TaskManager deletes their files.
func TestClusterCacheOfAFailedJobIsReleased(t *testing.T) {
	c := startCluster(t, t.TempDir(), "--heartbeat-timeout", "60s")
	dir := t.TempDir()
	tm := c.startTaskManager(t, "2", "--data-dir", dir)
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := runWeir(t, "run", "--mode", "batch", "--parallelism", "2", "--jobmanager", c.rest,
		"wordcount", "--cache", "--input", sample, "--output", filepath.Join(notDir, "out"))
	if r.code == 0 {
		t.Fatalf("the job writing under a file succeeded\njobmanager:\n%s", c.jm.stderrSoFar())
	}
	if ds := c.datasets(t); len(ds) != 0 {
		t.Fatalf("GET /datasets after the failed job: %+v, want none", ds)
	}
	await(t, "the failed job's cached partitions released and deleted", func() (bool, string) {
		files := partitionFiles(t, dir)
		return len(files) == 0 && strings.Contains(tm.stderrSoFar(), "cluster partitions released"), fmt.Sprint(files)
	})
	if ds := c.datasets(t); len(ds) != 0 {
		t.Fatalf("GET /datasets after the release: %+v, want none", ds)
	}
}

// TestClusterCacheQuotaEvictsLeastRecentlyUsed runs `wordcount --cache` on
// two copies of the input under a JobManager whose --cache-quota holds
// one dataset of cached lines, not two: the second job's dataset evicts
// the first (least recently used), whose files the TaskManager deletes
// and which GET /datasets lists incomplete; the next job over the first
// input computes the lines again, with the right counts, and caches them
// anew.
func TestClusterCacheQuotaEvictsLeastRecentlyUsed(t *testing.T) {
	in := filepath.Join(t.TempDir(), "words.txt")
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	in4 := []byte(strings.Repeat(string(b), 4))
	first := filepath.Join(t.TempDir(), "words.txt")
	for _, f := range []string{in, first} {
		if err := os.WriteFile(f, in4, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	quota := int64(len(in4)) * 3 / 2
	c := startCluster(t, t.TempDir(), "--heartbeat-timeout", "60s", "--cache-quota", fmt.Sprint(quota))
	dir := t.TempDir()
	c.startTaskManager(t, "2", "--data-dir", dir)
	var want []string // the counts of the sample, four times each
	for _, l := range expectedLines(t) {
		word, n, _ := strings.Cut(l, "\t")
		k, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("expected line %q: %v", l, err)
		}
		want = append(want, fmt.Sprintf("%s\t%d", word, 4*k))
	}
	want = sortedLines(strings.Join(want, "\n"))
	run := func(name, input string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), name)
		r := runWeir(t, "run", "--mode", "batch", "--parallelism", "2", "--jobmanager", c.rest, "wordcount", "--cache", "--input", input, "--output", out)
		if r.code != 0 {
			t.Fatalf("%s run: exit %d, stderr %q\njobmanager:\n%s", name, r.code, r.stderr, c.jm.stderrSoFar())
		}
		if got := sortedLines(readParts(t, out)); !slices.Equal(got, want) {
			t.Fatalf("%s run: %d lines, want %d", name, len(got), len(want))
		}
	}

	run("first", first)
	a := c.onlyDataset(t, true)
	filesA := partitionFiles(t, dir)
	if n := manifestBytes(t, dir); n > quota || 2*n <= quota {
		t.Fatalf("a dataset of the lines has %d bytes: the quota %d must hold one, not two", n, quota)
	}
	run("second", in)
	await(t, "the first dataset evicted, incomplete", func() (bool, string) {
		ds := c.datasets(t)
		evicted := 0
		for _, d := range ds {
			if d.ID == a && !d.IsComplete {
				evicted++
			}
		}
		return len(ds) == 2 && evicted == 1, fmt.Sprint(ds)
	})
	await(t, "the evicted dataset's files deleted", func() (bool, string) {
		left := slices.DeleteFunc(slices.Clone(filesA), func(f string) bool {
			_, err := os.Stat(f)
			return os.IsNotExist(err) || strings.HasSuffix(f, ".partition.json")
		})
		return len(left) == 0, fmt.Sprint(left)
	})
	if log := c.jm.stderrSoFar(); !strings.Contains(log, "cached partitions evicted to keep within the cache quota") {
		t.Fatalf("the JobManager did not log the eviction:\n%s", log)
	}

	run("first again", first)
	if log := c.jm.stderrSoFar(); !strings.Contains(log, "computing it again and caching it anew") {
		t.Fatalf("the job over the evicted dataset did not say it computes it again:\n%s", log)
	}
	for _, d := range c.datasets(t) {
		if d.ID == a && !d.IsComplete {
			t.Fatalf("the evicted dataset was not cached anew: %+v", c.datasets(t))
		}
	}
}

// manifestBytes sums the bytes of the cluster partitions a TaskManager
// keeps, as their manifests say.
func manifestBytes(t *testing.T, dataDir string) int64 {
	t.Helper()
	var n int64
	for _, m := range partitionManifests(t, dataDir) {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var p struct{ Bytes int64 }
		if err := json.Unmarshal(b, &p); err != nil {
			t.Fatal(err)
		}
		n += p.Bytes
	}
	return n
}
