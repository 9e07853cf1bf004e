package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// restLine is the line of `weir run --rest-addr` that says where the API is.
var restLine = regexp.MustCompile(`^job sequence ([0-9a-f]{32}): REST API at http://(\S+)`)

// awaitREST returns the job id and REST address a run prints.
func (p *proc) awaitREST(t *testing.T) (job, addr string) {
	t.Helper()
	for line := range p.lines {
		if m := restLine.FindStringSubmatch(line); m != nil {
			return m[1], m[2]
		}
	}
	code, stderr := p.wait()
	t.Fatalf("weir run ended (exit %d) without a REST address:\n%s", code, stderr)
	return "", ""
}

// Savepoints without a target directory: refused when checkpoints go to a
// temporary directory (the savepoint would vanish with it), written under
// --savepoint-dir when there is one; `weir stop` gets the final savepoint
// from the REST API of a run whose job that very stop ended, and the run
// prints the savepoint it stopped with, which outlives the run.
func TestSavepointDefaultDirectory(t *testing.T) {
	args := []string{"run", "sequence", "--keys", "2", "--records-per-key", "10000000", "--rate", "2000",
		"--checkpoint-interval", "100ms", "--parallelism", "1", "--rest-addr", "127.0.0.1:0"}

	t.Run("refused without one", func(t *testing.T) {
		p := startWeir(t, append(args, "--output", t.TempDir())...)
		job, addr := p.awaitREST(t)
		for _, cmd := range [][]string{{"savepoint", job}, {"stop", job}} {
			r := runWeir(t, append(cmd, "--jobmanager", addr)...)
			if r.code != 1 || !strings.Contains(r.stderr, "no savepoint directory") || !strings.Contains(r.stderr, "--savepoint-dir") {
				t.Errorf("weir %s: exit %d, stderr %q; want 1 and a clear refusal", cmd[0], r.code, r.stderr)
			}
		}
		if r := runWeir(t, "cancel", job, "--jobmanager", addr); r.code != 0 {
			t.Fatalf("cancel: exit %d %q", r.code, r.stderr)
		}
		if code, stderr := p.wait(); code != 1 {
			t.Fatalf("canceled run: exit %d, stderr:\n%s", code, stderr)
		}
	})

	t.Run("under --savepoint-dir", func(t *testing.T) {
		sps := t.TempDir()
		p := startWeir(t, append(args, "--output", t.TempDir(), "--savepoint-dir", sps)...)
		job, addr := p.awaitREST(t)
		sp := runWeir(t, "savepoint", job, "--jobmanager", addr)
		if sp.code != 0 || !strings.HasPrefix(sp.stdout, filepath.Join(sps, "savepoint-")) {
			t.Fatalf("weir savepoint: exit %d, stdout %q, stderr %q; want a savepoint under %s", sp.code, sp.stdout, sp.stderr, sps)
		}
		stop := runWeir(t, "stop", job, "--jobmanager", addr)
		loc := strings.TrimSpace(stop.stdout)
		if stop.code != 0 || !strings.HasPrefix(loc, filepath.Join(sps, "savepoint-")) {
			t.Fatalf("weir stop: exit %d, stdout %q, stderr %q", stop.code, stop.stdout, stop.stderr)
		}
		code, stderr := p.wait()
		if code != 0 || !strings.Contains(stderr, "stopped with a savepoint at "+loc+" (resume it with --from-savepoint "+loc+")") {
			t.Fatalf("run: exit %d, stderr:\n%s\nwant the savepoint %s", code, stderr, loc)
		}
		for _, dir := range []string{strings.TrimSpace(sp.stdout), loc} {
			if _, err := os.Stat(filepath.Join(dir, "_metadata")); err != nil {
				t.Errorf("after the run ended: %v", err)
			}
		}
	})
}

// A snapshot with state of operators the job does not have (a sequence
// checkpoint given to wordcount): the error names
// --allow-non-restored-state, and with it (or -n) the job runs, its
// output that of a fresh run.
func TestAllowNonRestoredState(t *testing.T) {
	cps := t.TempDir()
	p := startWeir(t, "run", "-v", "--checkpoint-interval", "100ms", "--checkpoint-dir", cps, "--parallelism", "1",
		"sequence", "--keys", "2", "--records-per-key", "1000000", "--rate", "2000", "--output", t.TempDir())
	if p.awaitCheckpoints(1) == "" {
		t.Fatal("no checkpoint")
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	_, stderr := p.wait()
	m := retainedLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no retained checkpoint:\n%s", stderr)
	}
	run := func(flag ...string) result {
		return runWeir(t, append(append([]string{"run", "--from-savepoint", m[2]}, flag...), "wordcount", "--input", sample)...)
	}
	r := run()
	if r.code != 1 || !strings.Contains(r.stderr, "count") || !strings.Contains(r.stderr, "--allow-non-restored-state, or -n") {
		t.Fatalf("without -n: exit %d, stderr %q; want 1 and a hint naming the flag", r.code, r.stderr)
	}
	for _, flag := range []string{"-n", "--allow-non-restored-state"} {
		r := run(flag)
		if got, want := sortedLines(r.stdout), expectedLines(t); r.code != 0 || !slices.Equal(got, want) {
			t.Errorf("with %s: exit %d, %d lines of output (want %d), stderr %q", flag, r.code, len(got), len(want), r.stderr)
		}
	}
}
