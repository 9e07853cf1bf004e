package rest

import (
	"net/http"
	"sync"

	"github.com/weir-engine/weir/internal/rest/api"
)

// Datasets is what the server lists and deletes under /datasets: the
// cached intermediate results of FLIP-205 (Flink's cluster data sets).
type Datasets interface {
	// DatasetIDs returns the ids of the complete datasets.
	DatasetIDs() ([]string, error)
	// DropDataset deletes dataset id and reports whether there was one.
	DropDataset(id string) (bool, error)
}

// IncompleteDatasets is Datasets that also has incomplete datasets (a
// session cluster's, part of whose partitions were lost with a
// TaskManager): GET /datasets lists them with isComplete false.
type IncompleteDatasets interface {
	IncompleteDatasetIDs() ([]string, error)
}

// datasetDeletes keeps the results of DELETE /datasets/{id} for
// GET /datasets/delete/{triggerid}. The deletion itself is done before
// the answer, so every result is COMPLETED.
type datasetDeletes struct {
	mu      sync.Mutex
	results map[string]*api.SavepointInfo
	order   []string
}

// listDatasets is GET /datasets.
func (s *Server) listDatasets(*http.Request) (int, any, error) {
	out := api.ClusterDataSetList{DataSets: []api.ClusterDataSetEntry{}}
	if s.opts.Datasets == nil {
		return http.StatusOK, out, nil
	}
	ids, err := s.opts.Datasets.DatasetIDs()
	if err != nil {
		return 0, nil, err
	}
	for _, id := range ids {
		out.DataSets = append(out.DataSets, api.ClusterDataSetEntry{ID: id, IsComplete: true})
	}
	if inc, ok := s.opts.Datasets.(IncompleteDatasets); ok {
		if ids, err = inc.IncompleteDatasetIDs(); err != nil {
			return 0, nil, err
		}
		for _, id := range ids {
			out.DataSets = append(out.DataSets, api.ClusterDataSetEntry{ID: id})
		}
	}
	return http.StatusOK, out, nil
}

// deleteDataset is DELETE /datasets/{datasetid}: 202 with a trigger id,
// as Flink answers; an unknown dataset is 404.
func (s *Server) deleteDataset(r *http.Request) (int, any, error) {
	id := r.PathValue("datasetid")
	if !isHexID(id) {
		return 0, nil, newError(errBadRequest, "invalid dataset id %q: want 32 lower-case hex characters", id)
	}
	if s.opts.Datasets == nil {
		return 0, nil, newError(errNotFound, "dataset %s not found", id)
	}
	found, err := s.opts.Datasets.DropDataset(id)
	if err == nil && !found {
		return 0, nil, newError(errNotFound, "dataset %s not found", id)
	}
	res := &api.SavepointInfo{}
	if err != nil {
		res.FailureCause = &api.FailureCause{Class: "java.lang.Exception", Message: err.Error()}
	}
	trigger := newTriggerID()
	d := &s.deletes
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.results == nil {
		d.results = make(map[string]*api.SavepointInfo)
	}
	d.results[trigger] = res
	d.order = append(d.order, trigger)
	if len(d.order) > s.opts.MaxTriggers {
		delete(d.results, d.order[0])
		d.order = d.order[1:]
	}
	return http.StatusAccepted, api.TriggerResponse{RequestID: trigger}, nil
}

// datasetDeleteStatus is GET /datasets/delete/{triggerid}.
func (s *Server) datasetDeleteStatus(r *http.Request) (int, any, error) {
	trigger, err := triggerIDParam(r.PathValue("triggerid"))
	if err != nil {
		return 0, nil, err
	}
	d := &s.deletes
	d.mu.Lock()
	res, ok := d.results[trigger]
	d.mu.Unlock()
	if !ok {
		return 0, nil, newError(errNotFound, "no dataset deletion with trigger id %s", trigger)
	}
	return http.StatusOK, api.OperationResult{Status: api.QueueStatus{ID: "COMPLETED"}, Operation: res}, nil
}
