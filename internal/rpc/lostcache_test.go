package rpc_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/cache"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/scheduler"
)

// A subtask's failure to read a cached dataset crosses from the
// TaskManager to the JobManager's process with the dataset it names (the
// JobManager recomputes that dataset) and marked unrecoverable (a restart
// would read the same holders); any other failure names no dataset.
func TestLostCachedDatasetCrossesProcesses(t *testing.T) {
	readErr := &cache.ReadError{Dataset: "0123456789abcdef0123456789abcdef", Err: errors.New("partition 1: connection reset")}
	for _, tt := range []struct {
		name        string
		err         error
		dataset     string
		unrecovered bool
	}{
		{"read error", readErr, readErr.Dataset, true},
		{"wrapped by the operator", fmt.Errorf("operator %q: %w", "Cache source", readErr), readErr.Dataset, true},
		{"another failure", errors.New("boom"), "", false},
		{"unrecoverable, no cache", scheduler.MarkUnrecoverable(errors.New("savepoint")), "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := scheduler.TaskState{ID: graph.SubtaskID{Vertex: 1}, State: scheduler.ExecFailed, Err: tt.err}
			remote := through(t, rpc.TaskState("job", ts, nil))
			rpc.TakeLocal(remote.GetError().GetEmbeddedRef()) // as in another process
			_, got, err := rpc.FromTaskState(remote)
			if err != nil {
				t.Fatal(err)
			}
			ds, ok := cache.Lost(got.Err)
			if ds != tt.dataset || ok != (tt.dataset != "") {
				t.Errorf("cache.Lost(%v) = %q, %v; want %q", got.Err, ds, ok, tt.dataset)
			}
			if got.Err.Error() != tt.err.Error() {
				t.Errorf("text %q, want %q", got.Err, tt.err)
			}
			if errors.Is(got.Err, scheduler.ErrUnrecoverable) != tt.unrecovered {
				t.Errorf("unrecoverable = %v, want %v", !tt.unrecovered, tt.unrecovered)
			}
		})
	}
}
