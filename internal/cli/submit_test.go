package cli

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/rest/api"
)

// The engine flags of a submission cross as api.EngineOptions and come
// back the same on the JobManager; the embedded cluster's own flags are
// refused.
func TestSubmissionRoundTrip(t *testing.T) {
	f := EngineFlags{Parallelism: 3, Mode: "batch", CheckpointInterval: 2 * time.Second, CheckpointDir: "/cp", SavepointDir: "/sp",
		FromSavepoint: "/cp/chk-3", AllowNonRestored: true, StateBackend: "hashmap"}
	pebble := f
	pebble.StateBackend, pebble.Incremental = "pebble", true
	for _, f := range []EngineFlags{f, pebble} {
		o, err := f.Submission()
		if err != nil {
			t.Fatal(err)
		}
		back, err := EngineFlagsOf(o)
		if err != nil {
			t.Fatal(err)
		}
		if back != f {
			t.Errorf("round trip: %+v, want %+v", back, f)
		}
	}
	for _, bad := range []EngineFlags{{TaskManagers: 2}, {Slots: 2}, {RestAddr: ":0"}} {
		if _, err := bad.Submission(); err == nil || !strings.Contains(err.Error(), "embedded mini-cluster") {
			t.Errorf("%+v: %v, want the embedded cluster's flag refused", bad, err)
		}
	}
	// A state directory would be the submitting host's: a TaskManager's
	// is its --data-dir.
	if _, err := (EngineFlags{StateBackend: "pebble", StateDir: "/st"}).Submission(); !errors.Is(err, cluster.ErrStateDir) {
		t.Errorf("pebble with --state-dir: %v, want it refused", err)
	}
}

func TestEngineFlagsOfBadOptions(t *testing.T) {
	for _, o := range []api.EngineOptions{
		{Parallelism: -1}, {Mode: "fast"}, {CheckpointInterval: "soon"}, {StateBackend: "rocksdb"}, {Incremental: true},
	} {
		if _, err := EngineFlagsOf(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	// The JobManager's default directories apply only with checkpoints.
	if f, err := EngineFlagsOf(api.EngineOptions{CheckpointDir: "/cp", SavepointDir: "/sp"}); err != nil || f.CheckpointDir != "" {
		t.Errorf("without checkpoints: %+v, %v; want no checkpoint directory", f, err)
	}
}
