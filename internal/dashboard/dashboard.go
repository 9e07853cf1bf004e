// Package dashboard is Weir's web dashboard: a small front end (TypeScript
// in web/src, compiled by scripts/build-dashboard.sh into web/dist, which
// is checked in) embedded in the binary, so that the JobManager and
// `weir run --rest-addr` serve it at their REST address with nothing else
// to install. The page reads the REST API of the address it came from;
// its routes live in the URL's fragment (#/job/ID), so every REST path
// stays the API's.
package dashboard

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// files holds the page (web/public: index.html, style.css) and the
// compiled scripts (web/dist).
//
//go:embed web/public web/dist
var files embed.FS

// Prefix is the path under which the dashboard's assets are served; the
// page itself is served at "/".
const Prefix = "/web/"

// securityHeaders are set on every answer: the page loads nothing but its
// own assets and the API of its own origin.
var securityHeaders = map[string]string{
	"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'",
	"X-Content-Type-Options":  "nosniff",
	"Referrer-Policy":         "no-referrer",
}

// Handler serves the dashboard: GET / is the page, GET /web/NAME an asset.
// Other paths are not the dashboard's (the REST API serves them) and are
// answered 404.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name, ok := asset(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		for k, v := range securityHeaders {
			w.Header().Set(k, v)
		}
		ctype := mime.TypeByExtension(path.Ext(name))
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		w.Header().Set("Content-Type", ctype)
		// The assets change with the binary: the browser asks again each
		// time (a 304 when unchanged would need an ETag; they are small).
		w.Header().Set("Cache-Control", "no-cache")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(body)
	})
}

// asset maps a request path to the embedded file it names: "/" is the
// page, /web/NAME a file of web/public or web/dist (NAME without
// directories).
func asset(p string) (string, bool) {
	if p == "/" || p == "/index.html" {
		return "web/public/index.html", true
	}
	name, ok := strings.CutPrefix(p, Prefix)
	if !ok || name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return "", false
	}
	for _, dir := range []string{"web/public/", "web/dist/"} {
		if _, err := fs.Stat(files, dir+name); err == nil {
			return dir + name, true
		}
	}
	return "", false
}
