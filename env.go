package weir

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/runner"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// RuntimeMode is how a job executes.
type RuntimeMode int

const (
	// Streaming runs every operator at once with pipelined exchanges; it
	// works for bounded and unbounded sources.
	Streaming RuntimeMode = iota
	// Batch requires every source to be bounded. Keyed operators sort their
	// input by key and keep the state of one key at a time: a reduce emits
	// one final record per key, windows and event-time timers fire at the
	// end of each key, without watermarks; checkpoints are not taken.
	Batch
	// Automatic is Flink's AUTOMATIC: each execution runs as Batch when
	// every one of its sources is bounded, as Streaming otherwise.
	Automatic
)

func (m RuntimeMode) String() string {
	switch m {
	case Batch:
		return "batch"
	case Automatic:
		return "automatic"
	}
	return "streaming"
}

// Options configure an Env. The zero value of a field takes its default.
type Options struct {
	// Parallelism is the default parallelism of operators (default: the
	// number of CPUs).
	Parallelism int
	// MaxParallelism is the number of key groups (default: derived from the
	// parallelism as Flink does, at least 128).
	MaxParallelism int
	// Mode is the runtime mode (default Streaming).
	Mode RuntimeMode
	// SortMemory is the bytes a batch keyed operator subtask sorts in
	// memory before spilling to disk (default 64 MiB).
	SortMemory int64
	// TaskManagers and SlotsPerTaskManager size the embedded mini-cluster
	// (default one TaskManager with as many slots as the job needs).
	TaskManagers        int
	SlotsPerTaskManager int
	// NetworkMemory is the bytes of network buffers of each TaskManager
	// (default 1 GiB, Flink's taskmanager.memory.network.max): a ceiling
	// that buffers are allocated under as channels fill. A job whose
	// channels need more fails at submission; see WithNetworkMemory.
	NetworkMemory int64
	// DisableChaining runs every operator in its own task.
	DisableChaining bool
	// BufferTimeout bounds how long a record waits in a partly filled
	// network buffer (default 100ms when zero). FlushAlways, which
	// WithBufferTimeout(0) sets, sends a buffer after every record.
	BufferTimeout time.Duration
	// StateBackend is where keyed state lives (default the heap).
	StateBackend StateBackend
	// Restart is the restart strategy (default NoRestart).
	Restart RestartStrategy
	// Checkpoints enables checkpointing (nil: off).
	Checkpoints *CheckpointConfig
	// RestoreFrom is a savepoint or checkpoint to start from;
	// AllowNonRestored drops state that no operator claims.
	RestoreFrom      string
	AllowNonRestored bool
	// Logger receives the engine's logs (default: discarded).
	Logger *slog.Logger
	// JobID is the id of the job Execute runs: 32 lower-case hex
	// characters (default: a new random one for every run), known before
	// it starts, e.g. to write beside its checkpoints. Never give two runs
	// the same id: connectors name files and transactions after it.
	JobID string
	// Lineage names the chain of runs the job continues (see
	// SinkContext.Lineage): the id of the first. Empty (the default) means
	// the job's own id, or the lineage of the snapshot it restores. Set it
	// to go on after a run that died before its first checkpoint, so that
	// sinks clean up what that run left: weir run does.
	Lineage string
	// Stdout is where Print writes (default os.Stdout).
	Stdout io.Writer
	// CacheDir, when set, keeps the caches of Cache in this directory
	// beyond the program (see WithCacheDir); CacheQuota bounds their
	// bytes (see WithCacheQuota).
	CacheDir   string
	CacheQuota int64
	// taskClock is the tasks' processing-time clock (nil: the wall
	// clock); tests set a fake one (export_test.go).
	taskClock clock.Clock
	// cacheMaxPartitionBytes bounds each partition of a cache (0: none):
	// tests stand in for a full disk with it (export_test.go).
	cacheMaxPartitionBytes int64
	// Scheduler is the job's scheduler (Flink's jobmanager.scheduler):
	// "adaptive" (FLIP-160: the job runs at the parallelism its slots
	// allow, and rescales as they change) or "default" (every operator
	// at its parallelism, or not at all; batch jobs stage by stage). ""
	// is adaptive for a streaming job and default for a batch one.
	// SchedulerMode "reactive" makes the adaptive scheduler use every
	// slot up to each operator's max parallelism; see WithScheduler.
	Scheduler, SchedulerMode string
}

// Option changes Options.
type Option func(*Options)

// WithParallelism sets the default parallelism.
func WithParallelism(n int) Option { return func(o *Options) { o.Parallelism = n } }

