package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/rest/api"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Job ids of the fake dispatcher's jobs.
const (
	runningID  = "00000000000000000000000000000001"
	finishedID = "00000000000000000000000000000002"
	failedID   = "00000000000000000000000000000003"
	canceledID = "00000000000000000000000000000004"
	createdID  = "00000000000000000000000000000005"
	unknownID  = "0123456789abcdef0123456789abcdef"
)

var (
	t0  = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	now = t0.Add(90 * time.Second)
)

// savepointCall is one call of Dispatcher.Savepoint.
type savepointCall struct {
	ctx         context.Context
	id, dir     string
	stop, drain bool
}

// fakeDispatcher serves fixed jobs and records the actions on them. Its
// savepoint func answers Savepoint (default: at once, under /sp).
type fakeDispatcher struct {
	jobs      []rest.JobInfo
	cancelErr error
	savepoint func(c savepointCall) (string, error)

	mu         sync.Mutex
	canceled   []string
	savepoints []savepointCall
}

func (f *fakeDispatcher) Jobs() []rest.JobInfo { return slices.Clone(f.jobs) }

func (f *fakeDispatcher) Job(id string) (rest.JobInfo, error) {
	for _, j := range f.jobs {
		if j.ID == id {
			return j, nil
		}
	}
	return rest.JobInfo{}, rest.ErrNotFound
}

func (f *fakeDispatcher) Cancel(id string) error {
	if _, err := f.Job(id); err != nil {
		return err
	}
	f.mu.Lock()
	f.canceled = append(f.canceled, id)
	f.mu.Unlock()
	return f.cancelErr
}

func (f *fakeDispatcher) Savepoint(ctx context.Context, id, dir string, stop, drain bool) (string, error) {
	c := savepointCall{ctx: ctx, id: id, dir: dir, stop: stop, drain: drain}
	f.mu.Lock()
	f.savepoints = append(f.savepoints, c)
	f.mu.Unlock()
	if f.savepoint != nil {
		return f.savepoint(c)
	}
	return "/sp/savepoint-" + id[:6], nil
}

func (f *fakeDispatcher) calls() []savepointCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.savepoints)
}

// newFake returns a dispatcher with a job in each interesting state.
func newFake() *fakeDispatcher {
	return &fakeDispatcher{jobs: []rest.JobInfo{
		{ID: runningID, Name: "sequence", State: "RUNNING", Start: t0,
			Vertices: []rest.VertexInfo{
				{ID: 1, Name: "Source: numbers", Parallelism: 2, RecordsOut: 100},
				{ID: 2, Name: "count -> Sink: file", Parallelism: 3, RecordsIn: 100, RecordsOut: 7, Status: "FINISHED"},
			},
			Checkpoints: checkpoint.Stats{Completed: 4, Failed: 1, Latest: "file:///cp/chk-5", LatestID: 5,
				LatestDuration: 1500 * time.Millisecond, LatestSize: 4096, LatestUploaded: 1024},
			SchedulerState: "Executing",
			Rescales:       []rest.RescaleInfo{{From: map[int]int{1: 1, 2: 1}, To: map[int]int{1: 2, 2: 3}, Reason: "parallelism can increase", Time: t0.Add(time.Minute), Duration: 1500 * time.Millisecond}}},
		{ID: finishedID, Name: "wordcount", State: "FINISHED", Start: t0, End: t0.Add(1500 * time.Millisecond),
			Vertices: []rest.VertexInfo{{ID: 1, Name: "Source", Parallelism: 1}}},
		{ID: failedID, Name: "broken", State: "FAILED", Start: t0, End: t0.Add(time.Second),
			Failure: "operator \"count\" (subtask 1/2): boom"},
		{ID: canceledID, Name: "stopped", State: "CANCELED", Start: t0, End: t0.Add(2 * time.Second)},
		{ID: createdID, Name: "waiting", State: "CREATED"},
	}}
}

// testServer is a Server serving on a loopback listener, with a client.
type testServer struct {
	srv    *rest.Server
	base   string
	client *http.Client
}

// serve starts a server of d on 127.0.0.1 with a fake clock at now; the
// test's cleanup shuts it down and checks that Serve returned nil.
func serve(t *testing.T, d rest.Dispatcher, opts rest.Options) *testServer {
	t.Helper()
	if opts.Clock == nil {
		opts.Clock = clock.NewFake(now)
	}
	srv := rest.NewServer(d, opts)
	ln, err := rest.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	ts := &testServer{srv: srv, base: "http://" + ln.Addr().String(), client: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		ts.client.CloseIdleConnections()
	})
	return ts
}

// response is an answer of the server.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request with an optional body (a string sent as it is).
func (ts *testServer) do(t *testing.T, method, path, body string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = bytes.NewBufferString(body)
	}
	req, err := http.NewRequest(method, ts.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, b}
}

// get sends GET path, wants 200 and decodes the body into v.
func (ts *testServer) get(t *testing.T, path string, v any) {
	t.Helper()
	r := ts.do(t, http.MethodGet, path, "")
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	decode(t, r.body, v)
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// hasKeys checks that the JSON object b has the keys: decoding into a
// struct alone would not notice a missing field.
func hasKeys(t *testing.T, what string, b []byte, keys ...string) {
	t.Helper()
	var m map[string]json.RawMessage
	decode(t, b, &m)
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: no field %q in %s", what, k, b)
		}
	}
}

// errorsOf decodes Flink's {"errors": [...]}.
func errorsOf(t *testing.T, r response) []string {
	t.Helper()
	var e api.ErrorResponse
	if err := json.Unmarshal(r.body, &e); err != nil || len(e.Errors) == 0 {
		t.Fatalf("body %s: want {\"errors\": [...]} (%v)", r.body, err)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=UTF-8" {
		t.Errorf("Content-Type %q", ct)
	}
	return e.Errors
}

// waitFor polls cond (a real server runs the operations in goroutines).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

var errBoom = errors.New("disk full")
