package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir/jobs/sequence"
)

// seqCommand is one `weir run sequence` command line, the same for every
// run of a test, as a user would repeat it.
func seqCommand(cfg sequence.Config, cps string, sink ...string) []string {
	args := []string{"run", "-v", "--parallelism", "2", "--checkpoint-interval", "100ms", "--checkpoint-dir", cps,
		"sequence", "--keys", strconv.Itoa(cfg.Keys), "--records-per-key", strconv.FormatInt(cfg.RecordsPerKey, 10),
		"--rate", strconv.FormatFloat(cfg.Rate, 'f', -1, 64)}
	return append(args, sink...)
}

// retainedLine is what an interrupted run prints about its checkpoint.
var retainedLine = regexp.MustCompile(`interrupted by (SIGINT|SIGTERM); its checkpoint (\S+) is retained: run the same command again to resume from it`)

// SIGINT and SIGTERM end `weir run` with 130 and 143, print where the
// retained checkpoint is, and the same command run again resumes from
// exactly that checkpoint (saying so): the output of all runs together is
// exactly-once.
func TestInterruptedRunResumesWithTheSameCommand(t *testing.T) {
	cfg := sequence.Config{Keys: 4, RecordsPerKey: 2000, Rate: 8000}
	out, cps := t.TempDir(), t.TempDir()
	cmd := seqCommand(cfg, cps, "--output", out)
	for _, tt := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		p := startWeir(t, cmd...)
		if p.awaitCheckpoints(2) == "" {
			code, stderr := p.wait()
			t.Fatalf("run ended (exit %d) before two checkpoints: %s", code, stderr)
		}
		if err := p.cmd.Process.Signal(tt.sig); err != nil {
			t.Fatal(err)
		}
		code, stderr := p.wait()
		if code != tt.code {
			t.Fatalf("%s: exit %d, want %d; stderr:\n%s", tt.name, code, tt.code, stderr)
		}
		m := retainedLine.FindStringSubmatch(stderr)
		if m == nil || m[1] != tt.name {
			t.Fatalf("%s: stderr does not say which checkpoint is retained:\n%s", tt.name, stderr)
		}
		retained := m[2]
		if !strings.HasPrefix(retained, cps+"/") {
			t.Fatalf("retained checkpoint %s is not under %s", retained, cps)
		}
		if _, err := os.Stat(filepath.Join(retained, "_metadata")); err != nil {
			t.Fatalf("the retained checkpoint has no metadata: %v", err)
		}
		if !strings.HasSuffix(strings.TrimSpace(stderr), "canceled: interrupted by "+tt.name) {
			t.Errorf("%s: last line of stderr %q, want the one-line reason", tt.name, stderr)
		}
		// The next run (of this loop, or the last one) must resume from it.
		next := startWeir(t, cmd...)
		line := <-next.lines
		if strings.HasPrefix(line, "weir: Go runtime") {
			// The process's own set-up (--verbose) comes before the job's.
			line = <-next.lines
		}
		if want := "resuming job sequence from " + retained + " "; !strings.HasPrefix(line, want) {
			t.Fatalf("after %s, the next run's first line is %q, want %q...", tt.name, line, want)
		}
		if err := next.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		next.wait()
	}
	// The last run was killed right after it started resuming: once more,
	// to the end.
	r := runWeir(t, cmd...)
	if r.code != 0 || !strings.Contains(r.stderr, "resuming job sequence from "+cps+"/") {
		t.Fatalf("final run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	verifyFiles(t, cfg, out)
	// Run again after it finished: nothing to resume, and it says why.
	again := runWeir(t, append(cmd[:len(cmd):len(cmd)], "--records-per-key", "0")...)
	if again.code != 0 || !strings.Contains(again.stderr, "starting job sequence from scratch: its last run ("+cps+"/") || !strings.Contains(again.stderr, ") finished") {
		t.Fatalf("a run after a finished one: exit %d; stderr:\n%s", again.code, again.stderr)
	}
}

// --fresh starts from scratch although a resumable checkpoint is there.
func TestFreshIgnoresTheUnfinishedRun(t *testing.T) {
	cfg := sequence.Config{Keys: 2, RecordsPerKey: 100000, Rate: 4000}
	cps := t.TempDir()
	p := startWeir(t, seqCommand(cfg, cps, "--output", t.TempDir())...)
	if p.awaitCheckpoints(1) == "" {
		t.Fatal("the first run ended before its first checkpoint")
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait()
	r := runWeir(t, append(seqCommand(sequence.Config{Keys: 2, RecordsPerKey: 10, Rate: 1000}, cps, "--output", t.TempDir()), "--fresh")...)
	if r.code != 0 || strings.Contains(r.stderr, "resuming") {
		t.Fatalf("--fresh: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// verifyFiles checks the committed output of the file sink.
func verifyFiles(t *testing.T, cfg sequence.Config, out string) {
	t.Helper()
	lines, err := sequence.CommittedLines(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("output of all runs together is not exactly-once: %v", err)
	}
	// The last run finished: it committed or discarded every pending file
	// of the runs it resumed.
	es, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("hidden file left after the last run finished: %s", e.Name())
		}
	}
}

// A run killed before its first checkpoint committed nothing, so the same
// command starts over; the rerun goes on in its lineage and, when it
// finishes, removes the pending files the killed run left.
func TestRerunCleansUpARunKilledBeforeItsFirstCheckpoint(t *testing.T) {
	cfg := sequence.Config{Keys: 4, RecordsPerKey: 500, Rate: 4000}
	out, cps := t.TempDir(), t.TempDir()
	cmd := seqCommand(cfg, cps, "--output", out)
	for i, a := range cmd {
		if a == "--checkpoint-interval" {
			cmd[i+1] = "1h" // only the final checkpoint
		}
	}
	p := startWeir(t, cmd...)
	for hidden := false; !hidden; {
		es, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			hidden = hidden || strings.HasPrefix(e.Name(), ".part-")
		}
		select {
		case <-p.done:
			t.Fatal("the run ended before it opened a part file")
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait()
	r := runWeir(t, cmd...)
	if r.code != 0 || !strings.Contains(r.stderr, "completed no checkpoint") {
		t.Fatalf("rerun: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	verifyFiles(t, cfg, out)
}
