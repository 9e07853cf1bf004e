package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/rest/api"
)

// jobManager is a client of a JobManager's REST API (Flink's paths and
// field names; internal/rest serves them). It decodes only what the
// commands print, into its own types, as a client of Flink would.
type jobManager struct {
	addr  string // HOST:PORT, as the user gave it, for messages
	base  string // http(s)://HOST:PORT
	token string // bearer token, "" for none (restauth.go)
	http  *http.Client
}

// Timeouts of the client: connecting, one request, and the wait between
// two polls of a savepoint (it doubles from the first to the last).
const (
	dialTimeout    = 5 * time.Second
	requestTimeout = 30 * time.Second
	firstPoll      = 10 * time.Millisecond
	lastPoll       = 500 * time.Millisecond
)

// newJobManager returns a client of the JobManager at addr (validated by
// checkHostPort), with the environment's TLS and token (restauth.go).
// Its own transport, which close releases, keeps connections from
// outliving the command.
func newJobManager(addr string) (*jobManager, error) {
	scheme, tr, token, err := restSecurity()
	if err != nil {
		return nil, err
	}
	return &jobManager{
		addr:  addr,
		base:  scheme + "://" + dialAddr(addr),
		token: token,
		http:  &http.Client{Transport: tr, Timeout: requestTimeout},
	}, nil
}

// close releases the client's idle connections.
func (jm *jobManager) close() { jm.http.CloseIdleConnections() }

// jobs lists the JobManager's jobs.
func (jm *jobManager) jobs(ctx context.Context) ([]api.JobOverview, error) {
	var out api.MultipleJobsDetails
	err := jm.call(ctx, http.MethodGet, "/jobs/overview", nil, http.StatusOK, &out)
	return out.Jobs, err
}

// cancel asks the JobManager to cancel job id.
func (jm *jobManager) cancel(ctx context.Context, id string) error {
	return jm.call(ctx, http.MethodPatch, "/jobs/"+id+"?mode=cancel", nil, http.StatusAccepted, nil)
}

// triggerSavepoint starts a savepoint of job id into dir ("" for the job's
// default) and returns its trigger id.
func (jm *jobManager) triggerSavepoint(ctx context.Context, id, dir string) (string, error) {
	return jm.trigger(ctx, "/jobs/"+id+"/savepoints", api.SavepointRequest{TargetDirectory: dir})
}

// triggerStop starts stopping job id with a savepoint into dir ("" for the
// job's default), draining its input first with drain, and returns the
// trigger id.
func (jm *jobManager) triggerStop(ctx context.Context, id, dir string, drain bool) (string, error) {
	return jm.trigger(ctx, "/jobs/"+id+"/stop", api.StopRequest{TargetDirectory: dir, Drain: drain})
}

func (jm *jobManager) trigger(ctx context.Context, path string, body any) (string, error) {
	var out api.TriggerResponse
	if err := jm.call(ctx, http.MethodPost, path, body, http.StatusAccepted, &out); err != nil {
		return "", err
	}
	if out.RequestID == "" {
		return "", fmt.Errorf("unexpected answer from %s: no request-id", jm.addr)
	}
	return out.RequestID, nil
}

// awaitSavepoint polls the savepoint operation trigger of job id until it
// completed, and returns the savepoint's location or the operation's
// failure.
func (jm *jobManager) awaitSavepoint(ctx context.Context, id, trigger string) (string, error) {
	wait := firstPoll
	for {
		var op api.OperationResult
		if err := jm.call(ctx, http.MethodGet, "/jobs/"+id+"/savepoints/"+trigger, nil, http.StatusOK, &op); err != nil {
			if ctx.Err() != nil {
				return "", gaveUp(ctx, trigger)
			}
			return "", err
		}
		switch {
		case op.Status.ID == "IN_PROGRESS":
		case op.Status.ID != "COMPLETED" || op.Operation == nil:
			return "", fmt.Errorf("unexpected answer from %s: operation status %q", jm.addr, op.Status.ID)
		case op.Operation.FailureCause != nil:
			cause := op.Operation.FailureCause.StackTrace
			if cause == "" {
				cause = op.Operation.FailureCause.Class
			}
			return "", fmt.Errorf("savepoint of job %s failed: %s", id, cause)
		case op.Operation.Location == "":
			return "", fmt.Errorf("unexpected answer from %s: a completed savepoint without a location", jm.addr)
		default:
			return op.Operation.Location, nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", gaveUp(ctx, trigger)
		case <-t.C:
		}
		wait = min(2*wait, lastPoll)
	}
}

// gaveUp is the error of a wait for a savepoint that ctx ended: the
// operation goes on in the JobManager.
func gaveUp(ctx context.Context, trigger string) error {
	return fmt.Errorf("gave up waiting (the operation goes on; trigger id %s): %w", trigger, context.Cause(ctx))
}

// call sends a request with an optional JSON body and decodes the answer
// into out when its status is want. Other answers become errors: the
// server's {"errors": [...]}, or a word that the address is not a
// JobManager.
func (jm *jobManager) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("encoding the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, jm.base+path, rd)
	if err != nil {
		return fmt.Errorf("request to %s: %w", jm.addr, err)
	}
	req.Header.Set("Accept", "application/json")
	if jm.token != "" {
		req.Header.Set("Authorization", "Bearer "+jm.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := jm.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the method and URL: the message names the address
		}
		return &unreachableError{addr: jm.addr, err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", jm.addr, err)
	}
	if resp.StatusCode != want {
		return jm.answerError(resp, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("unexpected answer from %s (%s): %v", jm.addr, resp.Status, err)
		}
	}
	return nil
}

// answerError is the error of an answer with an unexpected status.
func (jm *jobManager) answerError(resp *http.Response, b []byte) error {
	var e api.ErrorResponse
	if json.Unmarshal(b, &e) == nil && len(e.Errors) > 0 {
		msg := strings.Join(e.Errors, "; ")
		if resp.StatusCode == http.StatusUnauthorized {
			msg += " (the commands send $" + EnvRESTToken + ")"
		}
		return &answerError{status: resp.StatusCode, msg: msg}
	}
	return fmt.Errorf("unexpected answer from %s: %s (is it a Weir JobManager's REST address?)", jm.addr, resp.Status)
}

// unreachableError is a JobManager that did not answer: nothing listens
// at the address, or the connection broke.
type unreachableError struct {
	addr string
	err  error
}

func (e *unreachableError) Error() string {
	return fmt.Sprintf("no JobManager at %s: %v", e.addr, e.err)
}

func (e *unreachableError) Unwrap() error { return e.err }

// answerError is the JobManager's own error answer, with its status.
type answerError struct {
	status int
	msg    string
}

func (e *answerError) Error() string { return e.msg }
