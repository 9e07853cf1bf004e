package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// summaryLine is the one line `weir run` writes on stderr for a finished
// job when stderr is not a terminal, as before the progress display.
var summaryLine = regexp.MustCompile(`^job nexmark [0-9a-f]{32} finished in \S+, \d+ records exchanged between tasks\n$`)

// In a terminal (a pty from util-linux's script), `weir run` of a bounded
// job redraws a progress line and ends with the table of its vertices and
// the summary line; with stderr not a terminal the output is the summary
// line alone. The generator's rate limit makes the job last at least two
// seconds, longer than the time between two progress lines and than the
// interval of the subtasks' counters: the line shows the percentage of
// the --events the source emitted. q7 keys its bids, so records cross
// between tasks while it runs (q1's results are counted where they are
// made and cross only at the end).
func TestRunProgressInTerminal(t *testing.T) {
	args := []string{"run", "nexmark", "--query", "q7", "--events", "2000", "--rate", "1000", "--parallelism", "2"}
	r := runWeir(t, args...)
	if r.code != 0 || !summaryLine.MatchString(r.stderr) {
		t.Errorf("not a terminal: exit %d, stderr %q; want only the summary line", r.code, r.stderr)
	}

	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) to run weir in a pty")
	}
	cmdline := weirBin + " " + strings.Join(args, " ") + " >/dev/null"
	out, err := exec.Command(script, "-qec", cmdline, "/dev/null").Output()
	if err != nil {
		t.Fatalf("script -qec %q: %v, output %q", cmdline, err, out)
	}
	tty := strings.ReplaceAll(string(out), "\r\n", "\n")
	for _, want := range []*regexp.Regexp{
		// The Nexmark source knows its --events: a percentage done, once
		// the subtasks' counters reached the JobMaster (every second),
		// and before the end of the two seconds of input.
		regexp.MustCompile(`\r\x1b\[K *(?:[1-9]\d?\.\d|0\.[1-9])%  [1-9][\d,]* records  [\d,]+/s  elapsed \S+`),
		regexp.MustCompile(`\r\x1b\[Kvertex +parallelism +records in +records out\n`),
		regexp.MustCompile(`\nnexmark-count +1 +[\d,]+ +0\n`),
		regexp.MustCompile(`\nduration \S+, 0 checkpoints\njob nexmark [0-9a-f]{32} finished in `),
	} {
		if !want.MatchString(tty) {
			t.Errorf("terminal output %q does not match %v", tty, want)
		}
	}
}
