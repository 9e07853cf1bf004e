package rest

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/weir-engine/weir/internal/rest/api"
)

// endpoint answers one method on one path: the status and body of a
// success, or an error whose kind statusOf maps to the status.
type endpoint func(r *http.Request) (status int, body any, err error)

// methods are the endpoints of one path by HTTP method.
type methods map[string]endpoint

// routes builds the handler of the API. ServeMux picks the most specific
// pattern ("/jobs/overview" before "/jobs/{jobid}"); dispatch then picks
// the method, so that a wrong method is a JSON 405 and an unknown path a
// JSON 404 rather than ServeMux's plain text.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for pattern, m := range map[string]methods{
		"/overview":                        {http.MethodGet: s.overview},
		"/jobs":                            {http.MethodGet: s.jobIDs, http.MethodPost: s.submitJob},
		"/jobs/overview":                   {http.MethodGet: s.jobsOverview},
		"/jobs/{jobid}":                    {http.MethodGet: s.jobDetails, http.MethodPatch: s.cancelJob},
		"/jobs/{jobid}/checkpoints":        {http.MethodGet: s.checkpoints},
		"/jobs/{jobid}/checkpoints/config": {http.MethodGet: s.checkpointConfig},
		"/jobs/{jobid}/checkpoints/details/{checkpointid}": {http.MethodGet: s.checkpointDetails},
		"/config":                                            {http.MethodGet: s.dashboardConfig},
		"/jobmanager/config":                                 {http.MethodGet: s.jobManagerConfig},
		"/taskmanagers":                                      {http.MethodGet: s.taskManagers},
		"/taskmanagers/{taskmanagerid}":                      {http.MethodGet: s.taskManager},
		"/jobs/{jobid}/plan":                                 {http.MethodGet: s.jobPlan},
		"/jobs/{jobid}/config":                               {http.MethodGet: s.jobConfig},
		"/jobs/{jobid}/accumulators":                         {http.MethodGet: s.accumulators},
		"/jobs/{jobid}/vertices/{vertexid}":                  {http.MethodGet: s.vertexDetails},
		"/jobs/{jobid}/vertices/{vertexid}/metrics":          {http.MethodGet: s.vertexMetrics},
		"/jobs/{jobid}/vertices/{vertexid}/backpressure":     {http.MethodGet: s.backPressure},
		"/jobs/{jobid}/vertices/{vertexid}/watermarks":       {http.MethodGet: s.watermarks},
		"/jobs/{jobid}/vertices/{vertexid}/subtasks/metrics": {http.MethodGet: s.subtasksMetrics},
		"/jobs/{jobid}/status":                               {http.MethodGet: s.jobStatus},
		"/jobs/{jobid}/exceptions":                           {http.MethodGet: s.exceptions},
		"/jobs/{jobid}/savepoints":                           {http.MethodPost: s.triggerSavepoint},
		"/jobs/{jobid}/savepoints/{triggerid}":               {http.MethodGet: s.savepointStatus},
		"/jobs/{jobid}/stop":                                 {http.MethodPost: s.triggerStop},
		"/datasets":                                          {http.MethodGet: s.listDatasets},
		"/datasets/{datasetid}":                              {http.MethodDelete: s.deleteDataset},
		"/datasets/delete/{triggerid}":                       {http.MethodGet: s.datasetDeleteStatus},
		"/jobs/{jobid}/resource-requirements":                {http.MethodGet: s.resourceRequirements, http.MethodPut: s.updateResourceRequirements},
	} {
		mux.Handle(pattern, s.dispatch(m))
	}
	mux.Handle("GET /metrics", s.metricsHandler())
	mountDashboard(mux)
	mux.Handle("/", s.dispatch(nil))
	v1 := http.StripPrefix("/v1", mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			v1.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// dispatch serves the endpoints m of one path (nil: an unknown path).
func (s *Server) dispatch(m methods) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		status, body, err := s.call(m, w, r)
		if err != nil {
			status = statusOf(err)
			body = api.ErrorResponse{Errors: []string{err.Error()}}
			if status >= http.StatusInternalServerError && status != http.StatusServiceUnavailable {
				s.opts.Logger.Error("rest: request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err)
			}
		}
		if err := writeJSON(w, status, body); err != nil {
			s.opts.Logger.Warn("rest: writing the answer", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	})
}

// call runs the endpoint of r's method. A panic is a bug of ours or of the
// Dispatcher: it is answered 500 and logged with its stack, and the
// server goes on.
func (s *Server) call(m methods, w http.ResponseWriter, r *http.Request) (status int, body any, err error) {
	if m == nil {
		return 0, nil, newError(errNotFound, "not found: %s", r.URL.Path)
	}
	ep, ok := m[r.Method]
	if !ok {
		allowed := allowedMethods(m)
		w.Header().Set("Allow", allowed)
		return 0, nil, newError(errMethod, "method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allowed)
	}
	defer func() {
		if p := recover(); p != nil {
			s.opts.Logger.Error("rest: panic in a handler", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			status, body, err = 0, nil, fmt.Errorf("rest: internal error: %v", p)
		}
	}()
	return ep(r)
}

// allowedMethods is the Allow header of a path.
func allowedMethods(m methods) string {
	var names []string
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
