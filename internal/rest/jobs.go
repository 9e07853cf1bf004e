package rest

import (
	"github.com/weir-engine/weir/internal/rest/api"

	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The endpoints that read jobs, and cancel.

// overview is GET /overview.
func (s *Server) overview(*http.Request) (int, any, error) {
	o := api.ClusterOverview{FlinkVersion: "weir", FlinkCommit: s.commit}
	occupied := 0
	for _, j := range s.d.Jobs() {
		switch j.State {
		case "FINISHED":
			o.JobsFinished++
		case "CANCELED":
			o.JobsCancelled++
		case "FAILED":
			o.JobsFailed++
		default:
			o.JobsRunning++
			slots := 0
			for _, v := range j.Vertices {
				slots = max(slots, v.Parallelism)
			}
			occupied += slots // one slot-sharing group: the widest vertex
		}
	}
	if cr, ok := s.d.(ClusterReporter); ok {
		c := cr.Cluster()
		o.TaskManagers, o.SlotsTotal, o.SlotsAvailable = c.TaskManagers, c.SlotsTotal, c.SlotsAvailable
	} else {
		o.TaskManagers, o.SlotsTotal = 1, occupied
	}
	return http.StatusOK, o, nil
}

// jobIDs is GET /jobs.
func (s *Server) jobIDs(*http.Request) (int, any, error) {
	out := api.JobIDsWithStatus{Jobs: []api.JobIDWithStatus{}}
	for _, j := range s.d.Jobs() {
		out.Jobs = append(out.Jobs, api.JobIDWithStatus{ID: j.ID, Status: j.State})
	}
	return http.StatusOK, out, nil
}

// jobsOverview is GET /jobs/overview.
func (s *Server) jobsOverview(*http.Request) (int, any, error) {
	now := s.opts.Clock.Now()
	out := api.MultipleJobsDetails{Jobs: []api.JobOverview{}}
	for _, j := range s.d.Jobs() {
		last := millis(j.End)
		if last < 0 {
			last = millis(j.Start)
		}
		out.Jobs = append(out.Jobs, api.JobOverview{
			JID: j.ID, Name: j.Name, State: j.State,
			StartTime: millis(j.Start), EndTime: millis(j.End), Duration: duration(j, now),
			LastModification: last,
			Tasks:            taskCounts(j, true),
		})
	}
	return http.StatusOK, out, nil
}

// jobDetails is GET /jobs/:jobid.
func (s *Server) jobDetails(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	now := s.opts.Clock.Now()
	d := api.JobDetails{
		JID: j.ID, Name: j.Name, State: j.State, JobType: jobType(j),
		StartTime: millis(j.Start), EndTime: millis(j.End), Duration: duration(j, now),
		MaxParallelism: maxParallelism(j.MaxParallelism), Now: now.UnixMilli(),
		Timestamps:   make(map[string]int64, len(jobStates)),
		Vertices:     []api.VertexDetails{},
		StatusCounts: make(map[string]int, len(executionStates)),
	}
	// A state the job never entered is 0 (Flink's "not reached"); CREATED
	// is the start, a terminal state the end.
	for _, st := range jobStates {
		d.Timestamps[st] = 0
	}
	for st, at := range j.Timestamps {
		d.Timestamps[st] = max(millis(at), 0)
	}
	d.Timestamps["CREATED"] = max(d.StartTime, 0)
	if terminal(j.State) {
		d.Timestamps[j.State] = max(d.EndTime, 0)
	}
	for _, st := range executionStates {
		d.StatusCounts[st] = 0
	}
	for _, v := range j.Vertices {
		status := vertexStatus(v, j.State)
		d.StatusCounts[status]++
		tasks := make(map[string]int, len(executionStates))
		for _, st := range executionStates {
			tasks[st] = 0
		}
		tasks[status] += v.Parallelism
		d.Vertices = append(d.Vertices, api.VertexDetails{
			ID: vertexID(v.ID), Name: v.Name, MaxParallelism: maxParallelism(v.MaxParallelism), Parallelism: v.Parallelism,
			Status:    status,
			StartTime: vertexStart(v, d.StartTime), EndTime: d.EndTime, Duration: d.Duration,
			Tasks: tasks,
			Metrics: api.IOMetrics{
				ReadRecords: v.RecordsIn, ReadRecordsComplete: true,
				WriteRecords: v.RecordsOut, WriteRecordsComplete: true,
			},
		})
	}
	d.SchedulerState = j.SchedulerState
	for _, r := range j.Rescales {
		took := int64(-1)
		if r.Duration >= 0 {
			took = r.Duration.Milliseconds()
		}
		d.Rescales = append(d.Rescales, api.Rescale{From: byVertexID(r.From), To: byVertexID(r.To), Reason: r.Reason, Timestamp: millis(r.Time), Duration: took})
	}
	return http.StatusOK, d, nil
}

// byVertexID keys parallelisms by the vertex ids of the REST API.
func byVertexID(par map[int]int) map[string]int {
	out := make(map[string]int, len(par))
	for v, p := range par {
		out[vertexID(v)] = p
	}
	return out
}

// jobStatus is GET /jobs/:jobid/status.
func (s *Server) jobStatus(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, api.JobStatus{Status: j.State}, nil
}

// exceptions is GET /jobs/:jobid/exceptions.
func (s *Server) exceptions(r *http.Request) (int, any, error) {
	j, err := s.job(r)
	if err != nil {
		return 0, nil, err
	}
	out := api.JobExceptions{
		AllExceptions:    []struct{}{},
		ExceptionHistory: api.ExceptionHistory{Entries: []api.RootException{}},
	}
	if j.Failure != "" {
		at := millis(j.End)
		if at < 0 {
			at = s.opts.Clock.Now().UnixMilli()
		}
		out.RootException, out.Timestamp = &j.Failure, &at
	}
	for _, x := range j.Exceptions {
		task := x.Task
		out.ExceptionHistory.Entries = append(out.ExceptionHistory.Entries, api.RootException{
			ExceptionName: "error", Stacktrace: x.Message, Timestamp: millis(x.At), TaskName: &task,
			FailureLabels: map[string]string{}, ConcurrentExceptions: []struct{}{},
		})
	}
	if len(out.ExceptionHistory.Entries) == 0 && j.Failure != "" {
		// A failure no subtask reported (the job's own, such as too few
		// slots): an entry without a task.
		out.ExceptionHistory.Entries = append(out.ExceptionHistory.Entries, api.RootException{
			ExceptionName: "error", Stacktrace: j.Failure, Timestamp: *out.Timestamp,
			FailureLabels: map[string]string{}, ConcurrentExceptions: []struct{}{},
		})
	}
	return http.StatusOK, out, nil
}

// cancelJob is PATCH /jobs/:jobid[?mode=cancel].
func (s *Server) cancelJob(r *http.Request) (int, any, error) {
	id, err := jobIDParam(r.PathValue("jobid"))
	if err != nil {
		return 0, nil, err
	}
	switch mode := r.URL.Query().Get("mode"); {
	case mode == "" || strings.EqualFold(mode, "cancel"):
	case strings.EqualFold(mode, "stop"):
		return 0, nil, newError(errBadRequest, "mode %q is not supported: stop a job with POST /jobs/%s/stop", mode, id)
	default:
		return 0, nil, newError(errBadRequest, "invalid mode %q: want cancel", mode)
	}
	if err := s.d.Cancel(id); err != nil {
		return 0, nil, jobError(id, err)
	}
	return http.StatusAccepted, struct{}{}, nil
}

// job looks up the job of the request's path.
func (s *Server) job(r *http.Request) (JobInfo, error) {
	id, err := jobIDParam(r.PathValue("jobid"))
	if err != nil {
		return JobInfo{}, err
	}
	j, err := s.d.Job(id)
	if err != nil {
		return JobInfo{}, jobError(id, err)
	}
	return j, nil
}

// jobError puts a Dispatcher's error about job id into the client's
// terms: ErrNotFound becomes "job <id> not found".
func jobError(id string, err error) error {
	if errors.Is(err, ErrNotFound) {
		return newError(errNotFound, "job %s not found", id)
	}
	return fmt.Errorf("job %s: %w", id, err)
}

// maxParallelism is a max parallelism as Flink writes it: -1 when unknown.
func maxParallelism(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// vertexStart is when the first subtask of v entered its current state
// (its deployment's generation started), else the job's start.
func vertexStart(v VertexInfo, jobStart int64) int64 {
	start := int64(-1)
	for _, st := range v.Subtasks {
		if at := millis(st.Since); at > 0 && (start < 0 || at < start) {
			start = at
		}
	}
	if start < 0 {
		return jobStart
	}
	return start
}
