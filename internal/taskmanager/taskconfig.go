package taskmanager

import "github.com/weir-engine/weir/internal/task"

// taskConfig is the configuration of d's task: the TaskManager's, with the
// job's choice of state backend when the deployment makes one (Flink's
// state.backend.type of the job's configuration). Where a Pebble backend
// keeps its working directories stays the TaskManager's own directory.
func (tm *TaskManager) taskConfig(d Deployment) task.Config {
	cfg := tm.taskCfg
	if b := d.StateBackend; b != nil {
		cfg.StateBackend.Pebble, cfg.StateBackend.Incremental = b.Pebble, b.Incremental
	}
	return cfg
}
