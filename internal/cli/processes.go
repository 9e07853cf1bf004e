package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/gctune"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/memsize"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// The cluster processes: `weir jobmanager` and `weir taskmanager` run until
// SIGINT or SIGTERM, which shuts them down gracefully (exit 0). Each
// prints where it listens on stderr first.

// DefaultRPCAddr is the JobManager's RPC address without --rpc-addr (or
// --jobmanager of a TaskManager): Flink's jobmanager.rpc.port.
const DefaultRPCAddr = "127.0.0.1:6123"

// heartbeatFlags adds --heartbeat-interval and --heartbeat-timeout.
func heartbeatFlags(cmd *cobra.Command) *cluster.Heartbeat {
	var h cluster.Heartbeat
	cmd.Flags().DurationVar(&h.Interval, "heartbeat-interval", cluster.DefaultHeartbeatInterval, "time between two heartbeats (heartbeat.interval)")
	cmd.Flags().DurationVar(&h.Timeout, "heartbeat-timeout", cluster.DefaultHeartbeatTimeout,
		"a peer silent this long is lost (heartbeat.timeout); a closed connection is a loss at once")
	return &h
}

// clusterJobs is the binary's jobs as the cluster processes need them.
func clusterJobs(jobs JobRunner) (cluster.Jobs, error) {
	cj, ok := jobs.(cluster.Jobs)
	if !ok {
		return nil, errors.New("this binary cannot run cluster processes")
	}
	return cj, nil
}

