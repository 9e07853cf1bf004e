package weir

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/cli"
)

// The test jobs are registered once per test binary, from init, as a real
// binary registers its jobs; their names start with "test-".
func init() {
	for _, j := range []struct {
		name  string
		build JobBuilder
	}{
		{"test-squares", buildSquares},
		{"test-forever", buildForever},
		{"test-panics", func(*Env, []string) error { panic("a bug in the builder") }},
	} {
		if err := RegisterJob(j.name, "a job of the root package's tests", j.build); err != nil {
			panic(err)
		}
	}
}

// buildSquares prints the squares of 1..n, one per line; with --fail-at K
// the job fails at element K.
func buildSquares(env *Env, args []string) error {
	fs := flag.NewFlagSet("test-squares", flag.ContinueOnError)
	n := fs.Int("n", 5, "how many squares")
	failAt := fs.Int("fail-at", 0, "fail at this element")
	if err := ParseJobFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var in []int
	for i := 1; i <= *n; i++ {
		in = append(in, i)
	}
	sq := Map(FromSlice(env, in), func(i int) (int, error) {
		if i == *failAt {
			return 0, fmt.Errorf("element %d is cursed", i)
		}
		return i * i, nil
	})
	Print(sq).SetParallelism(1)
	return nil
}

// buildForever prints a tick every 5ms until canceled.
func buildForever(env *Env, _ []string) error {
	ticks := Generate(env, Generator[string]{Fn: func(i int64) (string, error) { return fmt.Sprint("tick ", i), nil }, RatePerSecond: 200})
	Print(ticks.SetParallelism(1)).SetParallelism(1)
	return nil
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the command line in process, as Main does, with the real job
// runner and registry.
func runCLI(ctx context.Context, args ...string) cliResult {
	var out, errb bytes.Buffer
	code := cli.Run(ctx, append([]string{"weir"}, args...), &out, &errb, jobRunner{reg: registeredJobs})
	return cliResult{code, out.String(), errb.String()}
}

func TestMainRunsARegisteredJob(t *testing.T) {
	for _, p := range []string{"1", "3"} {
		r := runCLI(context.Background(), "run", "test-squares", "--parallelism", p, "--n", "4")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		slices.Sort(lines)
		if got := strings.Join(lines, " "); got != "1 16 4 9" {
			t.Errorf("parallelism %s: output %q, want the squares 1, 4, 9, 16", p, r.stdout)
		}
		if !strings.HasPrefix(r.stderr, "job test-squares ") || !strings.Contains(r.stderr, " finished in ") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr %q, want one summary line", r.stderr)
		}
	}
}

func TestMainExitCodes(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string // in the one stderr line
	}{
		{"job fails", []string{"run", "test-squares", "--fail-at", "3", "--parallelism", "2"}, 1, "element 3 is cursed"},
		{"builder rejects a flag", []string{"run", "test-squares", "--paralelism", "2"}, 2,
			"weir: test-squares: flag provided but not defined: -paralelism (did you mean the engine flag --parallelism?)"},
		{"builder rejects a value", []string{"run", "test-squares", "--n", "many"}, 2, `weir: test-squares: invalid value "many" for flag -n`},
		{"builder rejects an argument", []string{"run", "test-squares", "extra"}, 2, `weir: test-squares: unexpected argument "extra"`},
		{"unknown job", []string{"run", "nosuchjob"}, 2, `unknown job "nosuchjob"; jobs: `},
		{"bad engine flag", []string{"run", "test-squares", "--parallelism", "abc"}, 2, `invalid value "abc" for --parallelism`},
		{"unbounded job in batch mode", []string{"run", "test-forever", "--mode", "batch"}, 2,
			`weir: test-forever: batch mode needs bounded sources, and "Generator" is unbounded`},
		{"builder panics", []string{"run", "test-panics"}, 1, "weir: test-panics: builder panicked: a bug in the builder"},
		{"not enough slots on the default scheduler", []string{"run", "test-squares", "--parallelism", "2", "--taskmanagers", "1", "--slots", "1", "--scheduler", "default"}, 1, "not enough slots"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(context.Background(), tt.args...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "weir: ") {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", r.code, r.stderr, tt.code, tt.want)
			}
		})
	}
}

