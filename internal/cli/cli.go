package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes of the command line; the package comment explains them.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitInterrupted = 130
	ExitTerminated  = 143
)

// exitError carries the exit code of a command's failure, or a success
// that must not run anything more (help).
type exitError struct {
	code int
	err  error // nil for a quiet exit
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// Main runs the command line on os.Args with the process's standard
// streams and returns the exit code. SIGINT and SIGTERM cancel the running
// job through its context, and the exit code says which arrived (130,
// 143); a second signal kills the process the default way, for a job that
// does not stop.
func Main(jobs JobRunner) int {
	ctx, stop := notifySignals(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args, os.Stdout, os.Stderr, jobs)
}

// signalCause is the cause of a context canceled by a signal.
type signalCause struct{ sig os.Signal }

func (s signalCause) Error() string { return "interrupted by " + signalName(s.sig) }

// signalName names SIGINT and SIGTERM as users know them.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// notifySignals returns a context canceled, with a signalCause, by the
// first of sigs to arrive; from then on the signals have their default
// effect again. stop releases the signals.
func notifySignals(parent context.Context, sigs ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			signal.Reset(sigs...)
			cancel(signalCause{sig})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// Interruption names the signal that canceled ctx ("SIGINT", "SIGTERM"),
// "" if none did.
func Interruption(ctx context.Context) string {
	if sc, ok := errors.AsType[signalCause](context.Cause(ctx)); ok {
		return signalName(sc.sig)
	}
	return ""
}

// interruptedCode is the exit code of a command that ctx interrupted: 128
// plus the signal's number, as shells report it (SIGINT 130, SIGTERM 143);
// 130 when no signal is known.
func interruptedCode(ctx context.Context) int {
	if sc, ok := errors.AsType[signalCause](context.Cause(ctx)); ok {
		if n, ok := sc.sig.(syscall.Signal); ok {
			return 128 + int(n)
		}
	}
	return ExitInterrupted
}

// Run runs the command line args (args[0] is the program's name) and
// returns the exit code. The job's output goes to stdout; help goes to
// stdout when asked for and to stderr with a usage error; every failure is
// one line "weir: <reason>" on stderr.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, jobs JobRunner) int {
	name := "weir"
	if len(args) > 0 {
		name = filepath.Base(args[0])
		args = args[1:]
	}
	if args == nil {
		args = []string{} // cobra reads os.Args when given nil
	}
	root := newRootCmd(name, jobs, stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(ctx, err)
	if msg := oneLine(err); msg != "" {
		fmt.Fprintf(stderr, "weir: %s\n", msg)
	}
	return code
}

// exitCode maps a command's error to the exit code.
func exitCode(ctx context.Context, err error) int {
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case isUsage(err):
		return ExitUsage
	case ctx.Err() != nil:
		return interruptedCode(ctx)
	}
	return ExitFailed
}

// oneLine renders err as the reason of the one-line failure message: the
// engine's "weir: " prefix is dropped (the line has its own) and line
// breaks are folded so that the message stays one line.
func oneLine(err error) string {
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return ""
	}
	if errors.Is(err, flag.ErrHelp) {
		return ""
	}
	msg := strings.TrimPrefix(err.Error(), "weir: ")
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\r", "")
	return strings.ReplaceAll(msg, "\n", " | ")
}

// newRootCmd builds the command tree. Cobra's own printing of errors and
// usage is off: Run prints the one-line error, and usage is printed only
// when asked for.
func newRootCmd(name string, jobs JobRunner, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   name,
		Short: "Weir runs stream and batch dataflow jobs",
		Long: name + " runs the dataflow jobs registered in this binary on an embedded\n" +
			"mini-cluster. See '" + name + " jobs' for the jobs and '" + name + " help run' for the flags.\n" +
			"list, cancel, savepoint and stop act on the jobs of a running JobManager\n" +
			"through its REST API (such as '" + name + " run JOB --rest-addr HOST:PORT').",
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return Usage(fmt.Errorf("unknown command %q; commands: run, jobs, help, list, cancel, savepoint, stop", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(stderr)
			_ = cmd.Usage()
			return Usage(errors.New("no command given"))
		},
		PersistentPreRunE: func(*cobra.Command, []string) error {
			if err := jobs.Err(); err != nil {
				return &exitError{code: ExitFailed, err: fmt.Errorf("this binary is broken: %w", err)}
			}
			return nil
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return Usage(err) })
	root.AddCommand(newRunCmd(name, jobs, stdout, stderr), newJobsCmd(jobs, stdout))
	root.AddCommand(newPlanCmd(jobs, stdout))
	root.AddCommand(newClusterCmds(stdout, stderr)...)
	root.AddCommand(newJobManagerCmd(jobs, stderr), newTaskManagerCmd(jobs, stdout, stderr))
	root.AddCommand(newCacheCmd(stdout, stderr))
	return root
}
