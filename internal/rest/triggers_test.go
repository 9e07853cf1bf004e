package rest_test

import (
	"context"
	"fmt"
	"github.com/weir-engine/weir/internal/rest/api"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
)

// trigger posts body to path and returns the request-id of the 202.
func (ts *testServer) trigger(t *testing.T, path, body string) string {
	t.Helper()
	r := ts.do(t, http.MethodPost, path, body)
	if r.status != http.StatusAccepted {
		t.Fatalf("POST %s %s: %d %s, want 202", path, body, r.status, r.body)
	}
	hasKeys(t, "trigger response", r.body, "request-id")
	var tr api.TriggerResponse
	decode(t, r.body, &tr)
	if len(tr.RequestID) != 32 || strings.Trim(tr.RequestID, "0123456789abcdef") != "" {
		t.Fatalf("request-id %q: want 32 lower-case hex characters", tr.RequestID)
	}
	return tr.RequestID
}

func (ts *testServer) status(t *testing.T, job, trigger string) api.OperationResult {
	t.Helper()
	var op api.OperationResult
	ts.get(t, "/jobs/"+job+"/savepoints/"+trigger, &op)
	return op
}

// gate makes Savepoint block until released, or until its context ends.
type gate struct {
	started chan savepointCall
	release chan error
}

func newGate() *gate {
	return &gate{started: make(chan savepointCall, 10), release: make(chan error, 10)}
}

func (g *gate) savepoint(c savepointCall) (string, error) {
	g.started <- c
	select {
	case err := <-g.release:
		if err != nil {
			return "", err
		}
		return "file:///sp/" + c.dir + "/savepoint-1", nil
	case <-c.ctx.Done():
		return "", fmt.Errorf("savepoint aborted: %w", context.Cause(c.ctx))
	}
}

func TestSavepointInProgressThenCompleted(t *testing.T) {
	f, g := newFake(), newGate()
	f.savepoint = g.savepoint
	ts := serve(t, f, rest.Options{})
	id := ts.trigger(t, "/jobs/"+runningID+"/savepoints", `{"target-directory": "sps", "cancel-job": false}`)
	c := <-g.started
	if c.id != runningID || c.dir != "sps" || c.stop || c.drain {
		t.Errorf("Savepoint(%q, %q, stop=%v, drain=%v), want the job, dir sps, no stop", c.id, c.dir, c.stop, c.drain)
	}

	r := ts.do(t, http.MethodGet, "/jobs/"+runningID+"/savepoints/"+id, "")
	hasKeys(t, "status", r.body, "status", "operation")
	if op := ts.status(t, runningID, id); op.Status.ID != "IN_PROGRESS" || op.Operation != nil {
		t.Errorf("while running: %+v, want IN_PROGRESS and no operation", op)
	}

	g.release <- nil
	var op api.OperationResult
	waitFor(t, "COMPLETED", func() bool { op = ts.status(t, runningID, id); return op.Status.ID == "COMPLETED" })
	if op.Operation == nil || op.Operation.Location != "file:///sp/sps/savepoint-1" || op.Operation.FailureCause != nil {
		t.Errorf("completed: %+v, want the location", op.Operation)
	}
	// The trigger id is the job's: another job does not know it.
	if r := ts.do(t, http.MethodGet, "/jobs/"+finishedID+"/savepoints/"+id, ""); r.status != http.StatusNotFound {
		t.Errorf("another job's trigger: %d %s, want 404", r.status, r.body)
	}
}

func TestSavepointFails(t *testing.T) {
	f, g := newFake(), newGate()
	f.savepoint = g.savepoint
	ts := serve(t, f, rest.Options{})
	id := ts.trigger(t, "/jobs/"+runningID+"/savepoints", "")
	<-g.started
	g.release <- fmt.Errorf("writing savepoint: %w", errBoom)
	var op api.OperationResult
	waitFor(t, "COMPLETED", func() bool { op = ts.status(t, runningID, id); return op.Status.ID == "COMPLETED" })
	if op.Operation == nil || op.Operation.FailureCause == nil || op.Operation.Location != "" {
		t.Fatalf("failed operation: %+v, want a failure-cause and no location", op.Operation)
	}
	if fc := op.Operation.FailureCause; fc.Class == "" || fc.StackTrace != "writing savepoint: disk full" {
		t.Errorf("failure-cause %+v, want the error", fc)
	}
	if c := f.calls()[0]; c.dir != "" {
		t.Errorf("an empty body: dir %q, want the job's default", c.dir)
	}
}

func TestSavepointWithCancel(t *testing.T) {
	f := newFake()
	ts := serve(t, f, rest.Options{})
	id := ts.trigger(t, "/jobs/"+runningID+"/savepoints", `{"cancel-job": true, "target-directory": null, "formatType": "CANONICAL"}`)
	waitFor(t, "COMPLETED", func() bool { return ts.status(t, runningID, id).Status.ID == "COMPLETED" })
	if c := f.calls(); len(c) != 1 || !c[0].stop || c[0].drain {
		t.Errorf("calls %+v: want stop without drain", c)
	}
}

