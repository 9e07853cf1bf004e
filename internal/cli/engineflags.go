package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/weir-engine/weir/internal/gctune"
	"github.com/weir-engine/weir/internal/memsize"
)

// maxParallelism is the largest parallelism the engine accepts (its
// largest number of key groups).
const maxParallelism = 1 << 15

// EngineFlags are the flags of `weir run` that configure the engine rather
// than the job. A zero field takes the engine's default.
type EngineFlags struct {
	// Parallelism is the default parallelism of operators (default: the
	// number of CPUs).
	Parallelism int
	// Mode is "streaming", "batch" or "automatic" ("" means streaming).
	Mode string
	// TaskManagers and Slots size the embedded mini-cluster (default one
	// TaskManager with as many slots as the job needs).
	TaskManagers, Slots int
	// NetworkMemory is the bytes of network buffers per TaskManager
	// (0: the engine's default).
	NetworkMemory int64
	// ProcessMemory is the memory of the process
	// (taskmanager.memory.process.size) the Go runtime's settings derive
	// from (0: the memory available to it); see package gctune.
	ProcessMemory int64
	// Quiet drops the summary line of a finished job.
	Quiet bool
	// CheckpointInterval enables checkpoints (0: off); CheckpointDir is
	// where they go (default: a temporary directory).
	CheckpointInterval time.Duration
	CheckpointDir      string
	// FromSavepoint is a savepoint (or retained checkpoint) to start from.
	FromSavepoint string
	// StateBackend is "hashmap" or "pebble" ("" means hashmap);
	// Incremental makes Pebble checkpoints incremental; StateDir is where
	// Pebble keeps its working files (default: the temporary directory).
	StateBackend string
	Incremental  bool
	StateDir     string
	// RestAddr is where the REST API is served while the job runs
	// (HOST:PORT; an empty host means 127.0.0.1, port 0 a free port); ""
	// means no REST server.
	RestAddr string
	// RestGrace is how long the REST server of RestAddr goes on answering
	// after the job ended while a savepoint operation's result has not
	// been read: 0 takes the default (5s), a negative value means no wait
	// (--rest-grace 0s).
	RestGrace time.Duration
	// SavepointDir is where savepoints without a target directory go
	// (Flink's state.savepoints.dir; default: "savepoints" under
	// CheckpointDir, and refused without one).
	SavepointDir string
	// AllowNonRestored drops state of the restored snapshot that no
	// operator of the job claims, instead of failing.
	AllowNonRestored bool
	// Fresh starts the job from scratch although CheckpointDir holds a
	// checkpoint of an unfinished earlier run of it.
	Fresh bool
	// Verbose prints the engine's informational messages on stderr, not
	// only its warnings and errors.
	Verbose bool
	// LogFormat is how the engine's log is written: "text" (default) or
	// "json" (one slog JSON object per line).
	LogFormat string
	// JobManager is the REST address of the cluster to submit the job to
	// ("": run it embedded); Detach returns once it is submitted.
	JobManager string
	Detach     bool
	// Scheduler is "adaptive" or "default" ("": adaptive for a streaming
	// job, default for a batch one); SchedulerMode "reactive" ("" means
	// the adaptive scheduler's default mode) is refused with "default".
	Scheduler, SchedulerMode string
}

// engineFlag is one engine flag: its name, the placeholder of its value
// ("" for a boolean flag), its help, and how it sets EngineFlags. A flag
// without set is part of the contract but not available in this version;
// missing says what is missing.
type engineFlag struct {
	name, arg, usage string
	// short is a one-letter alias, recognized only before the job's name
	// (after it, one-letter flags are the job's).
	short   string
	set     func(f *EngineFlags, v string) error
	missing string
}

