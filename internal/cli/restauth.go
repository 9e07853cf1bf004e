package cli

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/weir-engine/weir/internal/security"
)

// The commands that talk to a JobManager's REST API (list, cancel,
// savepoint, stop, run --jobmanager) take its security from the
// environment, so that a token never shows in a process listing:
// WEIR_REST_TOKEN is the bearer token to send, WEIR_REST_CA the PEM file
// of the CA that signed the JobManager's HTTPS certificate (set: the
// commands speak HTTPS).
const (
	EnvRESTToken = "WEIR_REST_TOKEN"
	EnvRESTCA    = "WEIR_REST_CA"
)

// restSecurity is the scheme, transport and token of the environment.
func restSecurity() (scheme string, tr *http.Transport, token string, err error) {
	tr = &http.Transport{
		// A JobManager that is not there (a host that drops packets) is
		// reported within dialTimeout, not the request's timeout.
		DialContext:         (&net.Dialer{Timeout: dialTimeout}).DialContext,
		TLSHandshakeTimeout: dialTimeout,
	}
	scheme = "http"
	if ca := os.Getenv(EnvRESTCA); ca != "" {
		c, err := security.Files{CA: ca}.Client()
		if err != nil {
			return "", nil, "", fmt.Errorf("%s: %w", EnvRESTCA, err)
		}
		tr.TLSClientConfig, scheme = c, "https"
	}
	return scheme, tr, os.Getenv(EnvRESTToken), nil
}
