package rest

import (
	"github.com/weir-engine/weir/internal/rest/api"

	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
)

// Savepoint operations: triggered by POST .../savepoints and .../stop, run
// in goroutines of the server's, queried by GET .../savepoints/:triggerid.
// The package comment describes their lifecycle.

// triggerKey names an operation: trigger ids are per job, as in Flink.
type triggerKey struct{ job, id string }

// trigger is one operation; its fields are guarded by Server.mu.
type trigger struct {
	done     bool
	read     bool // a client read the result (AwaitResultsRead)
	location string
	err      error
}

// savepointOp is what an operation asks of Dispatcher.Savepoint.
type savepointOp struct {
	dir         string
	stop, drain bool
}

// triggerSavepoint is POST /jobs/:jobid/savepoints.
func (s *Server) triggerSavepoint(r *http.Request) (int, any, error) {
	job, err := jobIDParam(r.PathValue("jobid"))
	if err != nil {
		return 0, nil, err
	}
	var req api.SavepointRequest
	if err := decodeBody(r, &req); err != nil {
		return 0, nil, err
	}
	if err := checkFormatType(req.FormatType); err != nil {
		return 0, nil, err
	}
	// Flink's cancel-job ends the job after the savepoint, as stop does.
	return s.trigger(job, req.TriggerID, savepointOp{dir: req.TargetDirectory, stop: req.CancelJob})
}

// triggerStop is POST /jobs/:jobid/stop.
func (s *Server) triggerStop(r *http.Request) (int, any, error) {
	job, err := jobIDParam(r.PathValue("jobid"))
	if err != nil {
		return 0, nil, err
	}
	var req api.StopRequest
	if err := decodeBody(r, &req); err != nil {
		return 0, nil, err
	}
	if err := checkFormatType(req.FormatType); err != nil {
		return 0, nil, err
	}
	return s.trigger(job, req.TriggerID, savepointOp{dir: req.TargetDirectory, stop: true, drain: req.Drain})
}

// checkFormatType accepts Flink's savepoint format types that Weir has.
func checkFormatType(f string) error {
	switch f {
	case "", "CANONICAL":
		return nil
	case "NATIVE":
		return newError(errBadRequest, "formatType NATIVE is not supported: Weir writes CANONICAL savepoints only")
	}
	return newError(errBadRequest, "invalid formatType %q: want CANONICAL", f)
}

// trigger starts an operation on an existing job and answers 202 with its
// trigger id: given (the client's "triggerId") or a new random one.
func (s *Server) trigger(job, given string, op savepointOp) (int, any, error) {
	if given != "" {
		if _, err := triggerIDParam(given); err != nil {
			return 0, nil, err
		}
	}
	if _, err := s.d.Job(job); err != nil {
		return 0, nil, jobError(job, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return 0, nil, newError(errShuttingDown, "the server is shutting down")
	}
	id := given
	if id == "" {
		id = newTriggerID()
	}
	key := triggerKey{job: job, id: id}
	if _, ok := s.mu.triggers[key]; ok {
		// A client repeating its trigger id gets the same operation.
		return http.StatusAccepted, api.TriggerResponse{RequestID: id}, nil
	}
	t := &trigger{}
	s.mu.triggers[key] = t
	s.changedLocked()
	s.mu.order = append(s.mu.order, key)
	s.evictLocked()
	s.wg.Add(1)
	go s.run(t, job, op)
	return http.StatusAccepted, api.TriggerResponse{RequestID: id}, nil
}

// run performs one operation and records its result.
func (s *Server) run(t *trigger, job string, op savepointOp) {
	defer s.wg.Done()
	loc, err := s.savepoint(job, op)
	s.mu.Lock()
	t.done, t.location, t.err = true, loc, err
	s.changedLocked()
	s.mu.Unlock()
}

// savepoint calls the Dispatcher under the server's context. A panic or a
// success without a location is a Dispatcher's bug, reported as the
// operation's failure.
func (s *Server) savepoint(job string, op savepointOp) (loc string, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.opts.Logger.Error("rest: panic in Dispatcher.Savepoint", "job", job, "panic", p, "stack", string(debug.Stack()))
			loc, err = "", fmt.Errorf("rest: savepoint of job %s: internal error: %v", job, p)
		}
	}()
	loc, err = s.d.Savepoint(s.ctx, job, op.dir, op.stop, op.drain)
	if err == nil && loc == "" {
		err = errors.New("rest: the savepoint completed without a location")
	}
	return loc, err
}

// evictLocked drops the oldest finished operations beyond MaxTriggers;
// running ones are never dropped.
func (s *Server) evictLocked() {
	for i := 0; len(s.mu.triggers) > s.opts.MaxTriggers && i < len(s.mu.order); {
		key := s.mu.order[i]
		if !s.mu.triggers[key].done {
			i++
			continue
		}
		delete(s.mu.triggers, key)
		s.mu.order = append(s.mu.order[:i], s.mu.order[i+1:]...)
	}
}

// savepointStatus is GET /jobs/:jobid/savepoints/:triggerid.
func (s *Server) savepointStatus(r *http.Request) (int, any, error) {
	job, err := jobIDParam(r.PathValue("jobid"))
	if err != nil {
		return 0, nil, err
	}
	id, err := triggerIDParam(r.PathValue("triggerid"))
	if err != nil {
		return 0, nil, err
	}
	s.mu.Lock()
	t, ok := s.mu.triggers[triggerKey{job: job, id: id}]
	var res trigger
	if ok {
		res = *t
		if t.done && !t.read {
			t.read = true
			s.changedLocked()
		}
	}
	s.mu.Unlock()
	switch {
	case !ok:
		return 0, nil, newError(errNotFound, "no savepoint operation with trigger id %s for job %s", id, job)
	case !res.done:
		return http.StatusOK, api.OperationResult{Status: api.QueueStatus{ID: "IN_PROGRESS"}}, nil
	case res.err != nil:
		msg := res.err.Error()
		return http.StatusOK, api.OperationResult{
			Status:    api.QueueStatus{ID: "COMPLETED"},
			Operation: &api.SavepointInfo{FailureCause: &api.FailureCause{Class: "error", Message: msg, StackTrace: msg}},
		}, nil
	}
	return http.StatusOK, api.OperationResult{
		Status:    api.QueueStatus{ID: "COMPLETED"},
		Operation: &api.SavepointInfo{Location: res.location},
	}, nil
}
