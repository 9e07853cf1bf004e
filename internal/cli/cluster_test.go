package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/rest"
)

// Job ids of the fake dispatcher.
const (
	jobRunning  = "00000000000000000000000000000001"
	jobFinished = "00000000000000000000000000000002"
	jobBroken   = "00000000000000000000000000000003"
	jobUnknown  = "0123456789abcdef0123456789abcdef"
)

// fakeDispatcher is a rest.Dispatcher of fixed jobs that records what it
// is asked. Savepoints of jobBroken fail; others complete under
// file:///sp, after waitPoll when it is set.
type fakeDispatcher struct {
	jobs []rest.JobInfo
	// waitPoll, when set, is closed by the test server once the client
	// polled a savepoint in progress.
	waitPoll chan struct{}

	mu         sync.Mutex
	canceled   []string
	savepoints []string // "id dir stop drain"
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
	j, err := f.Job(id)
	if err != nil {
		return err
	}
	if j.State == "FINISHED" {
		return fmt.Errorf("job has already ended (FINISHED): %w", rest.ErrJobEnded)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.canceled = append(f.canceled, id)
	return nil
}

func (f *fakeDispatcher) Savepoint(ctx context.Context, id, dir string, stop, drain bool) (string, error) {
	f.mu.Lock()
	f.savepoints = append(f.savepoints, fmt.Sprintf("%s %q stop=%v drain=%v", id, dir, stop, drain))
	f.mu.Unlock()
	if f.waitPoll != nil {
		select {
		case <-f.waitPoll:
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	if id == jobBroken {
		return "", errors.New("writing savepoint: disk full")
	}
	if dir == "" {
		dir = "/default"
	}
	return "file://" + dir + "/savepoint-" + id[:6], nil
}

func newCluster() *fakeDispatcher {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	return &fakeDispatcher{jobs: []rest.JobInfo{
		// Listed oldest first, whatever the dispatcher's order.
		{ID: jobFinished, Name: "wordcount", State: "FINISHED", Start: t0.Add(time.Minute), End: t0.Add(2 * time.Minute)},
		{ID: jobRunning, Name: "sequence with spaces", State: "RUNNING", Start: t0},
		{ID: jobBroken, Name: "broken", State: "RUNNING", Start: t0.Add(time.Hour)},
	}}
}

// jobManagerAt runs a rest.Server of d behind an httptest server; when
// d.waitPoll is set, the first poll of a savepoint's status lets the
// savepoint go on, after its IN_PROGRESS answer went out. It returns the
// address (HOST:PORT).
func jobManagerAt(t *testing.T, d *fakeDispatcher) string {
	t.Helper()
	srv := rest.NewServer(d, rest.Options{})
	var once sync.Once
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if d.waitPoll != nil && r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/savepoints/") {
			once.Do(func() { close(d.waitPoll) })
		}
	}))
	t.Cleanup(func() {
		hs.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("closing the REST server: %v", err)
		}
	})
	return strings.TrimPrefix(hs.URL, "http://")
}

