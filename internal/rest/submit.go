package rest

import (
	"net/http"

	"github.com/weir-engine/weir/internal/rest/api"
)

// submitJob is POST /jobs: a JobManager process runs a registered job of
// its binary (see api.JobSubmission); 200 with the job's id.
func (s *Server) submitJob(r *http.Request) (int, any, error) {
	sub, ok := s.d.(Submitter)
	if !ok {
		return 0, nil, newError(errMethod, "this JobManager does not accept jobs over REST")
	}
	var body api.JobSubmission
	if err := decodeBody(r, &body); err != nil {
		return 0, nil, err
	}
	if body.Job == "" {
		return 0, nil, newError(errBadRequest, "the submission names no job")
	}
	id, err := sub.Submit(r.Context(), body)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, api.SubmitResponse{JobID: id}, nil
}