// newJobManagerCmd is `weir jobmanager`.
func newJobManagerCmd(jobs JobRunner, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "jobmanager --checkpoint-dir DIR [--rpc-addr HOST:PORT] [--rest-addr HOST:PORT]",
		Short: "Run a JobManager: the session cluster that TaskManagers join and jobs are submitted to",
		Long: "Run a JobManager until SIGINT or SIGTERM: a Dispatcher that runs the jobs\n" +
			"submitted with 'run JOB --jobmanager REST-ADDR', a ResourceManager that\n" +
			"TaskManagers ('taskmanager --jobmanager RPC-ADDR') register with, and the\n" +
			"REST API for list, cancel, savepoint and stop. Every process of the cluster\n" +
			"must run the same binary. Both addresses bind 127.0.0.1 unless told otherwise.",
		Args: cobra.NoArgs,
	}
	var cfg cluster.JobManagerConfig
	f := cmd.Flags()
	f.StringVar(&cfg.RPCAddr, "rpc-addr", DefaultRPCAddr, "where TaskManagers reach the JobManager, `HOST:PORT` (port 0: a free one)")
	f.StringVar(&cfg.RESTAddr, "rest-addr", DefaultJobManager, "where the REST API listens, `HOST:PORT` (port 0: a free one)")
	f.StringVar(&cfg.CheckpointDir, "checkpoint-dir", "", "default checkpoint directory of the jobs, the same path on every TaskManager (state.checkpoints.dir)")
	f.StringVar(&cfg.SavepointDir, "savepoint-dir", "", "default savepoint directory (state.savepoints.dir)")
	f.StringVar(&cfg.HAStorageDir, "ha-storage-dir", "", "where the running jobs are kept for a restarted JobManager to recover (high-availability.storageDir; default: --checkpoint-dir)")
	f.DurationVar(&cfg.SlotWait, "slot-wait", cluster.DefaultSlotWait, "how long a job waits for enough slots (slot.request.timeout)")
	f.StringVar(&cfg.Scheduler, "scheduler", "", "the jobs' scheduler, adaptive or default (jobmanager.scheduler; default: adaptive for streaming jobs, default for batch jobs)")
	mode := f.String("scheduler-mode", "", "reactive: every job uses every slot up to its max parallelism, scaling with the TaskManagers (scheduler-mode)")
	ad := &cfg.Adaptive
	f.DurationVar(&ad.ResourceWaitTimeout, "resource-wait-timeout", adaptive.DefaultResourceWaitTimeout,
		"how long the adaptive scheduler waits for the slots a job needs at least before failing it (jobmanager.adaptive-scheduler.submission.resource-wait-timeout; reactive mode waits forever)")
	f.DurationVar(&ad.ResourceStabilizationTimeout, "resource-stabilization-timeout", adaptive.DefaultResourceStabilizationTimeout,
		"how long the adaptive scheduler waits for the slots to stop changing before it starts a job with fewer than it wants (jobmanager.adaptive-scheduler.submission.resource-stabilization-timeout; reactive mode does not)")
	f.DurationVar(&ad.Rescale.Cooldown, "cooldown-after-rescaling", adaptive.DefaultRescaleCooldown,
		"how long a job runs after a start, restart or rescale before the adaptive scheduler rescales it again (jobmanager.adaptive-scheduler.executing.cooldown-after-rescaling)")
	quota := f.String("cache-quota", "", "disk each TaskManager keeps for cached streams (cluster partitions), e.g. 2GB; beyond it the least recently used are evicted (default: no bound)")
	verbose := f.BoolP("verbose", "v", false, "log the JobManager's informational messages too")
	hb := heartbeatFlags(cmd)
	sec := securityFlags(cmd, true)
	config := configFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cj, err := clusterJobs(jobs)
		if err != nil {
			return err
		}
		if err := applyConfig(cmd, *config, true); err != nil {
			return err
		}
		switch {
		case cfg.Scheduler != "" && cfg.Scheduler != jobmaster.SchedulerAdaptive && cfg.Scheduler != jobmaster.SchedulerDefault:
			return Usage(fmt.Errorf("jobmanager: invalid value %q for --scheduler: want adaptive or default", cfg.Scheduler))
		case *mode != "" && *mode != string(adaptive.Reactive):
			return Usage(fmt.Errorf("jobmanager: invalid value %q for --scheduler-mode: want reactive", *mode))
		case *mode != "" && cfg.Scheduler == jobmaster.SchedulerDefault:
			return Usage(fmt.Errorf("jobmanager: --scheduler-mode %s needs the adaptive scheduler, not --scheduler default", *mode))
		case ad.ResourceWaitTimeout <= 0 || ad.ResourceStabilizationTimeout <= 0 || ad.Rescale.Cooldown <= 0:
			return Usage(fmt.Errorf("jobmanager: --resource-wait-timeout, --resource-stabilization-timeout and --cooldown-after-rescaling want positive durations"))
		}
		cfg.Adaptive.Mode = adaptive.Mode(*mode)
		if *quota != "" {
			if cfg.CacheQuota, err = memsize.Parse(*quota); err != nil {
				return Usage(fmt.Errorf("jobmanager: invalid value %q for --cache-quota: %w", *quota, err))
			}
		}
		for _, a := range []struct{ name, v string }{{"rpc-addr", cfg.RPCAddr}, {"rest-addr", cfg.RESTAddr}} {
			if err := checkHostPort(a.v, true); err != nil {
				return Usage(fmt.Errorf("jobmanager: invalid value %q for --%s: %w", a.v, a.name, err))
			}
		}
		cfg.RPCAddr, cfg.RESTAddr = listenAddr(cfg.RPCAddr), listenAddr(cfg.RESTAddr)
		cfg.Heartbeat, cfg.Security = *hb, *sec
		cfg.Logger = NewLogger(stderr, *verbose)
		jm, err := cluster.StartJobManager(cfg, cj)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "jobmanager: RPC at %s, REST API at http://%s\n", jm.RPCAddr(), jm.RESTAddr())
		<-cmd.Context().Done()
		fmt.Fprintf(stderr, "jobmanager: shutting down (%s)\n", Interruption(cmd.Context()))
		jm.Close()
		return nil
	}
	return cmd
}