// deadAddr is a loopback address where nothing listens.
func deadAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestClusterCommands(t *testing.T) {
	dead := deadAddr(t)
	for _, tt := range []struct {
		name string
		args []string // "ADDR" is replaced by the JobManager's address
		code int
		// stdout is the whole of stdout; stderr a part of its last line.
		stdout, stderr string
		// got is what the dispatcher was asked for.
		canceled   []string
		savepoints []string
		waitPoll   bool
	}{
		{name: "list", args: []string{"list", "--jobmanager", "ADDR"},
			stdout: jobRunning + "  RUNNING  sequence with spaces\n" + jobFinished + "  FINISHED  wordcount\n" + jobBroken + "  RUNNING  broken\n"},
		{name: "list -m", args: []string{"list", "-m=ADDR"},
			stdout: jobRunning + "  RUNNING  sequence with spaces\n" + jobFinished + "  FINISHED  wordcount\n" + jobBroken + "  RUNNING  broken\n"},
		{name: "cancel", args: []string{"cancel", jobRunning, "--jobmanager", "ADDR"},
			stderr: "requested the cancellation of job " + jobRunning, canceled: []string{jobRunning}},
		{name: "cancel an unknown job", args: []string{"cancel", "--jobmanager=ADDR", jobUnknown},
			code: ExitFailed, stderr: "weir: cancel: job " + jobUnknown + " not found"},
		{name: "cancel an ended job", args: []string{"cancel", jobFinished, "-m", "ADDR"},
			code: ExitFailed, stderr: "weir: cancel: job " + jobFinished + ": job has already ended (FINISHED)"},
		{name: "savepoint", args: []string{"savepoint", jobRunning, "/sp", "--jobmanager", "ADDR"},
			stdout: "file:///sp/savepoint-000000\n", savepoints: []string{jobRunning + ` "/sp" stop=false drain=false`}},
		{name: "savepoint polls while in progress", args: []string{"savepoint", "--jobmanager", "ADDR", jobRunning}, waitPoll: true,
			stdout: "file:///default/savepoint-000000\n", savepoints: []string{jobRunning + ` "" stop=false drain=false`}},
		{name: "savepoint fails", args: []string{"savepoint", jobBroken, "--jobmanager", "ADDR"}, waitPoll: true,
			code: ExitFailed, stderr: "weir: savepoint: savepoint of job " + jobBroken + " failed: writing savepoint: disk full",
			savepoints: []string{jobBroken + ` "" stop=false drain=false`}},
		{name: "savepoint of an unknown job", args: []string{"savepoint", jobUnknown, "/sp", "--jobmanager", "ADDR"},
			code: ExitFailed, stderr: "weir: savepoint: job " + jobUnknown + " not found"},
		{name: "stop", args: []string{"stop", jobRunning, "--jobmanager", "ADDR"},
			stdout: "file:///default/savepoint-000000\n", savepoints: []string{jobRunning + ` "" stop=true drain=false`}},
		{name: "stop with drain", args: []string{"stop", "--drain", "--savepoint-dir", "/sp", jobRunning, "--jobmanager", "ADDR"}, waitPoll: true,
			stdout: "file:///sp/savepoint-000000\n", savepoints: []string{jobRunning + ` "/sp" stop=true drain=true`}},
		{name: "stop fails", args: []string{"stop", jobBroken, "--savepoint-dir=/sp", "--jobmanager", "ADDR"},
			code: ExitFailed, stderr: "weir: stop: savepoint of job " + jobBroken + " failed: writing savepoint: disk full",
			savepoints: []string{jobBroken + ` "/sp" stop=true drain=false`}},
		{name: "stop an unknown job", args: []string{"stop", jobUnknown, "--jobmanager", "ADDR"},
			code: ExitFailed, stderr: "weir: stop: job " + jobUnknown + " not found"},

		// No JobManager at the address.
		{name: "list unreachable", args: []string{"list", "--jobmanager", dead},
			code: ExitFailed, stderr: "weir: no JobManager at " + dead + ": dial tcp " + dead + ": connect: connection refused"},
		{name: "cancel unreachable", args: []string{"cancel", jobRunning, "--jobmanager", dead},
			code: ExitFailed, stderr: "weir: no JobManager at " + dead + ": "},
		{name: "savepoint unreachable", args: []string{"savepoint", jobRunning, "--jobmanager", dead},
			code: ExitFailed, stderr: "weir: no JobManager at " + dead + ": "},
		{name: "stop unreachable", args: []string{"stop", jobRunning, "--jobmanager", dead},
			code: ExitFailed, stderr: "weir: no JobManager at " + dead + ": "},

		// Usage errors.
		{name: "cancel without a job", args: []string{"cancel"},
			code: ExitUsage, stderr: "weir: cancel: missing JOBID (usage: weir cancel JOBID"},
		{name: "cancel a bad job id", args: []string{"cancel", "1234", "--jobmanager", "ADDR"},
			code: ExitUsage, stderr: `weir: cancel: invalid job id "1234": want 32 lower-case hex characters`},
		{name: "cancel an upper-case job id", args: []string{"cancel", strings.ToUpper(jobUnknown)},
			code: ExitUsage, stderr: "invalid job id"},
		{name: "cancel two jobs", args: []string{"cancel", jobRunning, jobFinished},
			code: ExitUsage, stderr: `weir: cancel: unexpected argument "` + jobFinished + `"`},
		{name: "savepoint without a job", args: []string{"savepoint"},
			code: ExitUsage, stderr: "weir: savepoint: missing JOBID"},
		{name: "savepoint with too many arguments", args: []string{"savepoint", jobRunning, "/a", "/b"},
			code: ExitUsage, stderr: `weir: savepoint: unexpected argument "/b"`},
		{name: "savepoint a bad job id", args: []string{"savepoint", "nojob", "/sp"},
			code: ExitUsage, stderr: `weir: savepoint: invalid job id "nojob"`},
		{name: "stop without a job", args: []string{"stop", "--drain"},
			code: ExitUsage, stderr: "weir: stop: missing JOBID"},
		{name: "stop a bad job id", args: []string{"stop", "x"},
			code: ExitUsage, stderr: `weir: stop: invalid job id "x"`},
		{name: "stop with an empty directory", args: []string{"stop", jobRunning, "--savepoint-dir="},
			code: ExitUsage, stderr: `weir: stop: invalid value "" for --savepoint-dir`},
		{name: "stop with a bad flag", args: []string{"stop", jobRunning, "--drian"},
			code: ExitUsage, stderr: "weir: unknown flag: --drian"},
		{name: "stop --drain=maybe", args: []string{"stop", jobRunning, "--drain=maybe"},
			code: ExitUsage, stderr: `invalid argument "maybe" for "--drain"`},
		{name: "list with an argument", args: []string{"list", "all"},
			code: ExitUsage, stderr: `weir: list: unexpected argument "all"`},
		{name: "list without a port", args: []string{"list", "--jobmanager", "localhost"},
			code: ExitUsage, stderr: `weir: list: invalid value "localhost" for --jobmanager: want HOST:PORT`},
		{name: "list with a URL", args: []string{"list", "--jobmanager", "http://localhost:8081"},
			code: ExitUsage, stderr: "want HOST:PORT without a scheme"},
		{name: "list with a bad port", args: []string{"list", "--jobmanager", "localhost:99999"},
			code: ExitUsage, stderr: `invalid port "99999": want a number from 1 to 65535`},
		{name: "list with port 0", args: []string{"list", "--jobmanager", "127.0.0.1:0"},
			code: ExitUsage, stderr: `invalid port "0"`},
		{name: "--jobmanager without a value", args: []string{"list", "--jobmanager"},
			code: ExitUsage, stderr: "flag needs an argument: --jobmanager"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newCluster()
			if tt.waitPoll {
				d.waitPoll = make(chan struct{})
			}
			addr := jobManagerAt(t, d)
			args := slices.Clone(tt.args)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "ADDR", addr)
			}
			r := run(context.Background(), newFake(), args...)
			if r.code != tt.code || r.stdout != tt.stdout {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q", r.code, r.stdout, r.stderr, tt.code, tt.stdout)
			}
			if tt.code != ExitOK {
				checkFailure(t, r, tt.code, tt.stderr)
			} else if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr %q, want %q", r.stderr, tt.stderr)
			}
			if strings.Count(r.stderr, "\n") > 1 {
				t.Errorf("stderr %q: more than one line", r.stderr)
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if !slices.Equal(d.canceled, tt.canceled) || !slices.Equal(d.savepoints, tt.savepoints) {
				t.Errorf("dispatcher asked to cancel %q and for savepoints %q; want %q and %q", d.canceled, d.savepoints, tt.canceled, tt.savepoints)
			}
		})
	}
}

