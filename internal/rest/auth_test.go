package rest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
	"github.com/weir-engine/weir/internal/security"
	"github.com/weir-engine/weir/internal/security/securitytest"
)

// With a token and TLS, the API answers only HTTPS requests that carry
// the token; others get 401 with Flink's error body.
func TestTokenAndTLS(t *testing.T) {
	ca := securitytest.NewCA(t, "rest")
	files := ca.Issue(t, "jobmanager")
	srvTLS, err := security.Files{Cert: files.Cert, Key: files.Key}.Server()
	if err != nil {
		t.Fatal(err)
	}
	srv := rest.NewServer(newFake(), rest.Options{Token: "s3cret", TLS: srvTLS})
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cliTLS, err := security.Files{CA: ca.File()}.Client()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cliTLS}}
	defer client.CloseIdleConnections()
	for _, tt := range []struct {
		name, auth string
		status     int
	}{
		{"the token", "Bearer s3cret", http.StatusOK},
		{"no token", "", http.StatusUnauthorized},
		{"a wrong token", "Bearer s3cre", http.StatusUnauthorized},
		{"the token without its scheme", "s3cret", http.StatusUnauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "https://"+addr+"/jobs/overview", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, b, tt.status)
			}
			if tt.status == http.StatusUnauthorized {
				var e api.ErrorResponse
				if err := json.Unmarshal(b, &e); err != nil || len(e.Errors) != 1 || resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("body %s (%v), WWW-Authenticate %q; want Flink's error body and the header", b, err, resp.Header.Get("WWW-Authenticate"))
				}
			}
		})
	}
	// Plain HTTP to the TLS port gets no answer of the API.
	resp, err := http.Get("http://" + addr + "/jobs/overview")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the TLS port: %s, want 400 from the TLS server", resp.Status)
		}
	}
}