// engineFlags lists the engine flags in the order help shows them.
var engineFlags = []engineFlag{
	{name: "parallelism", arg: "N", usage: "default parallelism of operators (default: the number of CPUs)",
		set: func(f *EngineFlags, v string) (err error) {
			f.Parallelism, err = positive(v, maxParallelism)
			return err
		}},
	{name: "mode", arg: "streaming|batch|automatic", usage: "runtime mode (default streaming); batch needs bounded sources, automatic is batch when every source is bounded",
		set: func(f *EngineFlags, v string) error {
			if v != "streaming" && v != "batch" && v != "automatic" {
				return fmt.Errorf("want streaming, batch or automatic")
			}
			f.Mode = v
			return nil
		}},
	{name: "taskmanagers", arg: "N", usage: "TaskManagers of the embedded mini-cluster (default 1)",
		set: func(f *EngineFlags, v string) (err error) {
			f.TaskManagers, err = positive(v, 1024)
			return err
		}},
	{name: "slots", arg: "N", usage: "slots per TaskManager (default: as many as the job needs)",
		set: func(f *EngineFlags, v string) (err error) {
			f.Slots, err = positive(v, maxParallelism)
			return err
		}},
	{name: "network-memory", arg: "SIZE", usage: "network buffer memory of each TaskManager, e.g. 256MiB or 4g (default 1GiB); a job that needs more fails at submission",
		set: func(f *EngineFlags, v string) (err error) {
			f.NetworkMemory, err = memsize.Parse(v)
			return err
		}},
	{name: "process-memory", arg: "SIZE", usage: "memory of this process, e.g. 4g: the Go runtime's memory limit is 90% of it, with GOGC 200 (default: the cgroup's or machine's memory; GOGC or GOMEMLIMIT in the environment turn this off)",
		set: func(f *EngineFlags, v string) (err error) {
			if f.ProcessMemory, err = memsize.Parse(v); err != nil {
				return err
			}
			return gctune.CheckProcessMemory(f.ProcessMemory)
		}},
	{name: "quiet", usage: "do not print the summary line of a finished job",
		set: boolFlag(func(f *EngineFlags, b bool) { f.Quiet = b })},
	{name: "checkpoint-interval", arg: "DUR", usage: "checkpoint every DUR (e.g. 100ms, 1m); enables restarts from the latest checkpoint",
		set: func(f *EngineFlags, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("want a positive duration such as 500ms or 1m")
			}
			f.CheckpointInterval = d
			return nil
		}},
	{name: "checkpoint-dir", arg: "DIR", usage: "where checkpoints are stored: a path or a URL (default: a temporary directory)",
		set: func(f *EngineFlags, v string) error {
			if v == "" {
				return fmt.Errorf("want a directory")
			}
			f.CheckpointDir = v
			return nil
		}},
	{name: "from-savepoint", arg: "PATH", usage: "restore the job's state from a savepoint or retained checkpoint",
		set: func(f *EngineFlags, v string) error {
			if v == "" {
				return fmt.Errorf("want a path")
			}
			f.FromSavepoint = v
			return nil
		}},
	{name: "state-backend", arg: "hashmap|pebble", usage: "where keyed state lives: hashmap (the heap, default) or pebble (an LSM tree on local disk)",
		set: func(f *EngineFlags, v string) error {
			if v != "hashmap" && v != "pebble" {
				return fmt.Errorf("want hashmap or pebble")
			}
			f.StateBackend = v
			return nil
		}},
	{name: "incremental", usage: "incremental checkpoints of the pebble state backend: upload only new SST files",
		set: boolFlag(func(f *EngineFlags, b bool) { f.Incremental = b })},
	{name: "state-dir", arg: "DIR", usage: "local working directory of the pebble state backend (default: the temporary directory)",
		set: func(f *EngineFlags, v string) error {
			if v == "" {
				return fmt.Errorf("want a directory")
			}
			f.StateDir = v
			return nil
		}},
	{name: "rest-addr", arg: "HOST:PORT", usage: "serve the REST API (for list, cancel, savepoint, stop) at HOST:PORT while the job runs; port 0 picks one",
		set: func(f *EngineFlags, v string) error {
			if err := checkHostPort(v, true); err != nil {
				return err
			}
			f.RestAddr = v
			return nil
		}},
	{name: "rest-grace", arg: "DUR", usage: "after the job ended, keep the REST API up to DUR (default 5s) until clients read their savepoint results",
		set: func(f *EngineFlags, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return fmt.Errorf("want a duration such as 5s (0s: do not wait)")
			}
			f.RestGrace = d
			if d == 0 {
				f.RestGrace = -1 // asked for no wait, unlike the zero value
			}
			return nil
		}},
	{name: "savepoint-dir", arg: "DIR", usage: "default directory of savepoints taken without one, as 'savepoint JOBID' and 'stop JOBID' (default: DIR/savepoints of --checkpoint-dir)",
		set: func(f *EngineFlags, v string) error {
			if v == "" {
				return fmt.Errorf("want a directory")
			}
			f.SavepointDir = v
			return nil
		}},
	{name: "allow-non-restored-state", short: "n", usage: "drop state of the restored savepoint or checkpoint that no operator of the job claims",
		set: boolFlag(func(f *EngineFlags, b bool) { f.AllowNonRestored = b })},
	{name: "fresh", usage: "start from scratch, not from the checkpoint an unfinished earlier run of the job left in --checkpoint-dir",
		set: boolFlag(func(f *EngineFlags, b bool) { f.Fresh = b })},
	{name: "verbose", short: "v", usage: "print the engine's informational messages on stderr, not only warnings and errors",
		set: boolFlag(func(f *EngineFlags, b bool) { f.Verbose = b })},
	{name: "log-format", arg: "text|json", usage: "the engine's log on stderr as text lines (default) or as JSON objects, one per line, with job, vertex and subtask",
		set: func(f *EngineFlags, v string) error {
			if v != "text" && v != "json" {
				return fmt.Errorf("want text or json")
			}
			f.LogFormat = v
			return nil
		}},
	{name: "jobmanager", short: "m", arg: "HOST:PORT", usage: "submit to the cluster whose JobManager's REST API is at HOST:PORT instead of running embedded",
		set: func(f *EngineFlags, v string) error {
			if err := checkHostPort(v, false); err != nil {
				return err
			}
			f.JobManager = v
			return nil
		}},
	{name: "detach", short: "d", usage: "with --jobmanager, print the job id and return at once",
		set: boolFlag(func(f *EngineFlags, b bool) { f.Detach = b })},
	{name: "scheduler", arg: "adaptive|default", usage: "the job's scheduler: adaptive runs it at the parallelism its slots allow and rescales as they change; default runs each operator at its parallelism or fails (default: adaptive for streaming, default for batch)",
		set: func(f *EngineFlags, v string) error {
			if v != "adaptive" && v != "default" {
				return fmt.Errorf("want adaptive or default")
			}
			f.Scheduler = v
			return nil
		}},
	{name: "scheduler-mode", arg: "reactive", usage: "reactive: the adaptive scheduler uses every slot up to each operator's max parallelism",
		set: func(f *EngineFlags, v string) error {
			if v != "reactive" {
				return fmt.Errorf("want reactive")
			}
			f.SchedulerMode = v
			return nil
		}},
}