// WithScheduler selects the job's scheduler, "adaptive" or "default" (""
// for adaptive on a streaming job, default on a batch one), and the
// adaptive scheduler's mode ("reactive", or "" for its default).
func WithScheduler(scheduler, mode string) Option {
	return func(o *Options) { o.Scheduler, o.SchedulerMode = scheduler, mode }
}

// WithMaxParallelism sets the number of key groups.
func WithMaxParallelism(n int) Option { return func(o *Options) { o.MaxParallelism = n } }

// WithMode sets the runtime mode.
func WithMode(m RuntimeMode) Option { return func(o *Options) { o.Mode = m } }

// WithMiniCluster sizes the embedded mini-cluster.
func WithMiniCluster(taskManagers, slotsPerTaskManager int) Option {
	return func(o *Options) { o.TaskManagers, o.SlotsPerTaskManager = taskManagers, slotsPerTaskManager }
}

// WithNetworkMemory sets the network memory of each TaskManager of the
// embedded mini-cluster. A channel between two subtasks needs at least two
// buffers of 36 KiB, so an ALL_TO_ALL edge of parallelism p on one
// TaskManager needs at least 2*p*p of them; a job that needs more than the
// network memory holds fails at submission with an error that says so.
func WithNetworkMemory(bytes int64) Option { return func(o *Options) { o.NetworkMemory = bytes } }

// WithoutChaining disables operator chaining.
func WithoutChaining() Option { return func(o *Options) { o.DisableChaining = true } }

// FlushAlways is the buffer timeout that sends a network buffer after every
// record and watermark written to it (Flink's execution.buffer-timeout: 0):
// the lowest latency, at the cost of one buffer per record.
const FlushAlways time.Duration = -1

// WithBufferTimeout sets the network buffer timeout: how long a record may
// wait in a partly filled buffer while its task is busy (an idle task sends
// its buffers at once). As in Flink, 0 means FlushAlways; so does a
// negative d (Weir has no timeout-less mode, Flink's -1).
func WithBufferTimeout(d time.Duration) Option {
	return func(o *Options) {
		if d <= 0 {
			d = FlushAlways
		}
		o.BufferTimeout = d
	}
}

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(o *Options) { o.Logger = l } }

// WithJobID sets the job's id (see Options.JobID).
func WithJobID(id string) Option { return func(o *Options) { o.JobID = id } }

// WithLineage sets the lineage the job continues (see Options.Lineage).
func WithLineage(id string) Option { return func(o *Options) { o.Lineage = id } }

// WithStdout sets where Print writes.
func WithStdout(w io.Writer) Option { return func(o *Options) { o.Stdout = w } }

// WithOptions replaces all options.
func WithOptions(opts Options) Option { return func(o *Options) { *o = opts } }

// Validate reports options that cannot work.
func (o *Options) Validate() error {
	switch {
	case o.Parallelism < 0:
		return fmt.Errorf("weir: parallelism %d must be positive", o.Parallelism)
	case o.MaxParallelism < 0:
		return fmt.Errorf("weir: max parallelism %d must be positive", o.MaxParallelism)
	case o.MaxParallelism > 0 && o.Parallelism > o.MaxParallelism:
		return fmt.Errorf("weir: parallelism %d is greater than max parallelism %d", o.Parallelism, o.MaxParallelism)
	case o.TaskManagers < 0 || o.SlotsPerTaskManager < 0:
		return fmt.Errorf("weir: mini-cluster size %d x %d must be positive", o.TaskManagers, o.SlotsPerTaskManager)
	case o.NetworkMemory < 0:
		return fmt.Errorf("weir: network memory %d must be positive", o.NetworkMemory)
	case o.Mode != Streaming && o.Mode != Batch && o.Mode != Automatic:
		return fmt.Errorf("weir: unknown runtime mode %d", o.Mode)
	case o.JobID != "" && !isJobID(o.JobID):
		return fmt.Errorf("weir: job id %q: want 32 lower-case hex characters", o.JobID)
	}
	return nil
}

