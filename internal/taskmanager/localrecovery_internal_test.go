package taskmanager

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/task"
)

// With local recovery on, every TaskManager keeps its subtasks' local
// state copies in a directory of its own under the state directory, and
// removes it when it closes; without Pebble, or with local recovery off,
// there is none.
func TestLocalRecoveryDirPerTaskManager(t *testing.T) {
	root := t.TempDir()
	open := func(id string, sb op.StateBackend) *TaskManager {
		return New(id, 1, network.NewRegistry(), network.NewBufferPool(0, network.DefaultBufferSize), task.Config{StateBackend: sb}, nil)
	}
	on := op.StateBackend{Pebble: true, LocalRecovery: true, LocalDir: root}
	a, b := open("tm-a", on), open("tm:b/1", on)
	da, db := a.taskCfg.StateBackend.LocalRecoveryDir, b.taskCfg.StateBackend.LocalRecoveryDir
	if da == db || filepath.Dir(da) != root || filepath.Dir(db) != root {
		t.Fatalf("local recovery dirs %q and %q, want two directories in %s", da, db, root)
	}
	if prefix := fmt.Sprintf("weir-%d-local-", os.Getpid()); !strings.HasPrefix(filepath.Base(db), prefix) {
		t.Fatalf("local recovery dir %q does not start with %s", db, prefix)
	}
	for _, d := range []string{da, db} {
		if err := os.MkdirAll(filepath.Join(d, "job", "uid-0-63", "chk-3"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	if _, err := os.Stat(da); !os.IsNotExist(err) {
		t.Fatalf("the closed TaskManager left %s: %v", da, err)
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("closing one TaskManager removed another's local state: %v", err)
	}
	b.Close()
	for _, sb := range []op.StateBackend{{LocalRecovery: true, LocalDir: root}, {Pebble: true, LocalDir: root}} {
		tm := open("tm-c", sb)
		if d := tm.taskCfg.StateBackend.LocalRecoveryDir; d != "" {
			t.Errorf("%+v: local recovery dir %q, want none", sb, d)
		}
		tm.Close()
	}
}