// newTaskManagerCmd is `weir taskmanager`.
func newTaskManagerCmd(jobs JobRunner, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "taskmanager --jobmanager HOST:PORT --slots N [--data-dir DIR] [--data-addr HOST:PORT]",
		Short: "Run a TaskManager that offers its slots to a JobManager",
		Long: "Run a TaskManager until SIGINT or SIGTERM: it registers its slots with the\n" +
			"JobManager at --jobmanager (its RPC address), runs the subtasks deployed to\n" +
			"it and serves their results to other TaskManagers at --data-addr. When it\n" +
			"loses the JobManager it cancels its subtasks and registers again, retrying\n" +
			"with a growing delay. It binds 127.0.0.1 unless told otherwise.",
		Args: cobra.NoArgs,
	}
	var cfg cluster.TaskManagerConfig
	f := cmd.Flags()
	f.StringVarP(&cfg.JobManager, "jobmanager", "m", DefaultRPCAddr, "the JobManager's RPC address, `HOST:PORT`")
	f.IntVar(&cfg.Slots, "slots", 1, "number of task slots (taskmanager.numberOfTaskSlots)")
	f.StringVar(&cfg.DataDir, "data-dir", "", "directory of the subtasks' local working files (default: the temporary directory)")
	f.StringVar(&cfg.DataAddr, "data-addr", "127.0.0.1:0", "where other TaskManagers read this one's results, `HOST:PORT`")
	f.StringVar(&cfg.RPCAddr, "rpc-addr", "127.0.0.1:0", "where the JobManager reaches this TaskManager, `HOST:PORT`")
	f.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "serve the subtasks' metrics for Prometheus at http://`HOST:PORT`/metrics (default: not served)")
	processMemory := f.String("process-memory", "", "memory of this process, e.g. 4g (taskmanager.memory.process.size): the Go runtime's memory limit is 90% of it, with GOGC 200 (default: the cgroup's or machine's memory; GOGC or GOMEMLIMIT in the environment turn this off)")
	verbose := f.BoolP("verbose", "v", false, "log the TaskManager's informational messages too")
	hb := heartbeatFlags(cmd)
	sec := securityFlags(cmd, false)
	config := configFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		cj, err := clusterJobs(jobs)
		if err != nil {
			return err
		}
		if err := applyConfig(cmd, *config, false); err != nil {
			return err
		}
		if err := checkHostPort(cfg.JobManager, false); err != nil {
			return Usage(fmt.Errorf("taskmanager: invalid value %q for --jobmanager: %w", cfg.JobManager, err))
		}
		for _, a := range []struct{ name, v string }{{"rpc-addr", cfg.RPCAddr}, {"data-addr", cfg.DataAddr}, {"metrics-addr", cfg.MetricsAddr}} {
			if a.v == "" && a.name == "metrics-addr" {
				continue
			}
			if err := checkHostPort(a.v, true); err != nil {
				return Usage(fmt.Errorf("taskmanager: invalid value %q for --%s: %w", a.v, a.name, err))
			}
		}
		if cfg.Slots < 1 {
			return Usage(fmt.Errorf("taskmanager: --slots %d: want at least 1", cfg.Slots))
		}
		var memory int64
		if *processMemory != "" {
			if memory, err = memsize.Parse(*processMemory); err == nil {
				err = gctune.CheckProcessMemory(memory)
			}
			if err != nil {
				return Usage(fmt.Errorf("taskmanager: invalid value %q for --process-memory: %w", *processMemory, err))
			}
		}
		cfg.JobManager = dialAddr(cfg.JobManager)
		cfg.RPCAddr, cfg.DataAddr = listenAddr(cfg.RPCAddr), listenAddr(cfg.DataAddr)
		if cfg.MetricsAddr != "" {
			cfg.MetricsAddr = listenAddr(cfg.MetricsAddr)
		}
		cfg.Heartbeat, cfg.Security = *hb, *sec
		cfg.Logger = NewLogger(stderr, *verbose)
		defer gctune.Configure(memory, cfg.Logger)()
		cfg.Builder = cj.Builder(stdout, cfg.Logger)
		if c, ok := cj.(cluster.CachingJobs); ok {
			cfg.CachingBuilder = func(p cache.TaskManagerPartitions) funcspec.Builder { return c.CachingBuilder(stdout, cfg.Logger, p) }
		}
		tm, err := cluster.StartTaskManager(cfg)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "taskmanager %s: RPC at %s, data at %s, %d slots, JobManager at %s\n", tm.ID(), tm.RPCAddr(), tm.DataAddr(), cfg.Slots, cfg.JobManager)
		if a := tm.MetricsAddr(); a != "" {
			fmt.Fprintf(stderr, "taskmanager %s: metrics at http://%s/metrics\n", tm.ID(), a)
		}
		<-cmd.Context().Done()
		fmt.Fprintf(stderr, "taskmanager %s: shutting down (%s)\n", tm.ID(), Interruption(cmd.Context()))
		tm.Close()
		return nil
	}
	return cmd
}