func (o *Options) ensureDefaults() {
	if o.Parallelism == 0 {
		o.Parallelism = runtime.NumCPU()
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
}

// Env is a program under construction and the context it executes in. It
// is not safe for concurrent use while the program is being built.
//
// An Env can run several jobs in a row, as Flink's
// StreamExecutionEnvironment does: each execution (Execute, ExecuteAsync,
// Collect, CollectN) runs the sinks added since the previous execution and
// exactly the transformations they need, then forgets those sinks. Streams
// stay usable: a sink added later on a stream of an earlier execution runs
// that stream's upstream again, in the new job.
type Env struct {
	opts   Options
	nextID int
	err    error
	// sinks are the sinks added since the last execution, in the order
	// they were added; the Env holds no other transformation, the sinks
	// reach theirs through their inputs.
	sinks []*graph.Transformation
	// accumulators are the counters of user functions, reset when a job
	// starts.
	accumulators *accumulators
	// runner starts the jobs: the embedded mini-cluster.
	runner runner.Runner
	// registration is the registered builder that built the program of
	// the next execution (nil: the program built itself); see
	// registeredspec.go.
	registration *registration
	// caches are the datasets of cached streams (cache.go), made at
	// first use; cached maps each cache node to what the Env knows of it;
	// envID prefixes the ids of the Env's datasets.
	caches *cache.Registry
	// persistentCaches are the datasets kept in Options.CacheDir.
	persistentCaches *cache.Registry
	cached           map[int]*cacheNode
	envID            string
	// cluster is how the Env's cached streams use a session cluster's
	// cluster partitions, when it is a job's on one (cachecluster.go).
	cluster clusterCaching
	// sourceInputs describes, by source transformation id, what a source
	// reads (its files, with sizes and modification times), for the
	// lineage fingerprint of persistent caches (lineage.go).
	sourceInputs map[int]string
	// reruns are what sinks reset when Execute runs their execution again
	// after a lost cache (a Collect empties its buffer), by sink.
	reruns map[*graph.Transformation]func()
}

// NewEnv returns an empty program.
func NewEnv(opts ...Option) *Env {
	e := &Env{accumulators: newAccumulators(), runner: runner.Embedded{}}
	for _, o := range opts {
		o(&e.opts)
	}
	if err := e.opts.Validate(); err != nil {
		e.fail(err)
	}
	e.opts.ensureDefaults()
	return e
}

// Options returns the Env's effective options.
func (e *Env) Options() Options { return e.opts }

// Err returns the first error recorded while building the program.
func (e *Env) Err() error { return e.err }

// fail records a construction error; the first one wins.
func (e *Env) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// add gives t the next ID. IDs follow the order of creation over the
// Env's life, never reused across executions, so default operator uids are
// stable and the transformations of an execution sort into the order they
// were created in (graph.Upstream).
func (e *Env) add(t *graph.Transformation) *graph.Transformation {
	e.nextID++
	t.ID = e.nextID
	return t
}

// addSink records t, a sink, for the next execution.
func (e *Env) addSink(t *graph.Transformation) { e.sinks = append(e.sinks, t) }

// onRerun records what sink resets when Execute runs its execution again.
func (e *Env) onRerun(sink *graph.Transformation, reset func()) {
	if e.reruns == nil {
		e.reruns = make(map[*graph.Transformation]func())
	}
	e.reruns[sink] = reset
}

// takeSinks returns the sinks of the next execution and forgets them.
func (e *Env) takeSinks() []*graph.Transformation {
	sinks := e.sinks
	e.sinks = nil
	return sinks
}

// VertexMetrics are the counters of one task vertex (a chain of operators)
// summed over its subtasks.
type VertexMetrics struct {
	Name        string
	Parallelism int
	// RecordsIn counts records entering the chain from the network;
	// RecordsOut counts records it sent to the network.
	RecordsIn, RecordsOut int64
	// Source is set for a source vertex. SourceEmitted and SourceTotal
	// are then how much of their input its subtasks emitted and how much
	// there is, in the source's own unit (records, or bytes of a file);
	// SourceTotal is -1 when the source does not know it (yet).
	Source                     bool
	SourceEmitted, SourceTotal int64
}

// Result describes a finished job.
type Result struct {
	JobID    string
	JobName  string
	Duration time.Duration
	Vertices []VertexMetrics
	// Accumulators holds the counters user functions added through
	// RuntimeContext.Counter, summed over subtasks.
	Accumulators map[string]int64
	// Restarts is how often the job restarted after failures.
	Restarts int
	// Checkpoints counts the job's checkpoints.
	Checkpoints CheckpointStats
	// Savepoint is the location of the savepoint the job was stopped
	// with (JobClient.StopWithSavepoint); empty when it ended otherwise.
	Savepoint string
}

// ErrJobFailed wraps the root cause of a failed job.
var ErrJobFailed = errors.New("weir: job failed")

// JobGraph translates what the next execution would run (the sinks added
// since the last one and their upstream) and returns a text description of
// its task vertices, one per line: for tests and for `weir run --plan`. It
// does not execute anything nor forget the sinks.
func (e *Env) JobGraph() (string, error) {
	jg, err := e.jobGraph()
	if err != nil {
		return "", err
	}
	var s string
	for _, v := range jg.Vertices {
		s += fmt.Sprintf("%s parallelism=%d\n", v.Name, v.Parallelism)
		for _, o := range v.Outputs {
			s += fmt.Sprintf("  -> %s %v %v\n", o.Target.Name, o.StreamEdge.Partitioner.Kind, o.Pattern)
		}
	}
	return s, nil
}

// jobGraph translates the next execution without forgetting its sinks.
func (e *Env) jobGraph() (*graph.JobGraph, error) {
	jg, _, err := e.jobGraphOf(e.sinks, false)
	return jg, err
}

// jobGraphOf translates sinks and the transformations they need. Cached
// streams whose cache exists are read from it (cacheplan.go); with
// produce, the others create their cache if the execution runs in batch
// mode, and the plan holds their productions.
func (e *Env) jobGraphOf(sinks []*graph.Transformation, produce bool) (*graph.JobGraph, *cachePlan, error) {
	if e.err != nil {
		return nil, nil, e.err
	}
	if len(sinks) == 0 {
		return nil, nil, fmt.Errorf("weir: no sink was added since the last execution: %w", graph.ErrEmpty)
	}
	sinks, plan := e.readCaches(sinks, produce)
	jg, err := e.translate(sinks, plan, produce)
	if err != nil {
		plan.abort()
		return nil, nil, err
	}
	return jg, plan, nil
}

// translate translates sinks, after the caches they read were substituted.
func (e *Env) translate(sinks []*graph.Transformation, plan *cachePlan, produce bool) (*graph.JobGraph, error) {
	ts := graph.Upstream(sinks)
	batch := e.opts.Mode == Batch || e.opts.Mode == Automatic
	for _, t := range ts {
		if t.Kind == graph.KindSource && !t.Bounded {
			if e.opts.Mode == Batch {
				return nil, fmt.Errorf("weir: batch mode needs bounded sources, and %q is unbounded", t.Name)
			}
			batch = false
		}
	}
	if batch && (produce || e.cluster.tm != nil) {
		var err error
		if sinks, err = e.writeCaches(sinks, plan); err != nil {
			return nil, err
		}
		ts = graph.Upstream(sinks)
	}
	sg, err := graph.Translate(ts, graph.Config{
		Parallelism:     e.opts.Parallelism,
		MaxParallelism:  e.opts.MaxParallelism,
		DisableChaining: e.opts.DisableChaining,
		Batch:           batch,
	})
	if err != nil {
		return nil, err
	}
	jg := graph.BuildJobGraph(sg)
	if err := typeinfo.CheckEdges(jg); err != nil {
		return nil, fmt.Errorf("weir: %w", err)
	}
	return jg, nil
}

// Execute runs the program on the Env's runner (the embedded mini-cluster)
// and waits for it to end.
//
// It runs the sinks added since the previous execution of e and the
// transformations that lead to them, nothing else, and forgets those sinks,
// even when the job cannot start (so that a failed Collect leaves no sink
// behind): a later execution runs only sinks added after this call, though
// they may hang off streams of earlier ones (see Env). With no new sink it
// returns an error wrapping graph.ErrEmpty.
//
// An execution that reads a cache (see Cache) which turns out to be lost
// or damaged while the job reads it runs again, once per cache, as if the
// cache had never been created: it computes the stream and caches it
// anew; a warning says so (ExecuteAsync does not: its job fails).
//
// It returns an error wrapping ErrJobFailed (and the operator's error) when
// the job failed, and ctx's error when ctx ended first; in both cases every
// goroutine of the job has ended when Execute returns.
func (e *Env) Execute(ctx context.Context, name string) (*Result, error) {
	registered, rebuild := e.takeRegistration()
	sinks := e.takeSinks()
	defer func() {
		for _, sink := range sinks {
			delete(e.reruns, sink)
		}
	}()
	var failover cacheFailover
	for {
		c, err := e.submit(ctx, name, sinks, registered, rebuild)
		if err != nil {
			return nil, err
		}
		res, err := c.Wait()
		drop := failover.next(executionEnd{err: err, canceled: ctx.Err() != nil, reads: c.caches.reads})
		if len(drop) == 0 {
			return res, err
		}
		// FLIP-205's failover (cachefailover.go): the job could not read
		// a cache; run it again as if the cache had never been created.
		for _, sink := range sinks {
			if reset := e.reruns[sink]; reset != nil {
				reset()
			}
		}
		for _, ds := range drop {
			e.opts.Logger.Warn("cached result lost or damaged while reading it: running the execution again, computing and caching it anew",
				"job", name, "dataset", ds, "error", err)
			if rerr := e.releaseDataset(ds); rerr != nil {
				e.opts.Logger.Warn("release of a damaged cache", "dataset", ds, "error", rerr)
			}
		}
	}
}

// isJobID reports whether id is 32 lower-case hex characters.
func isJobID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// NewJobID returns a random job id: 32 lower-case hex characters, as
// Flink's.
func NewJobID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