func TestListNoJobs(t *testing.T) {
	addr := jobManagerAt(t, &fakeDispatcher{})
	if r := run(context.Background(), newFake(), "list", "--jobmanager", addr); r.code != ExitOK || r.stdout != "" || r.stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q: want 0 and nothing", r.code, r.stdout, r.stderr)
	}
}

func TestDefaultJobManager(t *testing.T) {
	// Nothing may listen on 8081 in a test; when something does, the
	// answer still proves the default address was used.
	r := run(context.Background(), newFake(), "list")
	if r.code == ExitFailed && !strings.Contains(r.stderr, "127.0.0.1:8081") {
		t.Errorf("stderr %q: want the default address 127.0.0.1:8081", r.stderr)
	}
}

func TestNotAJobManager(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "<html>nope</html>", http.StatusNotFound)
	}))
	defer hs.Close()
	r := run(context.Background(), newFake(), "list", "-m", strings.TrimPrefix(hs.URL, "http://"))
	checkFailure(t, r, ExitFailed, "list: unexpected answer from 127.0.0.1:")
	if !strings.Contains(r.stderr, "404 Not Found (is it a Weir JobManager's REST address?)") {
		t.Errorf("stderr %q", r.stderr)
	}
}

func TestSavepointInterrupted(t *testing.T) {
	d := newCluster()
	d.waitPoll = make(chan struct{}) // never closed: the savepoint hangs
	srv := rest.NewServer(d, rest.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if r.Method == http.MethodGet {
			cancel() // Ctrl-C while the command waits
		}
	}))
	defer func() {
		hs.Close()
		srv.Close()
	}()
	r := run(ctx, newFake(), "savepoint", jobRunning, "-m", strings.TrimPrefix(hs.URL, "http://"))
	checkFailure(t, r, ExitInterrupted, "savepoint: gave up waiting (the operation goes on; trigger id ")
}

