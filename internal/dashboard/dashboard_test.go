package dashboard

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	resp := rec.Result()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func TestHandler(t *testing.T) {
	h := Handler()
	for _, tt := range []struct {
		method, path string
		status       int
		ctype        string
		contains     string
	}{
		{"GET", "/", 200, "text/html", `<script type="module" src="/web/main.js">`},
		{"GET", "/index.html", 200, "text/html", "<title>Weir dashboard</title>"},
		{"HEAD", "/", 200, "text/html", ""},
		{"GET", "/web/style.css", 200, "text/css", "#job-graph"},
		{"GET", "/web/main.js", 200, "text/javascript", "hashchange"},
		{"GET", "/web/graph.js", 200, "text/javascript", "data-vertex-id"},
		{"GET", "/web/nosuch.js", 404, "", ""},
		{"GET", "/web/", 404, "", ""},
		{"GET", "/web/../dashboard.go", 404, "", ""},
		{"GET", "/web/.hidden", 404, "", ""},
		{"GET", "/jobs", 404, "", ""},
		{"POST", "/", 405, "", ""},
	} {
		resp, body := get(t, h, tt.method, tt.path)
		if resp.StatusCode != tt.status {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.path, resp.StatusCode, tt.status)
			continue
		}
		if tt.status != 200 {
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tt.ctype) {
			t.Errorf("%s %s: Content-Type %q, want %s", tt.method, tt.path, ct, tt.ctype)
		}
		if !strings.Contains(body, tt.contains) {
			t.Errorf("%s %s: body lacks %q", tt.method, tt.path, tt.contains)
		}
		if resp.Header.Get("Content-Security-Policy") == "" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: no security headers: %v", tt.method, tt.path, resp.Header)
		}
	}
}

// importRE matches the module imports of the compiled scripts.
var importRE = regexp.MustCompile(`(?m)^import .* from "\./([a-z]+\.js)";$`)

// Every module a compiled script imports is embedded: a source file added
// without rebuilding web/dist would break the page in the browser only.
func TestEveryImportIsEmbedded(t *testing.T) {
	h := Handler()
	seen := map[string]bool{}
	queue := []string{"main.js"}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		resp, body := get(t, h, "GET", Prefix+name)
		if resp.StatusCode != 200 {
			t.Errorf("%s: status %d", name, resp.StatusCode)
			continue
		}
		for _, m := range importRE.FindAllStringSubmatch(body, -1) {
			queue = append(queue, m[1])
		}
	}
	if len(seen) < 8 {
		t.Errorf("main.js reaches %d modules, want the dashboard's (>= 8): %v", len(seen), seen)
	}
}
