package rest_test

import (
	"net/http"
	"testing"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/cache/cachetest"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
)

// GET /datasets lists the cached datasets in Flink's shape; DELETE
// /datasets/{id} deletes one (202 and a trigger whose status is
// COMPLETED), after which it is gone from the list and from the
// registry; bad and unknown ids are 400 and 404.
func TestDatasets(t *testing.T) {
	mem := cache.NewRegistry(cache.Options{Dir: t.TempDir()})
	disk := cache.NewRegistry(cache.Options{Dir: t.TempDir(), Persistent: true})
	defer mem.Close()
	defer disk.Close()
	const a, b = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	cachetest.Write(t, mem, a, "a", "b")
	cachetest.Write(t, disk, b, "a", "b")
	ts := serve(t, newFake(), rest.Options{Datasets: cache.Registries{mem, disk}})

	r := ts.do(t, http.MethodGet, "/datasets", "")
	hasKeys(t, "dataset list", r.body, "dataSets")
	var list api.ClusterDataSetList
	decode(t, r.body, &list)
	if len(list.DataSets) != 2 || !list.DataSets[0].IsComplete {
		t.Fatalf("GET /datasets = %s, want both datasets, complete", r.body)
	}
	for _, id := range []string{a, b} {
		r := ts.do(t, http.MethodDelete, "/datasets/"+id, "")
		if r.status != http.StatusAccepted {
			t.Fatalf("DELETE %s: %d %s", id, r.status, r.body)
		}
		var trig api.TriggerResponse
		decode(t, r.body, &trig)
		var res api.OperationResult
		ts.get(t, "/datasets/delete/"+trig.RequestID, &res)
		if res.Status.ID != "COMPLETED" || res.Operation == nil || res.Operation.FailureCause != nil {
			t.Fatalf("delete status of %s: %+v", id, res)
		}
	}
	ts.get(t, "/datasets", &list)
	if len(list.DataSets) != 0 {
		t.Fatalf("after deleting both: %+v", list)
	}
	if _, ok := disk.Lookup(b); ok {
		t.Fatal("the persistent dataset is still in its directory")
	}
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/datasets/" + a, http.StatusNotFound},
		{"/datasets/xyz", http.StatusBadRequest},
	} {
		if r := ts.do(t, http.MethodDelete, c.path, ""); r.status != c.status {
			t.Fatalf("DELETE %s: %d %s, want %d", c.path, r.status, r.body, c.status)
		}
	}
}
