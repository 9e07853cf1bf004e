package rest

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"github.com/weir-engine/weir/internal/clock"
)

// DefaultAddr is where Flink's REST API listens by default, and so Weir's.
const DefaultAddr = "127.0.0.1:8081"

// Options configure a Server. The zero value of a field takes its default.
type Options struct {
	// Clock tells the time for the duration of running jobs and the "now"
	// fields (default clock.Real{}).
	Clock clock.Clock
	// Logger receives server-side failures: 500 answers, panics, errors of
	// the HTTP server (default: discarded).
	Logger *slog.Logger
	// ShutdownTimeout bounds the wait for requests in flight when the
	// server shuts down; after it, their connections are closed (default
	// 5s).
	ShutdownTimeout time.Duration
	// MaxBodyBytes bounds a request's body (default 64 KiB).
	MaxBodyBytes int64
	// Token, when set, is the bearer token every request must carry
	// ("Authorization: Bearer TOKEN"); others get 401.
	Token string
	// TLS, when set, makes the server speak HTTPS with it.
	TLS *tls.Config
	// MaxTriggers bounds the savepoint operations kept for status queries;
	// beyond it the oldest finished ones are dropped (default 1024).
	MaxTriggers int
	// Datasets are the cached results served under /datasets (nil: none).
	Datasets Datasets
}

// EnsureDefaults returns o with every zero field set to its default.
func (o Options) EnsureDefaults() Options {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = 5 * time.Second
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 64 << 10
	}
	if o.MaxTriggers == 0 {
		o.MaxTriggers = 1024
	}
	return o
}

// Validate reports an option that no default can fix.
func (o Options) Validate() error {
	switch {
	case o.ShutdownTimeout < 0:
		return fmt.Errorf("rest: negative ShutdownTimeout %v", o.ShutdownTimeout)
	case o.MaxBodyBytes < 0:
		return fmt.Errorf("rest: negative MaxBodyBytes %d", o.MaxBodyBytes)
	case o.MaxTriggers < 0:
		return fmt.Errorf("rest: negative MaxTriggers %d", o.MaxTriggers)
	}
	return nil
}
