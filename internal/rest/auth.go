package rest

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/weir-engine/weir/internal/rest/api"
)

// requireToken answers 401, with Flink's error body, every request that
// does not carry "Authorization: Bearer <token>"; an empty token lets
// every request through.
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(strings.TrimSpace(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="weir"`)
			msg := "missing or wrong bearer token: send the header \"Authorization: Bearer TOKEN\""
			_ = writeJSON(w, http.StatusUnauthorized, api.ErrorResponse{Errors: []string{msg}})
			return
		}
		next.ServeHTTP(w, r)
	})
}
