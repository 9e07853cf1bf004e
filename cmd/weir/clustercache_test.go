package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
)

// TestClusterCachedStreamOutlivesJobsAndItsTaskManager runs `wordcount
// --cache` in batch mode three times on a session cluster of real
// processes. The first job writes the cached lines as cluster partitions
// on the TaskManagers, which report them to the ResourceManager
// (GET /datasets: complete); the second reads them from the TaskManagers
// over the data plane. Then a TaskManager holding a partition is
// SIGKILLed: the dataset is incomplete, and the third job computes it
// again, says so in the JobManager's log, and caches it anew. DELETE
// /datasets/:id has the TaskManagers delete the files. Every job counts
// the words right.
func TestClusterCachedStreamOutlivesJobsAndItsTaskManager(t *testing.T) {
	c := startCluster(t, t.TempDir(), "--heartbeat-timeout", "60s")
	keep, lost := t.TempDir(), t.TempDir()
	tms := map[string]*proc{keep: c.startTaskManager(t, "1", "--data-dir", keep), lost: c.startTaskManager(t, "1", "--data-dir", lost)}
	run := func(name string) { c.runCachedWordcount(t, name, sample, expectedLines(t)) }

	run("first")
	id := c.onlyDataset(t, true)
	if n := len(partitionManifests(t, keep)) + len(partitionManifests(t, lost)); n != 2 {
		t.Fatalf("the TaskManagers keep %d cluster partitions, want 2 (one per source subtask)", n)
	}
	if len(partitionManifests(t, lost)) == 0 {
		keep, lost = lost, keep // the victim is one that holds part of the cache
	}
	victim := tms[lost]
	run("second")
	if log := c.jm.stderrSoFar(); !strings.Contains(log, "execution reads cached results from the TaskManagers that keep them") {
		t.Fatalf("the second job did not read the cache:\n%s", log)
	}

	killTaskManager(t, victim)
	await(t, "the dataset incomplete after its TaskManager was lost", func() (bool, string) {
		ds := c.datasets(t)
		return len(ds) == 1 && !ds[0].IsComplete, fmt.Sprint(ds)
	})
	c.startTaskManager(t, "1", "--data-dir", t.TempDir())
	run("third")
	if log := c.jm.stderrSoFar(); !strings.Contains(log, "cached result lost with a TaskManager: computing it again") {
		t.Fatalf("the third job did not say it recomputes the cache:\n%s", log)
	}
	if again := c.onlyDataset(t, true); again != id {
		t.Fatalf("the cache was recreated as %s, want %s (its lineage's fingerprint)", again, id)
	}

	req, _ := http.NewRequest(http.MethodDelete, "http://"+c.rest+"/datasets/"+id, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("DELETE /datasets/%s: %s", id, resp.Status)
	}
	if ds := c.datasets(t); len(ds) != 0 {
		t.Fatalf("datasets after DELETE: %v", ds)
	}
	await(t, "the surviving TaskManager's files deleted", func() (bool, string) {
		left, _ := filepath.Glob(filepath.Join(keep, "cluster-partitions", "*"))
		return len(left) == 0, fmt.Sprint(left)
	})
}

// cachedWordcountArgs are the arguments of `weir run` that run
// `wordcount --cache` of input in batch mode at parallelism 2 on c,
// writing its part files under out, with the job's extra arguments.
func (c *cluster) cachedWordcountArgs(input, out string, extra ...string) []string {
	return append([]string{"run", "--mode", "batch", "--parallelism", "2", "--jobmanager", c.rest, "wordcount", "--cache", "--input", input, "--output", out}, extra...)
}

// runCachedWordcount runs `wordcount --cache` of input on c and checks
// that it counts the words as want says (sorted lines); extra are more
// arguments of the job.
func (c *cluster) runCachedWordcount(t *testing.T, name, input string, want []string, extra ...string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	r := runWeir(t, c.cachedWordcountArgs(input, out, extra...)...)
	if r.code != 0 {
		t.Fatalf("%s run: exit %d, stderr %q\njobmanager:\n%s", name, r.code, r.stderr, c.jm.stderrSoFar())
	}
	checkCounts(t, name, out, want)
}

// checkCounts checks the part files under out against want.
func checkCounts(t *testing.T, name, out string, want []string) {
	t.Helper()
	if got := sortedLines(readParts(t, out)); !slices.Equal(got, want) {
		t.Fatalf("%s run: %d lines, want %d", name, len(got), len(want))
	}
}

// datasets is GET /datasets of the JobManager.
func (c *cluster) datasets(t *testing.T) []api.ClusterDataSetEntry {
	t.Helper()
	var l api.ClusterDataSetList
	c.getJSON(t, "/datasets", &l)
	return l.DataSets
}

// getJSON decodes GET path of the JobManager's REST API into v.
func (c *cluster) getJSON(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get("http://" + c.rest + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// onlyDataset returns the id of the one dataset, which must be complete
// or not as complete says.
func (c *cluster) onlyDataset(t *testing.T, complete bool) string {
	t.Helper()
	ds := c.datasets(t)
	if len(ds) != 1 || ds[0].IsComplete != complete {
		t.Fatalf("GET /datasets: %+v, want one dataset, complete %v\njobmanager:\n%s", ds, complete, c.jm.stderrSoFar())
	}
	return ds[0].ID
}

// partitionManifests lists the cluster partitions a TaskManager keeps in
// its data directory.
func partitionManifests(t *testing.T, dataDir string) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(dataDir, "cluster-partitions", "*.partition.json"))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// readParts concatenates the part files under dir.
func readParts(t *testing.T, dir string) string {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(parts) == 0 {
		t.Fatalf("part files %q (%v)", parts, err)
	}
	var all strings.Builder
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	return all.String()
}
