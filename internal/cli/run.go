package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/weir-engine/weir/internal/gctune"
)

// newRunCmd is `weir run JOB [engine flags] [job flags]`. Cobra's flag
// parsing is off for it: engine flags and job flags interleave, and only
// ParseRunArgs knows which is which.
func newRunCmd(name string, jobs JobRunner, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run JOB [engine flags] [job flags]",
		Short: "Build a registered job and run it on an embedded mini-cluster",
		Long: "Build the registered job JOB with its job flags and run it on an embedded\n" +
			"mini-cluster until it ends. Engine flags may come anywhere after 'run';\n" +
			"every other argument after JOB goes to the job; after '--' everything does.\n" +
			"'" + name + " run JOB --help' shows the job's flags.\n\n" +
			"With --checkpoint-dir C, running the same command again after the process\n" +
			"was killed, interrupted (SIGINT exits 130, SIGTERM 143) or failed resumes\n" +
			"the job from the newest complete checkpoint its last unfinished run left in\n" +
			"C, and says so on stderr; --fresh starts from scratch instead. A run that\n" +
			"finished, or was stopped with a savepoint, is not resumed.\n\n" +
			"Engine flags:\n" + engineFlagsHelp(),
		DisableFlagParsing:    true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runJob(cmd, name, jobs, args, stdout, stderr)
		},
	}
	return cmd
}

func runJob(cmd *cobra.Command, name string, jobs JobRunner, args []string, stdout, stderr io.Writer) error {
	ra, err := ParseRunArgs(args)
	if err != nil {
		return Usage(fmt.Errorf("run: %w", err))
	}
	if ra.Help && ra.Job == "" {
		cmd.SetOut(stdout)
		return cmd.Help()
	}
	if ra.Job == "" {
		return Usage(fmt.Errorf("run: no job given; %s", jobList(jobs)))
	}
	if !hasJob(jobs, ra.Job) {
		return Usage(fmt.Errorf("run: unknown job %q; %s", ra.Job, jobList(jobs)))
	}
	if ra.Engine.JobManager != "" && !ra.Help {
		return submitJob(cmd.Context(), ra, stdout, stderr)
	}
	if ra.Help {
		// -h before the job's name: show the job's flags too. First, so
		// that the job's flag parser sees it before any positional one.
		ra.JobArgs = append([]string{"-h"}, ra.JobArgs...)
	}
	req := RunRequest{
		Job: ra.Job, Args: ra.JobArgs, Engine: ra.Engine, Stdout: stdout, Stderr: stderr,
		Logger: newEngineLogger(stderr, ra.Engine),
	}
	if !ra.Help {
		defer gctune.Configure(ra.Engine.ProcessMemory, req.Logger)()
	}
	tty := !ra.Engine.Quiet && !ra.Help && isTerminal(stderr)
	if tty {
		req.Progress = progressLine{stderr}.show
	}
	sum, err := jobs.Run(cmd.Context(), req)
	if tty {
		progressLine{stderr}.clear()
		if err == nil {
			fmt.Fprint(stderr, RenderSummary(sum))
		}
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		// Help that was asked for goes to stdout, after the job's own.
		fmt.Fprintf(stdout, "\nEngine flags of '%s run' (before or after the job's flags):\n%s", name, engineFlagsHelp())
		return &exitError{code: ExitOK}
	case err != nil && isUsage(err):
		return Usage(fmt.Errorf("%w%s", err, jobFlagHint(err)))
	case err != nil:
		return err
	}
	if sum.Savepoint != "" {
		fmt.Fprintf(stderr, "job %s %s stopped with a savepoint at %s (resume it with --from-savepoint %[3]s)\n",
			ra.Job, sum.JobID, sum.Savepoint)
	}
	if !ra.Engine.Quiet {
		recovered := ""
		if sum.Restarts > 0 {
			recovered = fmt.Sprintf(" after %s, recovering each time", plural(sum.Restarts, "restart"))
		}
		fmt.Fprintf(stderr, "job %s %s finished in %v%s, %d records exchanged between tasks\n",
			ra.Job, sum.JobID, sum.Duration.Round(time.Millisecond), recovered, sum.Records)
	}
	return nil
}

// plural is "1 restart", "2 restarts".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func hasJob(jobs JobRunner, name string) bool {
	for _, j := range jobs.Jobs() {
		if j.Name == name {
			return true
		}
	}
	return false
}

// jobList names the jobs for an error message.
func jobList(jobs JobRunner) string {
	var names []string
	for _, j := range jobs.Jobs() {
		names = append(names, j.Name)
	}
	if len(names) == 0 {
		return "no jobs are registered in this binary"
	}
	return "jobs: " + strings.Join(names, ", ")
}

// undefinedFlag matches the error of Go's flag package for a flag the job
// does not define.
var undefinedFlag = regexp.MustCompile(`flag provided but not defined: -+([^\s=]+)`)

// jobFlagHint points at the engine flag a job rejected by mistake: a
// misspelt engine flag reaches the job, which does not know it either.
func jobFlagHint(err error) string {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	if s := suggest(m[1]); s != "" {
		return strings.Replace(s, "did you mean", "did you mean the engine flag", 1)
	}
	return ""
}
