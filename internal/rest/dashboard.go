package rest

import (
	"net/http"

	"github.com/weir-engine/weir/internal/dashboard"
)

// mountDashboard serves the web dashboard on the API's address, as
// Flink's web UI shares its REST port: the page at "/" and its assets
// under dashboard.Prefix. No REST path starts there.
func mountDashboard(mux *http.ServeMux) {
	h := dashboard.Handler()
	mux.Handle("GET /{$}", h)
	mux.Handle("GET "+dashboard.Prefix, h)
}
