package taskmanager

import (
	"testing"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
)

// A deployment's state backend overrides the TaskManager's for its task
// only; the directory Pebble works in stays the TaskManager's.
func TestTaskConfigAppliesTheJobsStateBackend(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tm, job *op.StateBackend
		want    op.StateBackend
	}{
		{"no choice: the TaskManager's", &op.StateBackend{LocalDir: "/data"}, nil, op.StateBackend{LocalDir: "/data"}},
		{"pebble, incremental", &op.StateBackend{LocalDir: "/data"}, &op.StateBackend{Pebble: true, Incremental: true},
			op.StateBackend{Pebble: true, Incremental: true, LocalDir: "/data"}},
		{"heap over a pebble default", &op.StateBackend{Pebble: true, LocalDir: "/data"}, &op.StateBackend{},
			op.StateBackend{LocalDir: "/data"}},
		{"the job's directory ignored", &op.StateBackend{LocalDir: "/data"}, &op.StateBackend{Pebble: true, LocalDir: "/elsewhere"},
			op.StateBackend{Pebble: true, LocalDir: "/data"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tm := New("tm", 1, nil, nil, task.Config{StateBackend: *tt.tm}, nil)
			if got := tm.taskConfig(Deployment{StateBackend: tt.job}).StateBackend; got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if tm.taskCfg.StateBackend != *tt.tm {
				t.Errorf("the TaskManager's own config changed to %+v", tm.taskCfg.StateBackend)
			}
		})
	}
}
