package rest_test

import (
	"net/http"
	"testing"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
)

type discard struct{}

func (discard) Collect(int64, string) error { return nil }
func (discard) EmitWatermark(int64) error   { return nil }

// writeDataset creates dataset id of a few strings in r.
func writeDataset(t *testing.T, r *cache.Registry, id string) {
	t.Helper()
	c, err := codec.For[string]()
	if err != nil {
		t.Fatal(err)
	}
	prod, err := r.Begin(id, "words", 1)
	if err != nil {
		t.Fatal(err)
	}
	w := cache.NewWriter(prod, c, op.Output[string](discard{}))
	if err := w.Open(&op.Context{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"a", "b"} {
		if err := w.ProcessElement(op.NoTimestamp, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if !r.Commit(prod) {
		t.Fatal("dataset not created")
	}
}

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
	writeDataset(t, mem, a)
	writeDataset(t, disk, b)
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
