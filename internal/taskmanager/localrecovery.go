package taskmanager

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// localRecoveryDir is where a TaskManager keeps the local copies of its
// subtasks' latest completed Pebble checkpoints (op.StateBackend
// LocalRecoveryDir): one directory per TaskManager under the state
// directory (os.TempDir() when empty), removed when the TaskManager
// closes. Its name starts as a Pebble working directory's does
// (weir-<pid>-), so the next process to open a backend there removes it
// if this one died without closing.
func localRecoveryDir(root, id string) string {
	if root == "" {
		root = os.TempDir()
	}
	safe := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, id)
	return filepath.Join(root, fmt.Sprintf("weir-%d-local-%s", os.Getpid(), safe))
}
