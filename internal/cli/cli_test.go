package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeRunner records the requests it gets and answers with result.
type fakeRunner struct {
	jobs   []JobInfo
	broken error
	result func(ctx context.Context, req RunRequest) (RunSummary, error)
	got    []RunRequest
}

func (f *fakeRunner) Jobs() []JobInfo { return f.jobs }
func (f *fakeRunner) Err() error      { return f.broken }

func (f *fakeRunner) Run(ctx context.Context, req RunRequest) (RunSummary, error) {
	f.got = append(f.got, req)
	if f.result != nil {
		return f.result(ctx, req)
	}
	fmt.Fprintln(req.Stdout, "output of", req.Job)
	return RunSummary{JobID: "0123456789abcdef0123456789abcdef", Duration: 1234 * time.Microsecond, Records: 42}, nil
}

func newFake() *fakeRunner {
	return &fakeRunner{jobs: []JobInfo{{"sequence", "the correctness job"}, {"wordcount", "count words"}}}
}

type result struct {
	code           int
	stdout, stderr string
}

func run(ctx context.Context, f *fakeRunner, args ...string) result {
	var out, errb bytes.Buffer
	code := Run(ctx, append([]string{"/usr/local/bin/weir"}, args...), &out, &errb, f)
	return result{code, out.String(), errb.String()}
}

// checkFailure checks a failed command: its code and one line "weir:
// <reason>" on stderr that contains want.
func checkFailure(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit code %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "weir: ") || !strings.Contains(last, want) {
		t.Errorf("stderr %q: want a last line \"weir: ...%s...\"", r.stderr, want)
	}
}

func TestRunPassesFlagsToRunner(t *testing.T) {
	f := newFake()
	r := run(context.Background(), f, "run", "--mode=batch", "wordcount", "--input", "a.txt", "--parallelism", "3", "b.txt", "--output=d", "--slots=2")
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := RunRequest{
		Job: "wordcount", Args: []string{"--input", "a.txt", "b.txt", "--output=d"},
		Engine: EngineFlags{Parallelism: 3, Mode: "batch", Slots: 2},
	}
	got := f.got[0]
	if got.Stdout == nil || got.Stderr == nil || got.Logger == nil {
		t.Fatalf("request %+v: the runner gets no stdout, stderr or logger", got)
	}
	got.Stdout, got.Stderr, got.Logger = nil, nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("request %+v, want %+v", got, want)
	}
	if r.stdout != "output of wordcount\n" {
		t.Errorf("stdout %q: want only the job's output", r.stdout)
	}
	if want := "job wordcount 0123456789abcdef0123456789abcdef finished in 1ms, 42 records exchanged between tasks\n"; r.stderr != want {
		t.Errorf("stderr %q, want the summary %q", r.stderr, want)
	}
}

func TestRunQuiet(t *testing.T) {
	r := run(context.Background(), newFake(), "run", "wordcount", "--quiet")
	if r.code != ExitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q: want 0 and nothing", r.code, r.stderr)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "run: no job given; jobs: sequence, wordcount"},
		{[]string{"run", "nosuchjob"}, `run: unknown job "nosuchjob"; jobs: sequence, wordcount`},
		{[]string{"run", "--quiet", "nosuchjob", "--input", "x"}, `unknown job "nosuchjob"`},
		{[]string{"run", "wordcount", "--parallelism", "abc"}, `run: invalid value "abc" for --parallelism`},
		{[]string{"run", "wordcount", "--parallelism", "0"}, `run: invalid value "0" for --parallelism`},
		{[]string{"run", "wordcount", "--mode", "fast"}, `run: invalid value "fast" for --mode: want streaming, batch or automatic`},
		{[]string{"run", "wordcount", "--checkpoint-interval", "soon"}, `run: invalid value "soon" for --checkpoint-interval`},
		{[]string{"run", "wordcount", "--checkpoint-interval", "-1s"}, `run: invalid value "-1s" for --checkpoint-interval`},
		{[]string{"run", "wordcount", "--detach"}, "run: --detach needs --jobmanager"},
		{[]string{"run", "wordcount", "--jobmanager=h:1", "--taskmanagers", "2"}, "run: --taskmanagers configures the embedded mini-cluster"},
		{[]string{"run", "--bogus", "wordcount"}, "run: unknown engine flag --bogus before the job name"},
		{[]string{"frob"}, `unknown command "frob"; commands: run, jobs, help`},
		{[]string{"jobs", "extra"}, `jobs: unexpected argument "extra"`},
		{[]string{"jobs", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
	} {
		f := newFake()
		r := run(context.Background(), f, tt.args...)
		checkFailure(t, r, ExitUsage, tt.want)
		if len(f.got) != 0 {
			t.Errorf("%q: the runner ran %+v", tt.args, f.got)
		}
		if strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: stderr %q is not one line", tt.args, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%q: stdout %q, want nothing", tt.args, r.stdout)
		}
	}
}