// listenAddr is addr with an empty host made 127.0.0.1.
func listenAddr(addr string) string { return dialAddr(addr) }

// configFlag adds --config FILE.
func configFlag(cmd *cobra.Command) *string {
	return cmd.Flags().String("config", "", "YAML configuration `FILE` with Flink's keys (rest.port, heartbeat.timeout, ...); flags override it")
}

// applyConfig sets the flags of cmd that the command line left unset from
// the configuration file at path (none when path is ""). jm selects the
// JobManager's keys, otherwise the TaskManager's.
func applyConfig(cmd *cobra.Command, path string, jm bool) error {
	if path == "" {
		return nil
	}
	c, err := cluster.LoadConfig(path)
	if err != nil {
		return Usage(err)
	}
	jmRPC := c.Address("jobmanager.rpc.address", "jobmanager.rpc.port", DefaultRPCAddr)
	set := map[string]string{
		"heartbeat-interval": c["heartbeat.interval"], "heartbeat-timeout": c["heartbeat.timeout"],
	}
	if jm {
		set["rpc-addr"] = jmRPC
		set["rest-addr"] = c.Address("rest.address", "rest.port", DefaultJobManager)
		set["checkpoint-dir"] = c["state.checkpoints.dir"]
		set["savepoint-dir"] = c["state.savepoints.dir"]
		set["ha-storage-dir"] = c["high-availability.storageDir"]
		set["scheduler"] = c["jobmanager.scheduler"]
		set["scheduler-mode"] = c["scheduler-mode"]
		for _, k := range []string{"submission.resource-wait-timeout", "submission.resource-stabilization-timeout", "executing.cooldown-after-rescaling"} {
			set[k[strings.IndexByte(k, '.')+1:]] = c["jobmanager.adaptive-scheduler."+k]
		}
		set["slot-wait"] = c["slot.request.timeout"]
	} else {
		set["jobmanager"] = jmRPC
		set["slots"] = c["taskmanager.numberOfTaskSlots"]
		set["data-dir"] = c["taskmanager.state.local.root-dirs"]
		set["process-memory"] = c["taskmanager.memory.process.size"]
		if h, ok := c["taskmanager.rpc.address"]; ok {
			set["rpc-addr"] = net.JoinHostPort(h, "0")
		}
		if h, ok := c["taskmanager.data.address"]; ok {
			set["data-addr"] = net.JoinHostPort(h, "0")
		}
	}
	if err := securityConfig(c, set, jm); err != nil {
		return Usage(fmt.Errorf("config %s: %w", path, err))
	}
	for name, v := range set {
		if v == "" || cmd.Flags().Changed(name) {
			continue
		}
		if f := cmd.Flags().Lookup(name); f != nil && f.Value.Type() == "duration" {
			d, _ := cluster.ParseDuration(v) // checked by LoadConfig
			v = d.String()
		}
		if err := cmd.Flags().Set(name, v); err != nil {
			return Usage(fmt.Errorf("config %s: --%s %q: %w", path, name, v, err))
		}
	}
	return nil
}
