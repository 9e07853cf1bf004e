package rest_test

import (
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
)

// The dashboard shares the API's address: GET / is its page and /web/
// its assets, every other path stays the API's JSON, and /config says
// whether the submit form is to be shown.
func TestDashboardBesideTheAPI(t *testing.T) {
	ts := serve(t, newFake(), rest.Options{})
	for _, tt := range []struct {
		method, path string
		status       int
		ctype        string
	}{
		{"GET", "/", 200, "text/html"},
		{"GET", "/web/main.js", 200, "text/javascript"},
		{"GET", "/web/style.css", 200, "text/css"},
		{"GET", "/web/nosuch.js", 404, "text/plain"},
		{"GET", "/jobs/overview", 200, "application/json"},
		{"GET", "/v1/overview", 200, "application/json"},
		{"POST", "/", 404, "application/json"},
		{"GET", "/nosuch", 404, "application/json"},
	} {
		r := ts.do(t, tt.method, tt.path, "")
		if ct := r.header.Get("Content-Type"); r.status != tt.status || !strings.HasPrefix(ct, tt.ctype) {
			t.Errorf("%s %s: %d %s, want %d %s", tt.method, tt.path, r.status, ct, tt.status, tt.ctype)
		}
	}
	var cfg api.DashboardConfiguration
	ts.get(t, "/config", &cfg)
	if cfg.Features.WebSubmit {
		t.Errorf("web-submit without a Submitter: %+v", cfg.Features)
	}
	var with api.DashboardConfiguration
	serve(t, &submitter{fakeDispatcher: newFake()}, rest.Options{}).get(t, "/config", &with)
	if !with.Features.WebSubmit {
		t.Errorf("no web-submit with a Submitter: %+v", with.Features)
	}
}
