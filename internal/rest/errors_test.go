package rest_test

import (
	"github.com/weir-engine/weir/internal/rest/api"

	"net/http"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
)

func TestErrors(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{MaxBodyBytes: 256})
	const trig = "/savepoints/ffffffffffffffffffffffffffffffff"
	for _, tt := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		// Unknown paths.
		{"POST", "/", "", 404, "not found: /"}, // GET / is the dashboard
		{"GET", "/nosuch", "", 404, "not found: /nosuch"},
		{"GET", "/jobs/" + runningID + "/nosuch", "", 404, "not found"},
		{"GET", "/jobs/", "", 404, "not found"},
		{"GET", "/v2/jobs", "", 404, "not found"},
		// Unknown jobs and triggers.
		{"GET", "/jobs/" + unknownID, "", 404, "job " + unknownID + " not found"},
		{"GET", "/jobs/" + unknownID + "/checkpoints", "", 404, "not found"},
		{"GET", "/jobs/" + unknownID + "/exceptions", "", 404, "not found"},
		{"POST", "/jobs/" + unknownID + "/savepoints", "{}", 404, "job " + unknownID + " not found"},
		{"POST", "/jobs/" + unknownID + "/stop", "", 404, "not found"},
		{"GET", "/jobs/" + runningID + trig, "", 404, "no savepoint operation with trigger id ffffffffffffffffffffffffffffffff"},
		{"GET", "/v1/jobs/" + unknownID, "", 404, "not found"},
		// Malformed ids.
		{"GET", "/jobs/123", "", 400, `invalid job id "123": want 32 lower-case hex characters`},
		{"GET", "/jobs/" + strings.ToUpper(unknownID), "", 400, "invalid job id"},
		{"GET", "/jobs/" + unknownID + "0", "", 400, "invalid job id"},
		{"GET", "/jobs/%00/checkpoints", "", 400, "invalid job id"},
		{"GET", "/jobs/" + runningID + "/savepoints/xyz", "", 400, `invalid trigger id "xyz"`},
		{"POST", "/jobs/nope/savepoints", "{}", 400, "invalid job id"},
		// Wrong methods.
		{"POST", "/overview", "", 405, "method POST is not allowed on /overview (allowed: GET)"},
		{"DELETE", "/jobs", "", 405, "allowed: GET"},
		{"PATCH", "/jobs/overview", "", 405, "allowed: GET"},
		{"DELETE", "/jobs/" + runningID, "", 405, "allowed: GET, PATCH"},
		{"GET", "/jobs/" + runningID + "/savepoints", "", 405, "allowed: POST"},
		{"GET", "/jobs/" + runningID + "/stop", "", 405, "allowed: POST"},
		{"POST", "/jobs/" + runningID + trig, "", 405, "allowed: GET"},
		{"HEAD", "/jobs", "", 405, ""},
		// Malformed bodies.
		{"POST", "/jobs/" + runningID + "/savepoints", `{"target-dir": "/x"}`, 400, `malformed request body: unknown field "target-dir"`},
		{"POST", "/jobs/" + runningID + "/savepoints", `{"cancel-job": "yes"}`, 400, `field "cancel-job": want a boolean, not string`},
		{"POST", "/jobs/" + runningID + "/savepoints", `{"target-directory": 7}`, 400, `field "target-directory": want a string, not number`},
		{"POST", "/jobs/" + runningID + "/savepoints", `["x"]`, 400, "want a JSON object, not array"},
		{"POST", "/jobs/" + runningID + "/savepoints", `{"cancel-job": true`, 400, "malformed request body"},
		{"POST", "/jobs/" + runningID + "/savepoints", `{} {}`, 400, "data after the JSON object"},
		{"POST", "/jobs/" + runningID + "/savepoints", `{}}`, 400, "data after the JSON object"},
		{"POST", "/jobs/" + runningID + "/savepoints", `nonsense`, 400, "malformed request body: invalid character"},
		{"POST", "/jobs/" + runningID + "/savepoints", `{"triggerId": "abc"}`, 400, `invalid trigger id "abc"`},
		{"POST", "/jobs/" + runningID + "/savepoints", `{"formatType": "NATIVE"}`, 400, "formatType NATIVE is not supported"},
		{"POST", "/jobs/" + runningID + "/stop", `{"drain": 1}`, 400, `field "drain": want a boolean, not number`},
		{"POST", "/jobs/" + runningID + "/stop", `{"target-directory": "/x"}`, 400, `unknown field "target-directory"`},
		{"POST", "/jobs/" + runningID + "/stop", `{"formatType": "ZIP"}`, 400, `invalid formatType "ZIP"`},
		{"POST", "/jobs/" + runningID + "/stop", `{"targetDirectory": "` + strings.Repeat("x", 300) + `"}`, 413, "request body larger than 256 bytes"},
	} {
		r := ts.do(t, tt.method, tt.path, tt.body)
		if r.status != tt.status {
			t.Errorf("%s %s %s: status %d (%s), want %d", tt.method, tt.path, tt.body, r.status, r.body, tt.status)
			continue
		}
		if tt.method == "HEAD" {
			continue // no body
		}
		if errs := errorsOf(t, r); !strings.Contains(errs[0], tt.want) {
			t.Errorf("%s %s %s: errors %q, want %q", tt.method, tt.path, tt.body, errs, tt.want)
		}
		if tt.status == 405 && r.header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without an Allow header", tt.method, tt.path)
		}
	}
}

func TestVersionedPaths(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	var o api.ClusterOverview
	ts.get(t, "/v1/overview", &o)
	var j api.JobDetails
	ts.get(t, "/v1/jobs/"+runningID, &j)
	if o.FlinkVersion != "weir" || j.JID != runningID {
		t.Errorf("/v1 paths: %+v %+v", o, j)
	}
}

// panicky is a dispatcher whose Jobs and Job panic.
type panicky struct{ rest.Dispatcher }

func (panicky) Jobs() []rest.JobInfo             { panic("bug") }
func (panicky) Job(string) (rest.JobInfo, error) { panic("bug") }

func TestPanicIsA500(t *testing.T) {
	ts := serve(t, panicky{newFake()}, rest.Options{})
	r := ts.do(t, http.MethodGet, "/jobs", "")
	if errs := errorsOf(t, r); r.status != 500 || !strings.Contains(errs[0], "internal error: bug") {
		t.Errorf("%d %q, want 500 with the panic", r.status, errs)
	}
	// The server goes on.
	if r := ts.do(t, http.MethodGet, "/nosuch", ""); r.status != 404 {
		t.Errorf("after a panic: %d", r.status)
	}
}
