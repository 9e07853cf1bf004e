package rest_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest"
)

func TestStartAndClose(t *testing.T) {
	srv := rest.NewServer(newFake(), rest.Options{})
	addr, err := srv.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Errorf("bound address %q, want 127.0.0.1 and the port picked", addr)
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Get("http://" + addr + "/overview")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /overview: %d", resp.StatusCode)
	}
	if _, err := srv.Start("127.0.0.1:0"); err == nil {
		t.Error("a second Start succeeded")
	}
	if err := srv.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	client.CloseIdleConnections()
	if _, err := client.Get("http://" + addr + "/overview"); err == nil {
		t.Error("the server answers after Close")
	}
	if _, err := srv.Start("127.0.0.1:0"); !errors.Is(err, rest.ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
}

func TestServeReturnsWhenItsContextEnds(t *testing.T) {
	f, g := newFake(), newGate()
	f.savepoint = g.savepoint
	srv := rest.NewServer(f, rest.Options{})
	ln, err := rest.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	resp, err := client.Post("http://"+ln.Addr().String()+"/jobs/"+runningID+"/savepoints", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c := <-g.started
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v, want nil after its context ended", err)
	}
	if c.ctx.Err() == nil {
		t.Error("Serve returned with a savepoint operation still running")
	}
	if err := srv.Serve(context.Background(), mustListen(t)); !errors.Is(err, rest.ErrClosed) {
		t.Errorf("Serve after shutdown: %v, want ErrClosed", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close after Serve: %v", err)
	}
}

func TestCloseStopsServe(t *testing.T) {
	srv := rest.NewServer(newFake(), rest.Options{})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), mustListen(t)) }()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil && !errors.Is(err, rest.ErrClosed) {
		t.Errorf("Serve: %v", err)
	}
}

func TestServeFailsWithItsListener(t *testing.T) {
	srv := rest.NewServer(newFake(), rest.Options{})
	ln := mustListen(t)
	ln.Close()
	if err := srv.Serve(context.Background(), ln); err == nil || !strings.Contains(err.Error(), "rest: serving") {
		t.Errorf("Serve on a closed listener: %v", err)
	}
}

func TestListen(t *testing.T) {
	ln, err := rest.Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); host != "127.0.0.1" {
		t.Errorf("Listen(\":0\") bound %s, want 127.0.0.1", ln.Addr())
	}
	for _, addr := range []string{"", "localhost", "127.0.0.1:http-ish", "127.0.0.1:99999"} {
		if ln, err := rest.Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) succeeded", addr)
		}
	}
}

func TestNewServerPanicsOnBugs(t *testing.T) {
	for name, f := range map[string]func(){
		"nil dispatcher":   func() { rest.NewServer(nil, rest.Options{}) },
		"negative timeout": func() { rest.NewServer(newFake(), rest.Options{ShutdownTimeout: -1}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func mustListen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := rest.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// FuzzHandler sends arbitrary requests: the server answers each with
// JSON and never fails with a 500 (which would mean a panic or a bug,
// since the fake dispatcher does not fail).
func FuzzHandler(f *testing.F) {
	for _, seed := range []struct{ method, path, body string }{
		{"GET", "/jobs/overview", ""},
		{"GET", "/jobs/" + runningID, ""},
		{"PATCH", "/jobs/" + runningID + "?mode=cancel", ""},
		{"POST", "/jobs/" + runningID + "/savepoints", `{"target-directory":"/x","cancel-job":true}`},
		{"POST", "/jobs/" + runningID + "/stop", `{"targetDirectory":"/x","drain":true,"triggerId":"` + unknownID + `"}`},
		{"GET", "/jobs/" + runningID + "/savepoints/" + unknownID, ""},
		{"POST", "/v1/jobs/" + runningID + "/stop", `{"drain":[1,2,{}]}`},
		{"GET", "/jobs/%zz", ""},
		{"PUT", "//jobs//", "\x00\xff"},
	} {
		f.Add(seed.method, seed.path, seed.body)
	}
	srv := rest.NewServer(newFake(), rest.Options{})
	defer srv.Close()
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, method, path, body string) {
		req, err := http.NewRequest(method, "http://weir"+path, strings.NewReader(body))
		if err != nil {
			return // not a request a client can send
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%s %q %q: %d %s", method, path, body, w.Code, w.Body)
		}
		if w.Code < 300 || w.Code >= 400 { // ServeMux's redirects of unclean paths are plain
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("%s %q: %d with Content-Type %q", method, path, w.Code, ct)
			}
		}
	})
}
