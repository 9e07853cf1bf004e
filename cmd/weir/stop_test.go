package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/jobs/sequence"
)

// `weir stop --drain` through the REST API of a running `weir run`, as a
// script would do it: the savepoint's location is printed, the job ends
// with exit 0, and everything it processed is committed exactly once.
func TestStopWithDrainThroughREST(t *testing.T) {
	out, savepoints := t.TempDir(), t.TempDir()
	run := exec.Command(weirBin, "run", "sequence", "--keys", "4", "--records-per-key", "1000000", "--rate", "20000",
		"--checkpoint-interval", "200ms", "--parallelism", "2", "--output", out, "--rest-addr", "127.0.0.1:0")
	stderr, err := run.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	run.Stdout = &stdout
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer run.Process.Kill()
	// The first line says where the REST API listens.
	lines := bufio.NewScanner(stderr)
	if !lines.Scan() {
		t.Fatal("weir run printed nothing")
	}
	m := regexp.MustCompile(`job sequence ([0-9a-f]{32}): REST API at http://(\S+)`).FindStringSubmatch(lines.Text())
	if m == nil {
		t.Fatalf("first line %q does not give the REST address", lines.Text())
	}
	job, addr := m[1], m[2]
	// Buffered: when the test fails before it reads the tail, the reader
	// still ends once the deferred Kill closes the pipe.
	rest := make(chan string, 1)
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		rest <- b.String()
	}()

	list := runWeir(t, "list", "--jobmanager", addr)
	if list.code != 0 || !strings.Contains(list.stdout, job+"  RUNNING  sequence") {
		t.Fatalf("weir list: exit %d, %q %q", list.code, list.stdout, list.stderr)
	}
	time.Sleep(300 * time.Millisecond) // let some data through
	stop := runWeir(t, "stop", job, "--drain", "--savepoint-dir", savepoints, "--jobmanager", addr)
	if stop.code != 0 || !strings.HasPrefix(strings.TrimSpace(stop.stdout), filepath.Join(savepoints, "savepoint-")) {
		t.Fatalf("weir stop: exit %d, stdout %q, stderr %q", stop.code, stop.stdout, stop.stderr)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(stop.stdout), "_metadata")); err != nil {
		t.Fatalf("the savepoint has no metadata: %v", err)
	}
	err = run.Wait()
	tail := <-rest
	if err != nil {
		t.Fatalf("weir run after stop: %v; stderr %q", err, tail)
	}
	committed, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := sequence.VerifyPrefix(committed); err != nil || n == 0 {
		t.Fatalf("%d lines committed: %v", n, err)
	}
}
