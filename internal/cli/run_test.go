package cli

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The summary of a job that recovered says how often it restarted, and a
// job stopped with a savepoint says where the savepoint is, even --quiet.
func TestRunSummaryRestartsAndSavepoint(t *testing.T) {
	for _, tt := range []struct {
		name string
		sum  RunSummary
		args []string
		want string
	}{
		{"recovered", RunSummary{JobID: "j", Duration: time.Second, Records: 5, Restarts: 2}, nil,
			"job wordcount j finished in 1s after 2 restarts, recovering each time, 5 records exchanged between tasks\n"},
		{"one restart", RunSummary{JobID: "j", Duration: time.Second, Restarts: 1}, nil,
			"job wordcount j finished in 1s after 1 restart, recovering each time, 0 records exchanged between tasks\n"},
		{"stopped with a savepoint", RunSummary{JobID: "j", Duration: time.Second, Savepoint: "/sp/savepoint-1"}, []string{"--quiet"},
			"job wordcount j stopped with a savepoint at /sp/savepoint-1 (resume it with --from-savepoint /sp/savepoint-1)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake()
			f.result = func(context.Context, RunRequest) (RunSummary, error) { return tt.sum, nil }
			r := run(context.Background(), f, append([]string{"run", "wordcount"}, tt.args...)...)
			if r.code != ExitOK || r.stderr != tt.want {
				t.Errorf("exit %d, stderr %q, want 0 and %q", r.code, r.stderr, tt.want)
			}
		})
	}
}

// SIGTERM cancels the run's context with a cause that names it, and the
// command exits 143 (SIGINT: 130), as shells report a process a signal
// ended.
func TestSignalExitCodes(t *testing.T) {
	for _, tt := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGTERM, "SIGTERM", ExitTerminated}, {syscall.SIGINT, "SIGINT", ExitInterrupted}} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, stop := notifySignals(context.Background(), tt.sig)
			defer stop()
			f := newFake()
			f.result = func(ctx context.Context, req RunRequest) (RunSummary, error) {
				if err := syscall.Kill(os.Getpid(), tt.sig); err != nil {
					t.Fatal(err)
				}
				<-ctx.Done()
				return RunSummary{}, context.Cause(ctx)
			}
			r := run(ctx, f, "run", "wordcount")
			if got := Interruption(ctx); got != tt.name {
				t.Errorf("Interruption = %q, want %q", got, tt.name)
			}
			checkFailure(t, r, tt.code, "interrupted by "+tt.name)
		})
	}
}

// The run's own flags: one-letter aliases only before the job's name, and
// the flags that need another one say so.
func TestParseRunArgsResumeFlags(t *testing.T) {
	got, err := ParseRunArgs([]string{"-n", "-v", "--checkpoint-interval", "1s", "--checkpoint-dir", "/c", "sequence", "--fresh", "--savepoint-dir", "/sp", "-n", "-v"})
	if err != nil {
		t.Fatal(err)
	}
	want := EngineFlags{AllowNonRestored: true, Verbose: true, CheckpointInterval: time.Second, CheckpointDir: "/c", Fresh: true, SavepointDir: "/sp"}
	if got.Engine != want || strings.Join(got.JobArgs, " ") != "-n -v" {
		t.Errorf("got %+v, job args %q; want %+v and the one-letter flags after the job for the job", got.Engine, got.JobArgs, want)
	}
	got, err = ParseRunArgs([]string{"wc", "--allow-non-restored-state", "--rest-addr", ":0", "--rest-grace", "0s"})
	if err != nil || !got.Engine.AllowNonRestored || got.Engine.RestGrace >= 0 {
		t.Errorf("got %+v, %v; want --allow-non-restored-state after the job, and --rest-grace 0s as no wait", got.Engine, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"wc", "--fresh"}, "--fresh needs --checkpoint-dir"},
		{[]string{"wc", "--savepoint-dir", "/sp"}, "--savepoint-dir needs --checkpoint-interval"},
		{[]string{"wc", "--rest-grace", "1s"}, "--rest-grace needs --rest-addr"},
		{[]string{"wc", "--rest-grace", "-1s", "--rest-addr", ":0"}, `invalid value "-1s" for --rest-grace`},
		{[]string{"wc", "--allow-non-restored-state=maybe"}, `invalid value "maybe" for --allow-non-restored-state`},
	} {
		if _, err := ParseRunArgs(tt.args); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRunArgs(%q) = %v, want %q", tt.args, err, tt.want)
		}
	}
	if h := engineFlagsHelp(); !strings.Contains(h, "-n, --allow-non-restored-state") || !strings.Contains(h, "--fresh") {
		t.Errorf("help %q lacks the new flags", h)
	}
}

// --scheduler selects the scheduler, --scheduler-mode reactive the
// adaptive one's reactive mode, which the default scheduler refuses.
func TestParseRunArgsSchedulerFlags(t *testing.T) {
	got, err := ParseRunArgs([]string{"--scheduler", "adaptive", "--scheduler-mode", "reactive", "wc"})
	if err != nil || got.Engine.Scheduler != "adaptive" || got.Engine.SchedulerMode != "reactive" {
		t.Fatalf("got %+v, %v; want the adaptive scheduler in reactive mode", got.Engine, err)
	}
	// The adaptive scheduler is the default: reactive alone is enough.
	if got, err := ParseRunArgs([]string{"--scheduler-mode", "reactive", "wc"}); err != nil || got.Engine.Scheduler != "" || got.Engine.SchedulerMode != "reactive" {
		t.Fatalf("got %+v, %v; want reactive mode on the default (adaptive) scheduler", got.Engine, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"wc", "--scheduler", "fast"}, `invalid value "fast" for --scheduler`},
		{[]string{"wc", "--scheduler", "adaptive", "--scheduler-mode", "lazy"}, `invalid value "lazy" for --scheduler-mode`},
		{[]string{"wc", "--scheduler", "default", "--scheduler-mode", "reactive"}, "needs the adaptive scheduler, not --scheduler default"},
	} {
		if _, err := ParseRunArgs(tt.args); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseRunArgs(%q) = %v, want %q", tt.args, err, tt.want)
		}
	}
}
