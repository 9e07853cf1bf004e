package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/weir-engine/weir/internal/rest/api"
	"io"
	"slices"

	"github.com/spf13/cobra"
)

// The commands that act on the jobs of a running JobManager through its
// REST API: list, cancel, savepoint, stop. Each takes --jobmanager
// HOST:PORT (-m, as Flink's CLI), the REST address, DefaultJobManager by
// default. Their failures follow the package's exit codes: 2 for a bad
// command line (a missing or malformed JOBID, a bad address), 1 when the
// JobManager does not answer, does not know the job, or the operation
// failed, 130 when interrupted.

// newClusterCmds returns the commands.
func newClusterCmds(stdout, stderr io.Writer) []*cobra.Command {
	return []*cobra.Command{newListCmd(stdout), newCancelCmd(stderr), newSavepointCmd(stdout), newStopCmd(stdout)}
}

// jobManagerFlag adds --jobmanager to cmd and returns its value.
func jobManagerFlag(cmd *cobra.Command) *string {
	return cmd.Flags().StringP("jobmanager", "m", DefaultJobManager, "the JobManager's REST address, `HOST:PORT`")
}

// connect validates the address of --jobmanager and returns a client of
// it; the caller closes it.
func connect(name, addr string) (*jobManager, error) {
	if err := checkHostPort(addr, false); err != nil {
		return nil, Usage(fmt.Errorf("%s: invalid value %q for --jobmanager: %w", name, addr, err))
	}
	jm, err := newJobManager(addr)
	if err != nil {
		return nil, Usage(fmt.Errorf("%s: %w", name, err))
	}
	return jm, nil
}

// jobArgs accepts JOBID and at most extra more arguments.
func jobArgs(name string, extra int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return Usage(fmt.Errorf("%s: missing JOBID (usage: %s)", name, cmd.UseLine()))
		case len(args) > 1+extra:
			return Usage(fmt.Errorf("%s: unexpected argument %q", name, args[1+extra]))
		}
		if err := checkJobID(args[0]); err != nil {
			return Usage(fmt.Errorf("%s: %w", name, err))
		}
		return nil
	}
}

// newListCmd is `weir list`.
func newListCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "list [--jobmanager HOST:PORT]",
		DisableFlagsInUseLine: true,
		Short:                 "List the jobs of a running JobManager",
		Long: "List the jobs of the JobManager at --jobmanager, running and ended, one line\n" +
			"per job, oldest first: the job id, its state and its name, separated by two\n" +
			"spaces.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return Usage(fmt.Errorf("list: unexpected argument %q", args[0]))
			}
			return nil
		},
	}
	addr := jobManagerFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return withJobManager("list", *addr, func(jm *jobManager) error {
			jobs, err := jm.jobs(cmd.Context())
			if err != nil {
				return err
			}
			slices.SortStableFunc(jobs, func(a, b api.JobOverview) int {
				return cmp.Or(cmp.Compare(a.StartTime, b.StartTime), cmp.Compare(a.JID, b.JID))
			})
			for _, j := range jobs {
				fmt.Fprintf(stdout, "%s  %s  %s\n", j.JID, j.State, j.Name)
			}
			return nil
		})
	}
	return cmd
}

// newCancelCmd is `weir cancel JOBID`.
func newCancelCmd(stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "cancel JOBID [--jobmanager HOST:PORT]",
		DisableFlagsInUseLine: true,
		Short:                 "Cancel a job of a running JobManager",
		Long: "Ask the JobManager at --jobmanager to cancel the job JOBID (32 lower-case hex\n" +
			"characters, as 'list' shows them). The job's state becomes CANCELLING, then\n" +
			"CANCELED; 'list' shows it. Canceling a job that has ended fails.",
		Args: jobArgs("cancel", 0),
	}
	addr := jobManagerFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return withJobManager("cancel", *addr, func(jm *jobManager) error {
			if err := jm.cancel(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "requested the cancellation of job %s\n", args[0])
			return nil
		})
	}
	return cmd
}

// newSavepointCmd is `weir savepoint JOBID [DIR]`.
func newSavepointCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "savepoint JOBID [DIR] [--jobmanager HOST:PORT]",
		DisableFlagsInUseLine: true,
		Short:                 "Take a savepoint of a running job",
		Long: "Take a savepoint of the job JOBID into a new directory under DIR (a path or a\n" +
			"URL; default: the job's savepoint directory), wait until it is complete and\n" +
			"print its location, one line on stdout. The job goes on running; start a\n" +
			"job from the savepoint with 'run --from-savepoint LOCATION'.",
		Args: jobArgs("savepoint", 1),
	}
	addr := jobManagerFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		dir := ""
		if len(args) > 1 {
			dir = args[1]
		}
		return savepointOp(cmd.Context(), "savepoint", *addr, args[0], stdout,
			func(jm *jobManager) (string, error) { return jm.triggerSavepoint(cmd.Context(), args[0], dir) })
	}
	return cmd
}

// newStopCmd is `weir stop JOBID [--savepoint-dir DIR] [--drain]`.
func newStopCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:                   "stop JOBID [--savepoint-dir DIR] [--drain] [--jobmanager HOST:PORT]",
		DisableFlagsInUseLine: true,
		Short:                 "Stop a running job with a savepoint",
		Long: "Stop the job JOBID gracefully: take a savepoint into a new directory under\n" +
			"--savepoint-dir (default: the job's savepoint directory), then end the job.\n" +
			"With --drain the sources end first and MAX_WATERMARK flushes every window\n" +
			"and timer (for a job that will not be resumed). Waits until the job stopped\n" +
			"and prints the savepoint's location, one line on stdout.",
		Args: jobArgs("stop", 0),
	}
	addr := jobManagerFlag(cmd)
	dir := cmd.Flags().String("savepoint-dir", "", "write the savepoint under `DIR` (a path or a URL)")
	drain := cmd.Flags().Bool("drain", false, "end the input and fire all timers before the savepoint")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if cmd.Flags().Changed("savepoint-dir") && *dir == "" {
			return Usage(fmt.Errorf("stop: invalid value \"\" for --savepoint-dir: want a directory"))
		}
		return savepointOp(cmd.Context(), "stop", *addr, args[0], stdout,
			func(jm *jobManager) (string, error) { return jm.triggerStop(cmd.Context(), args[0], *dir, *drain) })
	}
	return cmd
}

// savepointOp runs a savepoint operation of command name on job id:
// trigger, then wait for it, then print its location.
func savepointOp(ctx context.Context, name, addr, id string, stdout io.Writer, trigger func(*jobManager) (string, error)) error {
	return withJobManager(name, addr, func(jm *jobManager) error {
		tid, err := trigger(jm)
		if err != nil {
			return err
		}
		loc, err := jm.awaitSavepoint(ctx, id, tid)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, loc)
		return nil
	})
}

// withJobManager connects to the JobManager at addr for command name, runs
// fn, and closes the connection; fn's error gets the command's prefix.
func withJobManager(name, addr string, fn func(*jobManager) error) error {
	jm, err := connect(name, addr)
	if err != nil {
		return err
	}
	defer jm.close()
	if err := fn(jm); err != nil {
		return commandError(name, err)
	}
	return nil
}

// commandError prefixes err with the command's name, except for an
// unreachable JobManager, whose message ("no JobManager at ...") stands
// alone.
func commandError(name string, err error) error {
	if _, ok := errors.AsType[*unreachableError](err); ok {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}
