// Package cli is the command line of Weir: what `weir` and every binary
// that calls weir.Main do with their arguments. It owns parsing, help text,
// messages and exit codes; it knows nothing of the engine. The root package
// hands it a JobRunner that lists the registered jobs and builds and runs
// one of them, so this package never imports the root package (which
// imports it) and its tests drive it with a fake runner.
//
// # Commands
//
//	weir run JOB [engine flags] [job flags]   build JOB and run it to the end
//	weir jobs                                 list the jobs in this binary
//	weir plan JOB [--format text|dot|mermaid] [engine flags] [job flags]
//	                                          print JOB's job graph without running it
//	weir list | cancel JOBID | savepoint JOBID [DIR] | stop JOBID [--savepoint-dir DIR] [--drain]
//	                                          act on a running JobManager's jobs through its
//	                                          REST API (--jobmanager HOST:PORT, default 127.0.0.1:8081);
//	                                          `weir run --rest-addr` serves that API for its
//	                                          embedded mini-cluster
//	weir help [COMMAND]                       help
//
// The jobmanager and taskmanager commands of DESIGN.md need the
// distributed runtime and are added with it: a command that exists must
// work.
//
// # Engine flags and job flags
//
// After `run`, engine flags are recognized by name wherever they appear,
// before or after JOB, as --name value or --name=value (one dash works too,
// as with Go's flag package); every other argument after JOB is handed, in
// order, to the job's builder, which parses its own flags. An argument "--"
// ends engine flags: everything after it goes to the job as it is (without
// the "--"), for a job whose own flag has an engine flag's name. Before JOB
// only engine flags and -h/--help are accepted. The flags the contract
// names but this version cannot honour yet (--jobmanager, --detach) are
// parsed and refused with an error: never silently ignored.
//
// # Exit codes
//
//	0    the job finished (or help was asked for)
//	1    the job failed, or the binary is broken (a job registered twice)
//	2    usage: bad or unknown flags, unknown command or job, a flag that
//	     this version does not support, or a job that its builder could not
//	     build from its arguments (a missing input file is one)
//	130  interrupted by SIGINT (Ctrl-C), or the context was canceled: the
//	     job was canceled
//	143  terminated by SIGTERM: the job was canceled
//
// An interrupted or failed run with --checkpoint-dir says which of its
// checkpoints is retained; running the same command again resumes from
// it (see runrecord.go; --fresh starts over).
//
// # Console log
//
// The engine's log goes to stderr through NewLogger: warnings and errors
// (each restart with its cause, a full disk with its path), and with
// --verbose (-v) informational messages too.
//
// Every failure prints exactly one line, "weir: <reason>", on stderr.
// stdout is left to the job's output; the summary of a finished job goes to
// stderr (and --quiet drops it).
package cli