// lookupEngineFlag finds an engine flag by name, or by its one-letter
// alias when short is set (before the job's name).
func lookupEngineFlag(name string, short bool) *engineFlag {
	for i := range engineFlags {
		f := &engineFlags[i]
		if f.name == name || short && f.short != "" && f.short == name {
			return f
		}
	}
	return nil
}

// boolFlag is the set function of a boolean flag.
func boolFlag(set func(f *EngineFlags, b bool)) func(f *EngineFlags, v string) error {
	return func(f *EngineFlags, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		set(f, b)
		return nil
	}
}

// positive parses a decimal integer in [1, limit].
func positive(v string, limit int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > limit {
		return 0, fmt.Errorf("want an integer from 1 to %d", limit)
	}
	return n, nil
}

// RunArgs is the parsed command line of `weir run`.
type RunArgs struct {
	// Job is the job's name ("" when none was given).
	Job string
	// Engine holds the engine flags.
	Engine EngineFlags
	// JobArgs are the arguments for the job's builder, in order.
	JobArgs []string
	// Help is set when -h or --help came before the job's name (after it,
	// the flag goes to the job, which prints its own help).
	Help bool
}

// ParseRunArgs splits the arguments after `run` into the job's name, the
// engine flags and the job's arguments, as the package comment describes.
// Its errors are one line and the user's to fix (exit 2).
func ParseRunArgs(args []string) (RunArgs, error) {
	var r RunArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if r.Job == "" && i+1 < len(args) {
				r.Job, i = args[i+1], i+1
			}
			r.JobArgs = append(r.JobArgs, args[i+1:]...)
			break
		}
		name, value, hasValue, isFlag := splitFlag(a)
		if !isFlag {
			if r.Job == "" {
				r.Job = a
			} else {
				r.JobArgs = append(r.JobArgs, a)
			}
			continue
		}
		ef := lookupEngineFlag(name, r.Job == "")
		switch {
		case ef == nil && r.Job != "":
			r.JobArgs = append(r.JobArgs, a)
			continue
		case ef == nil && (name == "h" || name == "help"):
			r.Help = true
			continue
		case ef == nil:
			return r, fmt.Errorf("unknown engine flag %s before the job name (job flags go after it)%s", a, suggest(name))
		case ef.set == nil:
			return r, fmt.Errorf("--%s is not available in this version: %s", name, ef.missing)
		}
		if !hasValue {
			if ef.arg == "" {
				value = "true"
			} else if i+1 < len(args) {
				i++
				value = args[i]
			} else {
				return r, fmt.Errorf("flag --%s needs a value (%s)", name, ef.arg)
			}
		}
		if err := ef.set(&r.Engine, value); err != nil {
			return r, fmt.Errorf("invalid value %q for --%s: %w", value, name, err)
		}
	}
	if r.Engine.CheckpointDir != "" && r.Engine.CheckpointInterval == 0 {
		return r, fmt.Errorf("--checkpoint-dir needs --checkpoint-interval")
	}
	if (r.Engine.Incremental || r.Engine.StateDir != "") && r.Engine.StateBackend != "pebble" {
		return r, fmt.Errorf("--incremental and --state-dir need --state-backend pebble")
	}
	if r.Engine.SavepointDir != "" && r.Engine.CheckpointInterval == 0 {
		return r, fmt.Errorf("--savepoint-dir needs --checkpoint-interval (savepoints need checkpointing)")
	}
	if r.Engine.Detach && r.Engine.JobManager == "" {
		return r, fmt.Errorf("--detach needs --jobmanager: only a job on a cluster goes on without this process")
	}
	if r.Engine.Fresh && r.Engine.CheckpointDir == "" {
		return r, fmt.Errorf("--fresh needs --checkpoint-dir: only a run with one resumes an earlier run")
	}
	if r.Engine.RestGrace != 0 && r.Engine.RestAddr == "" {
		return r, fmt.Errorf("--rest-grace needs --rest-addr")
	}
	if r.Engine.SchedulerMode != "" && r.Engine.Scheduler == "default" {
		return r, fmt.Errorf("--scheduler-mode %s needs the adaptive scheduler, not --scheduler default", r.Engine.SchedulerMode)
	}
	return r, nil
}