func TestRestAddrFlag(t *testing.T) {
	for _, tt := range []struct {
		value, want string
	}{
		{"127.0.0.1:8081", "127.0.0.1:8081"},
		{":0", ":0"},
		{"localhost:9000", "localhost:9000"},
		{"[::1]:8081", "[::1]:8081"},
	} {
		ra, err := ParseRunArgs([]string{"wc", "--rest-addr", tt.value})
		if err != nil || ra.Engine.RestAddr != tt.want || len(ra.JobArgs) != 0 {
			t.Errorf("--rest-addr %s: %+v, %v", tt.value, ra, err)
		}
	}
	for _, tt := range []struct {
		value, want string
	}{
		{"", `invalid value "" for --rest-addr: want HOST:PORT`},
		{"8081", `invalid value "8081" for --rest-addr: want HOST:PORT`},
		{"localhost:http", `invalid port "http"`},
		{"localhost:-1", `invalid port "-1": want a number from 0 to 65535`},
		{"http://x:1", "without a scheme"},
		{"a b:1", `invalid host "a b"`},
	} {
		_, err := ParseRunArgs([]string{"wc", "--rest-addr=" + tt.value})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--rest-addr=%s: %v, want %q", tt.value, err, tt.want)
		}
	}
	f := newFake()
	if r := run(context.Background(), f, "run", "wordcount", "--rest-addr", ":0"); r.code != ExitOK || f.got[0].Engine.RestAddr != ":0" {
		t.Errorf("run --rest-addr: exit %d, request %+v", r.code, f.got)
	}
	r := run(context.Background(), newFake(), "run", "wordcount", "--rest-addr", "nope")
	checkFailure(t, r, ExitUsage, `run: invalid value "nope" for --rest-addr: want HOST:PORT`)
}

func TestClusterCommandsHelp(t *testing.T) {
	for _, cmd := range []string{"list", "cancel", "savepoint", "stop"} {
		r := run(context.Background(), newFake(), cmd, "--help")
		if r.code != ExitOK || !strings.Contains(r.stdout, "--jobmanager") || !strings.Contains(r.stdout, "127.0.0.1:8081") {
			t.Errorf("%s --help: exit %d, stdout %q", cmd, r.code, r.stdout)
		}
	}
}
