package keyed

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/weir-engine/weir/internal/op"
)

// workDir is a Pebble backend's working directory: the database and the
// captures of checkpoints being written. The backend and every capture
// not yet released hold a reference; the last to let go removes it, so a
// subtask that ends while its last checkpoint is still uploading does not
// pull the files from under the upload.
//
// Its name starts with weir-<pid>-: a process killed before it could
// remove its directories leaves them behind, and the next backend opened
// in the same LocalDir removes those whose process is gone.
type workDir struct {
	path string
	refs atomic.Int64
}

// newWorkDir makes the working directory of the subtask of ctx under its
// LocalDir (os.TempDir() when empty), holding one reference.
func newWorkDir(ctx *op.Context) (*workDir, error) {
	root := ctx.StateBackend.LocalDir
	if root == "" {
		root = os.TempDir()
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	removeOrphans(root, ctx.Logger)
	path, err := os.MkdirTemp(root, fmt.Sprintf("weir-%d-%.8s-%s-%d-", os.Getpid(), ctx.JobID, safeName(ctx.UID), ctx.SubtaskIndex))
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	w := &workDir{path: path}
	w.refs.Store(1)
	return w, nil
}

func (w *workDir) acquire() { w.refs.Add(1) }

func (w *workDir) release() error {
	if w.refs.Add(-1) == 0 {
		return os.RemoveAll(w.path)
	}
	return nil
}

// removeOrphans removes the working directories in root of processes that
// no longer run. Errors only leave a directory for the next try.
func removeOrphans(root string, log *slog.Logger) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, ok := workDirPID(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || processRuns(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err == nil && log != nil {
			log.Info("removed the state directory of a process that is gone", "dir", e.Name(), "pid", pid)
		}
	}
}

// workDirPID returns the process id in a working directory's name.
func workDirPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "weir-")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// processRuns reports whether process pid exists (signal 0 checks without
// sending anything; a process of another user answers EPERM).
func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || err == syscall.EPERM
}