func TestStop(t *testing.T) {
	for _, tt := range []struct {
		body  string
		dir   string
		drain bool
	}{
		{`{"targetDirectory": "/sp", "drain": true}`, "/sp", true},
		{`{"targetDirectory": "/sp", "drain": false}`, "/sp", false},
		{`{}`, "", false},
		{``, "", false},
	} {
		f := newFake()
		ts := serve(t, f, rest.Options{})
		id := ts.trigger(t, "/jobs/"+runningID+"/stop", tt.body)
		var op api.OperationResult
		waitFor(t, "COMPLETED", func() bool { op = ts.status(t, runningID, id); return op.Status.ID == "COMPLETED" })
		c := f.calls()
		if len(c) != 1 || c[0].id != runningID || c[0].dir != tt.dir || !c[0].stop || c[0].drain != tt.drain {
			t.Errorf("stop %s: calls %+v, want dir %q, stop, drain=%v", tt.body, c, tt.dir, tt.drain)
		}
		if op.Operation == nil || op.Operation.Location == "" {
			t.Errorf("stop %s: %+v, want a location", tt.body, op.Operation)
		}
	}
}

func TestTriggerIDIsIdempotent(t *testing.T) {
	f, g := newFake(), newGate()
	f.savepoint = g.savepoint
	ts := serve(t, f, rest.Options{})
	const mine = "abcdefabcdefabcdefabcdefabcdef01"
	body := `{"targetDirectory": "/sp", "triggerId": "` + mine + `"}`
	if id := ts.trigger(t, "/jobs/"+runningID+"/stop", body); id != mine {
		t.Fatalf("request-id %s, want the client's %s", id, mine)
	}
	<-g.started
	if id := ts.trigger(t, "/jobs/"+runningID+"/stop", body); id != mine {
		t.Fatalf("again: request-id %s, want %s", id, mine)
	}
	// Another job may use the same trigger id.
	if id := ts.trigger(t, "/jobs/"+finishedID+"/savepoints", `{"triggerId": "`+mine+`"}`); id != mine {
		t.Fatalf("another job: request-id %s", id)
	}
	<-g.started
	g.release <- nil
	g.release <- nil
	waitFor(t, "COMPLETED", func() bool { return ts.status(t, runningID, mine).Status.ID == "COMPLETED" })
	waitFor(t, "COMPLETED", func() bool { return ts.status(t, finishedID, mine).Status.ID == "COMPLETED" })
	if n := len(f.calls()); n != 2 {
		t.Errorf("%d Savepoint calls, want one per job", n)
	}
}

func TestOldestFinishedTriggersAreDropped(t *testing.T) {
	f := newFake()
	f.savepoint = func(c savepointCall) (string, error) {
		if c.id == runningID { // stays in progress until the server closes
			<-c.ctx.Done()
			return "", c.ctx.Err()
		}
		return "/sp/x", nil
	}
	ts := serve(t, f, rest.Options{MaxTriggers: 2})
	running := ts.trigger(t, "/jobs/"+runningID+"/savepoints", "")
	var done []string
	for range 3 {
		id := ts.trigger(t, "/jobs/"+finishedID+"/savepoints", "")
		waitFor(t, "COMPLETED", func() bool { return ts.status(t, finishedID, id).Status.ID == "COMPLETED" })
		done = append(done, id)
	}
	// Three finished and one running, two kept: the running one and the newest.
	if r := ts.do(t, http.MethodGet, "/jobs/"+finishedID+"/savepoints/"+done[0], ""); r.status != http.StatusNotFound {
		t.Errorf("oldest finished trigger: %d, want 404 (dropped)", r.status)
	}
	if op := ts.status(t, runningID, running); op.Status.ID != "IN_PROGRESS" {
		t.Errorf("running trigger: %+v, want it kept", op)
	}
	ts.status(t, finishedID, done[2])
}

func TestCloseCancelsRunningSavepoints(t *testing.T) {
	f, g := newFake(), newGate()
	f.savepoint = g.savepoint
	srv := rest.NewServer(f, rest.Options{})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	client := hs.Client()
	defer client.CloseIdleConnections()

	resp, err := client.Post(hs.URL+"/jobs/"+runningID+"/savepoints", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c := <-g.started
	if err := srv.Close(); err != nil { // returns once the operation returned
		t.Fatalf("Close: %v", err)
	}
	if c.ctx.Err() == nil {
		t.Error("the operation's context is not canceled after Close")
	}
	resp, err = client.Post(hs.URL+"/jobs/"+runningID+"/stop", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a trigger after Close: %d, want 503", resp.StatusCode)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