// splitFlag splits "-name", "--name" and "--name=value". Like Go's flag
// package, it takes "-" alone and words starting with "---" for
// non-flags.
func splitFlag(a string) (name, value string, hasValue, isFlag bool) {
	if len(a) < 2 || a[0] != '-' {
		return "", "", false, false
	}
	name = a[1:]
	if name[0] == '-' {
		name = name[1:]
	}
	if name == "" || name[0] == '-' || name[0] == '=' {
		return "", "", false, false
	}
	name, value, hasValue = strings.Cut(name, "=")
	return name, value, hasValue, true
}

// suggest returns " (did you mean --x?)" when name is a likely misspelling
// of the engine flag x, else "".
func suggest(name string) string {
	best, bestDist := "", 3
	for _, f := range engineFlags {
		if d := editDistance(name, f.name); d < bestDist {
			best, bestDist = f.name, d
		}
	}
	if best == "" || best == name {
		return ""
	}
	return fmt.Sprintf(" (did you mean --%s?)", best)
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// engineFlagsHelp is the engine flags section of the help of `run`.
func engineFlagsHelp() string {
	var b strings.Builder
	for _, f := range engineFlags {
		left := "--" + f.name
		if f.short != "" {
			left = "-" + f.short + ", " + left
		}
		if f.arg != "" {
			left += " " + f.arg
		}
		usage := f.usage
		if f.set == nil {
			usage += " (not available in this version)"
		}
		fmt.Fprintf(&b, "  %-26s %s\n", left, usage)
	}
	return b.String()
}