func TestRunNoCommand(t *testing.T) {
	r := run(context.Background(), newFake())
	checkFailure(t, r, ExitUsage, "no command given")
	if !strings.Contains(r.stderr, "Usage:") || r.stdout != "" {
		t.Errorf("stdout %q, stderr %q: want the usage on stderr", r.stdout, r.stderr)
	}
}

func TestRunNoJobsRegistered(t *testing.T) {
	checkFailure(t, run(context.Background(), &fakeRunner{}, "run", "x"), ExitUsage, "no jobs are registered in this binary")
}

func TestRunnerErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		code int
		want string
	}{
		{"job failed", errors.New(`weir: job failed: "wordcount": operator "count" (subtask 1/2): boom`), ExitFailed,
			`weir: job failed: "wordcount": operator "count" (subtask 1/2): boom`},
		{"builder rejected its flags", Usage(errors.New("wordcount: flag provided but not defined: -paralelism")), ExitUsage,
			"wordcount: flag provided but not defined: -paralelism (did you mean the engine flag --parallelism?)"},
		{"builder rejected an input", Usage(errors.New("wordcount: input x: no such file or directory")), ExitUsage,
			"weir: wordcount: input x: no such file or directory"},
		{"multi-line reason", errors.New("first\nsecond"), ExitFailed, "weir: first | second"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			f.result = func(context.Context, RunRequest) (RunSummary, error) { return RunSummary{}, tt.err }
			r := run(context.Background(), f, "run", "wordcount")
			checkFailure(t, r, tt.code, tt.want)
			if strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("stderr %q is not one line", r.stderr)
			}
		})
	}
}

func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFake()
	f.result = func(ctx context.Context, req RunRequest) (RunSummary, error) {
		cancel() // as Ctrl-C would, while the job runs
		<-ctx.Done()
		return RunSummary{}, fmt.Errorf("weir: job %q canceled: %w", req.Job, context.Cause(ctx))
	}
	r := run(ctx, f, "run", "wordcount")
	checkFailure(t, r, ExitInterrupted, `job "wordcount" canceled: context canceled`)
}

func TestRunHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"run", "-h"}, {"help", "run"}} {
		r := run(context.Background(), newFake(), args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, "--parallelism N") || !strings.Contains(r.stdout, "--checkpoint-dir DIR") {
			t.Errorf("%q: exit %d, stdout %q: want 0 and the engine flags", args, r.code, r.stdout)
		}
	}
	r := run(context.Background(), newFake(), "--help")
	if r.code != ExitOK || !strings.Contains(r.stdout, "jobs") || !strings.Contains(r.stdout, "run") {
		t.Errorf("--help: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestRunJobHelp(t *testing.T) {
	for _, args := range [][]string{{"run", "wordcount", "--help"}, {"run", "-h", "wordcount"}} {
		f := newFake()
		f.result = func(_ context.Context, req RunRequest) (RunSummary, error) {
			if !slices.Contains(req.Args, "-h") && !slices.Contains(req.Args, "--help") {
				t.Errorf("%q: job args %q, want the help flag", args, req.Args)
			}
			return RunSummary{}, Usage(fmt.Errorf("wordcount: %w", flag.ErrHelp))
		}
		r := run(context.Background(), f, args...)
		if r.code != ExitOK || !strings.Contains(r.stdout, "--parallelism N") || r.stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q: want 0 and the engine flags on stdout after the job's usage", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestJobsLists(t *testing.T) {
	r := run(context.Background(), newFake(), "jobs")
	want := "sequence   the correctness job\nwordcount  count words\n"
	if r.code != ExitOK || r.stdout != want {
		t.Fatalf("exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}
}

func TestBrokenBinaryFailsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"jobs"}, {"run", "wordcount"}} {
		f := newFake()
		f.broken = errors.New(`weir: bad job registration: job "wordcount" registered twice`)
		r := run(context.Background(), f, args...)
		checkFailure(t, r, ExitFailed, `this binary is broken: weir: bad job registration: job "wordcount" registered twice`)
		if len(f.got) != 0 {
			t.Errorf("%q: the runner ran", args)
		}
	}
}
