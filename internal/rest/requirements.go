package rest

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/weir-engine/weir/internal/rest/api"
)

// FLIP-291's endpoints: a job's per-vertex parallelism bounds.
//
//	GET /jobs/:jobid/resource-requirements  {"<vertex id>":{"parallelism":{"lowerBound":1,"upperBound":4}}}
//	PUT /jobs/:jobid/resource-requirements  the same shape, every vertex; 200 {}

// Bounds are a vertex's parallelism bounds.
type Bounds struct{ Lower, Upper int }

// RequirementsUpdater is implemented by a Dispatcher whose jobs take new
// parallelism bounds at runtime (the adaptive scheduler's).
type RequirementsUpdater interface {
	// UpdateRequirements sets the bounds of job id's vertices by vertex
	// id: ErrNotFound, ErrJobEnded, an error that wraps ErrBadSubmission
	// for bounds the job refuses (400), or any other error (500).
	UpdateRequirements(ctx context.Context, id string, bounds map[int]Bounds) error
}

// resourceRequirements is GET /jobs/:jobid/resource-requirements.
func (s *Server) resourceRequirements(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	if j.Requirements == nil {
		return 0, nil, newError(errBadRequest, "job %s runs on the default scheduler: its parallelism has no bounds to read or change (jobmanager.scheduler: adaptive)", j.ID)
	}
	out := make(api.JobResourceRequirements, len(j.Requirements))
	for v, b := range j.Requirements {
		out[vertexID(v)] = api.VertexResourceRequirements{Parallelism: api.ParallelismBounds{LowerBound: b.Lower, UpperBound: b.Upper}}
	}
	return http.StatusOK, out, nil
}

// updateResourceRequirements is PUT /jobs/:jobid/resource-requirements:
// the body names every vertex of the job, each with 1 <= lowerBound <=
// upperBound (the job checks the upper bound against the vertex's max
// parallelism).
func (s *Server) updateResourceRequirements(r *http.Request) (int, any, error) {
	u, ok := s.d.(RequirementsUpdater)
	if !ok {
		return 0, nil, newError(errMethod, "this server does not change resource requirements")
	}
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	var req api.JobResourceRequirements
	if err := decodeBody(r, &req); err != nil {
		return 0, nil, err
	}
	bounds, err := requirementsOf(j, req)
	if err != nil {
		return 0, nil, err
	}
	if err := u.UpdateRequirements(r.Context(), j.ID, bounds); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, struct{}{}, nil
}

// requirementsOf checks req against job j's vertices and returns its
// bounds by vertex id.
func requirementsOf(j JobInfo, req api.JobResourceRequirements) (map[int]Bounds, error) {
	ids := make(map[string]int, len(j.Vertices))
	for _, v := range j.Vertices {
		ids[vertexID(v.ID)] = v.ID
	}
	out := make(map[int]Bounds, len(req))
	for raw, vr := range req {
		id, ok := ids[raw]
		if !ok {
			return nil, newError(errBadRequest, "job %s has no vertex %s", j.ID, raw)
		}
		b := vr.Parallelism
		switch {
		case b.LowerBound < 1:
			return nil, newError(errBadRequest, "vertex %s: the lower bound %d is below 1", raw, b.LowerBound)
		case b.UpperBound < b.LowerBound:
			return nil, newError(errBadRequest, "vertex %s: the upper bound %d is below the lower bound %d", raw, b.UpperBound, b.LowerBound)
		}
		out[id] = Bounds{Lower: b.LowerBound, Upper: b.UpperBound}
	}
	var missing []string
	for raw := range ids {
		if _, ok := req[raw]; !ok {
			missing = append(missing, raw)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, newError(errBadRequest, "the requirements of job %s miss vertices %s", j.ID, strings.Join(missing, ", "))
	}
	return out, nil
}
