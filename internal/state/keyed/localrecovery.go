package keyed

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/op"
)

// Local recovery (Flink's state.backend.local-recovery): a Pebble subtask
// keeps, on its TaskManager, the files of its latest completed checkpoint,
// and a subtask deployed there again with the same key groups restores
// from them instead of downloading them from checkpoint storage, when they
// are the files of the very checkpoint being restored.
//
// Layout under the TaskManager's LocalRecoveryDir, per job, operator and
// key-group range (the slot of the state, whichever subtask index has it):
//
//	<job>/<uid>-<start>-<end>/pending-<id>/   written with checkpoint id
//	<job>/<uid>-<start>-<end>/chk-<id>/       id completed: the copy
//
// The checkpoint id is recorded by the directory's name, which changes
// from pending to chk by one rename when the checkpoint completes; older
// copies are removed then. SST files are hard links (Pebble never changes
// one); the MANIFEST and the other files are copied, since the database
// opened on them appends to its MANIFEST. A copy is used only when it
// holds exactly the files the restore's handle lists, with their sizes;
// anything else (another checkpoint, other key groups, a missing file)
// downloads as before. The copies are an optimisation: failing to keep
// one never fails a checkpoint.

// localSlot returns the directory of the local copies of the state of
// ctx's subtask, or "" when local recovery is off.
func localSlot(ctx *op.Context) string {
	root := ctx.StateBackend.LocalRecoveryDir
	if root == "" || !ctx.StateBackend.Pebble {
		return ""
	}
	return filepath.Join(root, safeName(ctx.JobID), fmt.Sprintf("%s-%d-%d", safeName(ctx.UID), ctx.KeyGroups.Start, ctx.KeyGroups.End))
}

// keepLocal copies the Pebble checkpoint in capture into slot as the
// pending copy of checkpoint id.
func keepLocal(capture, slot string, id int64) error {
	dst := filepath.Join(slot, "pending-"+strconv.FormatInt(id, 10))
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := linkDir(capture, dst); err != nil {
		return errors.Join(err, os.RemoveAll(dst))
	}
	return nil
}

// promoteLocal makes the pending copy of checkpoint id, if any, the
// slot's copy, and removes every copy of an older checkpoint.
func promoteLocal(slot string, id int64) error {
	pending := filepath.Join(slot, "pending-"+strconv.FormatInt(id, 10))
	if _, err := os.Stat(pending); err != nil {
		return nil // not kept: the older copy stays valid for its id
	}
	if err := os.Rename(pending, filepath.Join(slot, "chk-"+strconv.FormatInt(id, 10))); err != nil {
		return err
	}
	return dropLocal(slot, func(kind string, n int64) bool { return n < id })
}

// dropLocal removes the copies in slot for which drop says so.
func dropLocal(slot string, drop func(kind string, id int64) bool) error {
	ents, err := os.ReadDir(slot)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range ents {
		kind, num, ok := strings.Cut(e.Name(), "-")
		n, err := strconv.ParseInt(num, 10, 64)
		if ok && err == nil && drop(kind, n) {
			errs = append(errs, os.RemoveAll(filepath.Join(slot, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// localCopy returns the slot's copy of checkpoint id when it holds
// exactly files (names and sizes). A pending copy counts too: restoring
// checkpoint id is itself proof that it completed, and a failure can come
// between the completion and the TaskManager hearing of it (Flink's
// local state store looks copies up by checkpoint id alike).
func localCopy(slot string, id int64, files []storage.SharedFile) (string, bool) {
	if slot == "" {
		return "", false
	}
	for _, kind := range []string{"chk-", "pending-"} {
		dir := filepath.Join(slot, kind+strconv.FormatInt(id, 10))
		if holdsExactly(dir, files) {
			return dir, true
		}
	}
	return "", false
}

// holdsExactly says whether dir holds exactly files (names and sizes).
func holdsExactly(dir string, files []storage.SharedFile) bool {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != len(files) {
		return false
	}
	for _, f := range files {
		fi, err := os.Stat(filepath.Join(dir, f.Key))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
			return false
		}
	}
	return true
}

// pruneSlots removes the copies of other key-group ranges of the same
// operator that overlap slot's: the key groups moved, and no subtask of
// the running job owns those ranges any more.
func pruneSlots(ctx *op.Context, slot string) error {
	parent := filepath.Dir(slot)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return nil // nothing kept yet
	}
	prefix := safeName(ctx.UID) + "-"
	var errs []error
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || e.Name() == filepath.Base(slot) {
			continue
		}
		a, b, ok := strings.Cut(rest, "-")
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		if ok && err1 == nil && err2 == nil && start <= ctx.KeyGroups.End && end >= ctx.KeyGroups.Start {
			errs = append(errs, os.RemoveAll(filepath.Join(parent, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// linkDir fills dst, a new directory, with the files of src: SST files
// hard-linked (copied where links fail), the others copied.
func linkDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		from, to := filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())
		if strings.HasSuffix(e.Name(), ".sst") && os.Link(from, to) == nil {
			continue
		}
		if err := copyLocal(from, to); err != nil {
			return err
		}
	}
	return nil
}

func copyLocal(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
