package main

import (
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/jobs/sequence"
)

// garbage is what a test throws at a port: random bytes of several
// sizes, and truncated openings of each protocol the processes speak (a
// data-plane frame, HTTP/2, HTTP/1.1, TLS), each sent on a connection of
// its own whose writing side is then closed.
func garbage(seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	var out [][]byte
	for _, n := range []int{1, 15, 16, 100, 4096} {
		out = append(out, random(n))
	}
	// A data-plane frame header that claims 1000 bytes of payload, with
	// ten sent; one with a bad checksum; a partition request cut short.
	hdr := make([]byte, 16)
	binary.BigEndian.PutUint32(hdr, 12+1000)
	hdr[4], hdr[5] = 1, 1
	out = append(out, append(hdr, random(10)...))
	bad := append([]byte(nil), hdr...)
	binary.BigEndian.PutUint32(bad, 12+4)
	out = append(out, append(bad, random(4)...), hdr[:9])
	out = append(out,
		append([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), random(64)...), // HTTP/2, then garbage frames
		[]byte("PRI * HTTP/2.0\r\n"),
		[]byte("POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"job\":"),
		[]byte("GET /jobs/overview HTTP/1.1\r\nHo"),
		append([]byte{0x16, 0x03, 0x01, 0x02, 0x00}, random(40)...), // a TLS record cut short
	)
	return out
}

// throwGarbage sends each piece of garbage to addr on a connection of its
// own and reads until the process closes it; a process that kept one
// open for 10 s fails the test.
func throwGarbage(t *testing.T, addr string, pieces [][]byte) {
	t.Helper()
	for i, b := range pieces {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("garbage %d to %s: %v", i, addr, err)
		}
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second)) // a bound, not a wait
		_, _ = conn.Write(b)
		_ = conn.(*net.TCPConn).CloseWrite()
		if _, err := io.Copy(io.Discard, conn); err != nil && strings.Contains(err.Error(), "timeout") {
			t.Errorf("garbage %d (%q...) to %s: the connection stayed open", i, b[:min(len(b), 16)], addr)
		}
		conn.Close()
	}
}

// Garbage thrown at every port of a running cluster (the JobManager's RPC
// and REST ports, each TaskManager's RPC and data ports) while the
// sequence job runs with checkpoints and the exactly-once file sink: each
// such connection is closed, the RPC and data ports say so in the log,
// no process dies, the job's committed output is exact, and the
// processes still answer.
func TestClusterSurvivesGarbage(t *testing.T) {
	cfg := sequence.Config{Keys: 4, RecordsPerKey: 4000, Rate: 8000}
	out := t.TempDir()
	c := startCluster(t, t.TempDir())
	tms := []*proc{c.startTaskManager(t, "1"), c.startTaskManager(t, "1")}
	run := startWeir(t, "run", "--parallelism", "2", "--checkpoint-interval", "100ms", "--jobmanager", c.rest,
		"sequence", "--keys", strconv.Itoa(cfg.Keys), "--records-per-key", strconv.FormatInt(cfg.RecordsPerKey, 10),
		"--rate", "8000", "--output", out)
	if loc := c.jm.awaitCheckpoints(1); loc == "" {
		_, stderr := c.jm.wait()
		t.Fatalf("the jobmanager ended before a checkpoint: %s", stderr)
	}
	ports := []string{c.rpc, c.rest}
	for _, tm := range tms {
		rpc, data := addrsOf(t, tm)
		ports = append(ports, rpc, data)
	}
	for i, addr := range ports {
		throwGarbage(t, addr, garbage(uint64(i)))
	}
	awaitLines(t, c.jm, 1, "grpcrpc: closed a connection")
	for _, tm := range tms {
		awaitLines(t, tm, 1, "grpcrpc: closed a connection")
		awaitLines(t, tm, 1, "data plane connection closed")
	}

	if code, stderr := run.wait(); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("after garbage: %v", err)
	}
	for i, p := range append([]*proc{c.jm}, tms...) {
		select {
		case <-p.done:
			_, stderr := p.wait()
			t.Fatalf("process %d ended: %s", i, stderr)
		default:
		}
	}
	if r := runWeir(t, "list", "--jobmanager", c.rest); r.code != 0 || !strings.Contains(r.stdout, "FINISHED") {
		t.Errorf("list after garbage: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// The TaskManagers still run jobs: their ports serve a new one.
	if r := runWeir(t, "run", "wordcount", "--parallelism", "2", "--input", sample, "--output", t.TempDir(), "--jobmanager", c.rest); r.code != 0 {
		t.Errorf("wordcount after garbage: exit %d, stderr %q", r.code, r.stderr)
	}
}
