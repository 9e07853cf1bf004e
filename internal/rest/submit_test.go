package rest_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
)

// submitter is a dispatcher that accepts jobs: it records them, refuses
// the job "bad" as the submission's fault and fails "broken".
type submitter struct {
	*fakeDispatcher
	got []api.JobSubmission
}

func (s *submitter) Submit(_ context.Context, sub api.JobSubmission) (string, error) {
	switch sub.Job {
	case "bad":
		return "", rest.BadSubmission(errors.New("bad: flag provided but not defined: -x"))
	case "broken":
		return "", errors.New("storage down")
	}
	s.got = append(s.got, sub)
	return "0123456789abcdef0123456789abcdef", nil
}

func TestSubmitJob(t *testing.T) {
	s := &submitter{fakeDispatcher: newFake()}
	ts := serve(t, s, rest.Options{})
	for _, tt := range []struct {
		name, body string
		status     int
		want       string // the id, or a part of the error
	}{
		{"ok", `{"job": "wordcount", "args": ["--input", "a"], "options": {"parallelism": 2, "checkpointInterval": "1s"}}`,
			http.StatusOK, "0123456789abcdef0123456789abcdef"},
		{"no job", `{"args": ["x"]}`, http.StatusBadRequest, "names no job"},
		{"unknown field", `{"job": "wordcount", "jar": "x.jar"}`, http.StatusBadRequest, "jar"},
		{"refused", `{"job": "bad"}`, http.StatusBadRequest, "flag provided but not defined"},
		{"failed", `{"job": "broken"}`, http.StatusInternalServerError, "storage down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := ts.do(t, http.MethodPost, "/jobs", tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d (%s), want %d", r.status, r.body, tt.status)
			}
			if tt.status == http.StatusOK {
				var resp api.SubmitResponse
				decode(t, r.body, &resp)
				if resp.JobID != tt.want {
					t.Errorf("jobid %q, want %q", resp.JobID, tt.want)
				}
				return
			}
			if errs := errorsOf(t, r); !strings.Contains(strings.Join(errs, " "), tt.want) {
				t.Errorf("errors %q, want %q", errs, tt.want)
			}
		})
	}
	want := []api.JobSubmission{{Job: "wordcount", Args: []string{"--input", "a"}, Options: api.EngineOptions{Parallelism: 2, CheckpointInterval: "1s"}}}
	if !reflect.DeepEqual(s.got, want) {
		t.Errorf("submitted %+v, want %+v", s.got, want)
	}
}

// A dispatcher that does not accept jobs answers POST /jobs with 405.
func TestSubmitJobNotAccepted(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	if r := ts.do(t, http.MethodPost, "/jobs", `{"job": "wordcount"}`); r.status != http.StatusMethodNotAllowed {
		t.Errorf("status %d (%s), want 405", r.status, r.body)
	}
}
