package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// `weir run JOB --help` prints the job's flags and the engine's on stdout,
// exit 0, nothing on stderr.
func TestJobHelpOnStdout(t *testing.T) {
	for _, args := range [][]string{{"run", "sequence", "--help"}, {"run", "-h", "wordcount"}} {
		r := runWeir(t, args...)
		if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Usage of ") || !strings.Contains(r.stdout, "--checkpoint-dir DIR") {
			t.Errorf("weir %q: exit %d, stdout %q, stderr %q; want 0 and both helps on stdout", args, r.code, r.stdout, r.stderr)
		}
	}
}

// An empty input and a binary one get a warning line each on stderr; the
// job still runs.
func TestWordcountWarnsOfEmptyAndBinaryInput(t *testing.T) {
	dir := t.TempDir()
	empty, binary := filepath.Join(dir, "empty.txt"), filepath.Join(dir, "prog")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary, []byte("\x7fELF\x02\x01\x01\x00 hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runWeir(t, "run", "wordcount", "--input", empty, binary, "--quiet")
	want := "weir: warning: wordcount: input " + empty + " is empty: it has no words to count\n" +
		"weir: warning: wordcount: input " + binary + " looks binary (a NUL byte at offset 7): its words are likely garbage\n"
	if r.code != 0 || r.stderr != want {
		t.Errorf("exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
}

// A sequence run that fails once prints the restart and its cause as it
// happens, and its summary says it recovered.
func TestSequencePrintsRestarts(t *testing.T) {
	r := runWeir(t, "run", "--checkpoint-interval", "50ms", "--parallelism", "2", "sequence", "--keys", "4",
		"--records-per-key", "500", "--rate", "4000", "--fail-after", "300", "--output", t.TempDir())
	restart := regexp.MustCompile(`(?m)^weir: job restarting \(attempt 1\) after: .*sequence: failing after 300 records, as --fail-after asked$`)
	summary := regexp.MustCompile(`(?m)^job sequence [0-9a-f]{32} finished in \S+ after 1 restart, recovering each time, `)
	if r.code != 0 || !restart.MatchString(r.stderr) || !summary.MatchString(r.stderr) {
		t.Errorf("exit %d, stderr:\n%s\nwant the restart with its cause and a summary that says it recovered", r.code, r.stderr)
	}
}
