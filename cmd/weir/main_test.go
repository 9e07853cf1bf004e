package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// The tests run the real binary, as scripts do: built once into a
// temporary directory by TestMain. Some tests also start goroutines of
// their own (readers of a child's output, servers), so TestMain checks
// with goleak that none outlives the tests.
var weirBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "weir-cmd-test")
	if err != nil {
		panic(err)
	}
	weirBin = filepath.Join(dir, "weir")
	build := exec.Command("go", "build", "-o", weirBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("go build ./cmd/weir: " + err.Error())
	}
	// The weir processes the tests start put their temporary files
	// under dir, which goes at the end: a TaskManager killed with
	// SIGKILL cannot remove its own (its cluster partitions' directory).
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	os.Setenv("TMPDIR", tmp)
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

const (
	sample   = "../../testdata/words.txt"
	expected = "../../testdata/words.expected"
)

type result struct {
	code           int
	stdout, stderr string
}

func runWeir(t testing.TB, args ...string) result {
	t.Helper()
	return runWeirEnv(t, nil, args...)
}

// runWeirEnv is runWeir with env added to the environment.
func runWeirEnv(t testing.TB, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(weirBin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("weir %q: %v", args, err)
	}
	return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	slices.Sort(lines)
	return lines
}

func expectedLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(expected)
	if err != nil {
		t.Fatal(err)
	}
	return sortedLines(string(b))
}

func TestWordcountToStdout(t *testing.T) {
	r := runWeir(t, "run", "wordcount", "--input", sample)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got, want := sortedLines(r.stdout), expectedLines(t); !slices.Equal(got, want) {
		t.Errorf("stdout (%d lines) differs from %s (%d lines)", len(got), expected, len(want))
	}
	if !strings.HasPrefix(r.stderr, "job wordcount ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("stderr %q, want one summary line", r.stderr)
	}
}

func TestWordcountToFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "counts")
	r := runWeir(t, "run", "wordcount", "--parallelism", "3", "--input", sample, "--output", dir, "--quiet")
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and no output", r.code, r.stdout, r.stderr)
	}
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(parts) != 3 {
		t.Fatalf("part files %q (%v), want one per sink subtask", parts, err)
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
		t.Errorf("files (%d lines) differ from %s (%d lines)", len(got), expected, len(want))
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		// A missing input is the job's usage error: its builder refuses
		// it before anything runs, so the exit code is 2.
		{[]string{"run", "wordcount", "--input", "no-such-file.txt"}, "weir: wordcount: input no-such-file.txt: no such file or directory\n"},
		{[]string{"run", "nosuchjob"}, "weir: run: unknown job \"nosuchjob\"; jobs: nexmark, sequence, wordcount\n"},
		{[]string{"run", "wordcount", "--input", sample, "--parallelism", "abc"}, "weir: run: invalid value \"abc\" for --parallelism: want an integer from 1 to 32768\n"},
		{[]string{"run", "wordcount", "--input", sample, "--checkpoint-dir", "/tmp/x"}, "weir: run: --checkpoint-dir needs --checkpoint-interval\n"},
		{[]string{"run", "sequence", "--keys", "2"}, "weir: sequence: --output DIR is required for the file sink\n"},
		{[]string{"run", "sequence", "--output", "/tmp/x", "--sink", "s3"}, "weir: sequence: --sink \"s3\": want file, postgres or kafka\n"},
	} {
		r := runWeir(t, tt.args...)
		if r.code != 2 || r.stderr != tt.want || r.stdout != "" {
			t.Errorf("weir %q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

func TestJobs(t *testing.T) {
	r := runWeir(t, "jobs")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "nexmark ") || !strings.Contains(r.stdout, "\nsequence   --keys K") || !strings.Contains(r.stdout, "\nwordcount  count the words") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}