// The adaptive scheduler, the default for a streaming job, takes the
// parallelism as an upper bound: with fewer slots the job runs at what it
// can get, at once on the embedded mini-cluster (whose slots are all
// there at the start), and its output is complete.
func TestMainRunsWithFewerSlotsThanItsParallelism(t *testing.T) {
	for _, sched := range []string{"", "adaptive"} {
		args := []string{"run", "test-squares", "--parallelism", "2", "--taskmanagers", "1", "--slots", "1", "--n", "4"}
		if sched != "" {
			args = append(args, "--scheduler", sched)
		}
		r := runCLI(context.Background(), args...)
		if r.code != 0 {
			t.Fatalf("scheduler %q: exit %d, stderr %q", sched, r.code, r.stderr)
		}
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		slices.Sort(lines)
		if got := strings.Join(lines, " "); got != "1 16 4 9" {
			t.Errorf("scheduler %q: output %q, want the squares 1, 4, 9, 16", sched, r.stdout)
		}
	}
}

func TestMainListsJobs(t *testing.T) {
	r := runCLI(context.Background(), "jobs")
	if r.code != 0 || !strings.Contains(r.stdout, "test-squares  a job of the root package's tests\n") {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestMainCancelsTheJob(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r := runCLI(ctx, "run", "test-forever")
	if r.code != cli.ExitInterrupted || !strings.Contains(r.stderr, `weir: job "test-forever" canceled: context deadline exceeded`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "tick 0\n") {
		t.Errorf("stdout %q: want ticks", r.stdout)
	}
}

func TestMainRefusesABrokenRegistry(t *testing.T) {
	reg := &jobRegistry{}
	_ = reg.register("a", "", nopBuilder)
	_ = reg.register("a", "", nopBuilder)
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"weir", "jobs"}, &out, &errb, jobRunner{reg: reg})
	if code != cli.ExitFailed || errb.String() != "weir: this binary is broken: weir: bad job registration: job \"a\" registered twice\n" {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestMainHelperProcess is not a test: it is the process that
// TestMainInterrupt runs, which calls Main with the arguments it is given.
func TestMainHelperProcess(t *testing.T) {
	args := os.Getenv("WEIR_TEST_MAIN_ARGS")
	if args == "" {
		t.Skip("the process of TestMainInterrupt")
	}
	os.Args = append([]string{"weir"}, strings.Fields(args)...)
	Main()
}

// TestMainInterrupt runs Main in a process of its own, sends it SIGINT
// or SIGTERM while its job runs and checks that the job is canceled with
// exit 130 or 143, and that the reason names the signal.
func TestMainInterrupt(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", cli.ExitInterrupted}, {syscall.SIGTERM, "SIGTERM", cli.ExitTerminated}} {
		sig := tt.sig
		cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelperProcess$")
		cmd.Env = append(os.Environ(), "WEIR_TEST_MAIN_ARGS=run test-forever")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first tick means the job runs, so the handler is installed.
		lines := bufio.NewReader(stdout)
		first, err := lines.ReadString('\n')
		if err != nil || first != "tick 0\n" {
			_ = cmd.Process.Kill()
			t.Fatalf("first line %q, %v", first, err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, lines) // until the process closes stdout
		err = cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
			t.Fatalf("%v: process ended with %v, want exit %d; stderr %q", sig, err, tt.code, stderr.String())
		}
		want := fmt.Sprintf("weir: job \"test-forever\" canceled: interrupted by %s\n", tt.name)
		if stderr.String() != want {
			t.Errorf("%v: stderr %q, want %q", sig, stderr.String(), want)
		}
	}
}
