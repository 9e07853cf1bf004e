package main

import (
	"crypto/tls"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/security"
	"github.com/weir-engine/weir/internal/security/securitytest"
)

// internalTLSFlags are the flags of a process holding files.
func internalTLSFlags(f security.Files) []string {
	return []string{"--internal-tls-cert", f.Cert, "--internal-tls-key", f.Key, "--internal-tls-ca", f.CA}
}

// wordcountParts checks that dir holds n part files whose lines together
// are wordcount's expected output.
func wordcountParts(t *testing.T, dir string, n int) {
	t.Helper()
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(parts) != n {
		t.Fatalf("part files %q (%v), want %d", parts, err, n)
	}
	var all strings.Builder
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	if got, want := sortedLines(all.String()), expectedLines(t); !slices.Equal(got, want) {
		t.Errorf("output (%d lines) differs from %s (%d lines)", len(got), expected, len(want))
	}
}

// taskManagerUp matches the TaskManager's line that says where it listens.
var taskManagerUp = regexp.MustCompile(`taskmanager \S+: RPC at (\S+), data at (\S+), `)

// addrsOf returns the RPC and data addresses a TaskManager printed.
func addrsOf(t *testing.T, p *proc) (rpc, data string) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	m := taskManagerUp.FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("the taskmanager did not say where it listens:\n%s", p.stderr.String())
	}
	return m[1], m[2]
}

// A cluster with mutual TLS between its processes, HTTPS and a bearer
// token on its REST API: TaskManagers with the cluster's certificate run
// wordcount, whose keyBy crosses the TLS data plane; a TaskManager with
// another CA's certificate cannot register, and its certificate reads
// nothing from a TaskManager's data port; a command without the token
// gets 401.
func TestClusterMutualTLSAndToken(t *testing.T) {
	ca := securitytest.NewCA(t, "cluster")
	jmFiles := ca.Issue(t, "jobmanager")
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startCluster(t, t.TempDir(), append(internalTLSFlags(jmFiles),
		"--rest-tls-cert", jmFiles.Cert, "--rest-tls-key", jmFiles.Key, "--rest-token-file", token)...)
	tm1 := c.startTaskManager(t, "1", internalTLSFlags(ca.Issue(t, "tm1"))...)
	c.startTaskManager(t, "1", internalTLSFlags(ca.Issue(t, "tm2"))...)
	env := []string{"WEIR_REST_CA=" + ca.File(), "WEIR_REST_TOKEN=t0ken"}

	out := filepath.Join(t.TempDir(), "counts")
	if r := runWeirEnv(t, env, "run", "wordcount", "--parallelism", "2", "--input", sample, "--output", out, "--jobmanager", c.rest); r.code != 0 {
		t.Fatalf("run: exit %d, stderr %q", r.code, r.stderr)
	}
	wordcountParts(t, out, 2)

	t.Run("no token", func(t *testing.T) {
		r := runWeirEnv(t, env[:1], "list", "--jobmanager", c.rest)
		if r.code != 1 || !strings.Contains(r.stderr, "bearer token") || !strings.Contains(r.stderr, "WEIR_REST_TOKEN") {
			t.Errorf("list without the token: exit %d, stderr %q; want 1 and the 401's reason", r.code, r.stderr)
		}
		if r := runWeirEnv(t, env, "list", "--jobmanager", c.rest); r.code != 0 {
			t.Errorf("list with the token: exit %d, stderr %q", r.code, r.stderr)
		}
	})

	stranger := securitytest.NewCA(t, "stranger").Issue(t, "tm3")
	stranger.CA = ca.File() // it trusts the cluster, the cluster does not trust it
	t.Run("a TaskManager of another CA cannot join", func(t *testing.T) {
		tm := startWeir(t, append([]string{"taskmanager", "--jobmanager", c.rpc, "-v"}, internalTLSFlags(stranger)...)...)
		awaitLines(t, tm, 1, "registration with the jobmanager failed")
		awaitLines(t, c.jm, 1, "grpcrpc: closed a connection: TLS handshake failed")
		if tm.cmd.ProcessState != nil {
			t.Fatal("the refused taskmanager exited")
		}
		r := runWeirEnv(t, env, "run", "wordcount", "--parallelism", "2", "--input", sample, "--output", filepath.Join(t.TempDir(), "again"), "--jobmanager", c.rest)
		if r.code != 0 {
			t.Fatalf("run with a refused TaskManager around: exit %d, stderr %q", r.code, r.stderr)
		}
		tm.mu.Lock()
		ran := strings.Contains(tm.stderr.String(), "registered with the jobmanager")
		tm.mu.Unlock()
		if ran {
			t.Error("the taskmanager of another CA registered")
		}
	})
	t.Run("nor read data", func(t *testing.T) {
		_, data := addrsOf(t, tm1)
		_, cfg, err := stranger.Mutual()
		if err != nil {
			t.Fatal(err)
		}
		// A frame header, as a consumer's first frame would start.
		frame := []byte("\x00\x00\x00\x0c\x01\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00")
		for i, tt := range []struct {
			name string
			dial func() (net.Conn, error)
		}{
			{"another CA's certificate", func() (net.Conn, error) { return tls.Dial("tcp", data, cfg) }},
			{"plain TCP", func() (net.Conn, error) { return net.Dial("tcp", data) }},
		} {
			conn, err := tt.dial()
			if err == nil {
				_, _ = conn.Write(frame)
				b, _ := io.ReadAll(conn)
				conn.Close()
				// The answer is nothing, or a TLS record (an alert): no frame.
				if len(b) > 0 && b[0] != 0x15 && b[0] != 0x16 {
					t.Errorf("%s: read %q from the data port", tt.name, b)
				}
			}
			awaitLines(t, tm1, i+1, "data plane connection closed", "tls")
		}
	})
}

// Without a host, every listening address of the processes is loopback:
// the JobManager's RPC and REST addresses given as ":0" or as ports in the
// configuration file, the TaskManager's RPC and data addresses by default.
func TestProcessesBindLoopbackByDefault(t *testing.T) {
	config := filepath.Join(t.TempDir(), "weir.yaml")
	if err := os.WriteFile(config, []byte("jobmanager.rpc.port: 0\nrest.port: 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--rpc-addr", ":0", "--rest-addr", ":0"},
		{"--config", config},
	} {
		jm := startWeir(t, append([]string{"jobmanager", "--checkpoint-dir", t.TempDir()}, args...)...)
		var rpc, rest string
		for line := range jm.lines {
			if m := jobManagerUp.FindStringSubmatch(line); m != nil {
				rpc, rest = m[1], m[2]
				break
			}
		}
		tm := startWeir(t, "taskmanager", "--jobmanager", rpc)
		awaitLines(t, tm, 1, "taskmanager ", ": RPC at ")
		tmRPC, tmData := addrsOf(t, tm)
		for name, addr := range map[string]string{"jobmanager rpc": rpc, "jobmanager rest": rest, "taskmanager rpc": tmRPC, "taskmanager data": tmData} {
			if host, _, err := net.SplitHostPort(addr); err != nil || host != "127.0.0.1" {
				t.Errorf("%v: %s listens on %q, want 127.0.0.1", args, name, addr)
			}
		}
	}
}
