package file_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// base returns the base names of paths, sorted.
func base(paths ...string) []string {
	var ns []string
	for _, p := range paths {
		ns = append(ns, filepath.Base(p))
	}
	slices.Sort(ns)
	return ns
}

func allCommitted(t *testing.T, w weir.SinkWriter[string, file.Committable]) {
	t.Helper()
	cw, ok := w.(weir.CleaningSinkWriter)
	if !ok {
		t.Fatalf("%T is not a weir.CleaningSinkWriter", w)
	}
	if err := cw.AllCommitted(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// A restored job discards the pending files the run it continues wrote
// after the checkpoint (pre-committed for a checkpoint that never
// completed, left open by a crash, written by a later attempt), keeps
// those the checkpoint references for the committers, and never touches
// other jobs' or other sinks' files. At its successful end nothing of its
// lineage is left.
func TestRestoreDiscardsWhatTheCheckpointDoesNotReference(t *testing.T) {
	for _, tt := range []struct {
		name string
		job  string
		// attempt of the restored run
		attempt int
		// newDir: the restored job writes into another directory
		newDir bool
	}{
		{"same job restarted", jobA, 2, false},
		{"new job, same directory", "bbbbbbbb11111111", 0, false},
		{"new job, other directory", "bbbbbbbb11111111", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			// Job A, attempt 0, two subtasks, checkpoint 2 completed.
			w0, w1 := newWriter(t, dir, info(jobA, 0, 0)), newWriter(t, dir, info(jobA, 1, 0))
			done := write(t, w0, 1, "done")
			commit(t, done...)
			ref := append(write(t, w0, 2, "ref0"), write(t, w1, 2, "ref1")...)
			states := [][]byte{writerState(t, w0, 2), writerState(t, w1, 2)}
			// After checkpoint 2: pre-committed for checkpoint 3, which
			// never completed; a crash left subtask 1's open file and a
			// file of a restarted attempt that failed before any
			// checkpoint.
			orphans := write(t, w0, 3, "orphan")
			crashed := []string{
				touch(t, dir, ".part-sink-aaaaaaaa-1-0-1"),
				touch(t, dir, ".part-sink-aaaaaaaa-0-1-0"),
			}
			others := []string{
				touch(t, dir, ".part-sink-cccccccc-0-0-0"),  // another job's
				touch(t, dir, ".part-other-aaaaaaaa-0-0-9"), // another sink's
				touch(t, dir, ".part-sink-aaaaaaaa-x-0-9"),  // not a part file
				touch(t, dir, ".hidden"),
			}

			ci := info(tt.job, 0, tt.attempt)
			ci.Parallelism, ci.RestoredFromID, ci.RestoredWriterStates = 1, 2, states
			out := dir
			if tt.newDir {
				out = filepath.Join(t.TempDir(), "new")
			}
			w := newWriter(t, out, ci)

			// The restarted attempt's file stays until the end: its
			// writer's state could be in any subtask's share of a
			// checkpoint, so only the end knows it is garbage.
			want := base(append([]string{done[0].Final, ref[0].Pending, ref[1].Pending, crashed[1]}, others...)...)
			if got := names(t, dir); !slices.Equal(got, want) {
				t.Fatalf("after restore:\n got %q\nwant %q (orphans %s, %q)", got, want, orphans[0].Pending, crashed)
			}
			commit(t, ref...)
			mine := write(t, w, 4, "new")
			commit(t, mine...)
			allCommitted(t, w)
			want = base(append([]string{done[0].Final, ref[0].Final, ref[1].Final}, others...)...)
			if !tt.newDir {
				want = base(append([]string{done[0].Final, ref[0].Final, ref[1].Final, mine[0].Final}, others...)...)
			}
			if got := names(t, dir); !slices.Equal(got, want) {
				t.Errorf("at the end:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// A job restarted without a checkpoint to restore (it failed before the
// first completed) discards everything its earlier attempts wrote.
func TestRestartWithoutCheckpointDiscardsEarlierAttempts(t *testing.T) {
	dir := t.TempDir()
	w0 := newWriter(t, dir, info(jobA, 0, 0))
	write(t, w0, 1, "pre-committed")
	touch(t, dir, ".part-sink-aaaaaaaa-1-0-0")
	other := touch(t, dir, ".part-sink-cccccccc-0-0-0")
	newWriter(t, dir, info(jobA, 1, 1))
	if got, want := names(t, dir), base(other); !slices.Equal(got, want) {
		t.Errorf("after the restart: %q, want %q", got, want)
	}
}

// At its end a subtask removes its own leftovers and those of earlier
// attempts, but not the pending files of the running attempt's other
// subtasks: they commit them when their own final checkpoint completes.
func TestAllCommittedLeavesOtherSubtasks(t *testing.T) {
	dir := t.TempDir()
	w0, w1 := newWriter(t, dir, info(jobA, 0, 1)), newWriter(t, dir, info(jobA, 1, 1))
	commit(t, write(t, w0, 5, "a")...)
	pending := write(t, w1, 5, "b")
	earlier := touch(t, dir, ".part-sink-aaaaaaaa-1-0-7")
	allCommitted(t, w0)
	got := names(t, dir)
	if !slices.Contains(got, filepath.Base(pending[0].Pending)) {
		t.Errorf("subtask 0 removed subtask 1's pending file: %q", got)
	}
	if slices.Contains(got, filepath.Base(earlier)) {
		t.Errorf("an earlier attempt's pending file is left: %q", got)
	}
}

// Runs restored from the same checkpoint are one lineage: a rerun after a
// crash restores the checkpoint the crashed run restored too when that run
// died before taking one of its own. At its successful end a job removes
// what such a sibling left; a job of another lineage keeps its files.
func TestEndRemovesWhatSiblingRunsLeft(t *testing.T) {
	dir := t.TempDir()
	a := newWriter(t, dir, info(jobA, 0, 0))
	committed := write(t, a, 1, "a")
	commit(t, committed...)
	states := [][]byte{writerState(t, a, 1)}
	restored := func(job string) weir.SinkContext {
		ci := info(job, 0, 0)
		ci.Parallelism, ci.RestoredFromID, ci.RestoredWriterStates = 1, 1, states
		return ci
	}
	// The first rerun pre-committed for a checkpoint that never completed,
	// and died with another file open.
	sibling := newWriter(t, dir, restored("bbbbbbbb00000000bbbbbbbb00000000"))
	siblingFiles := []string{write(t, sibling, 2, "b")[0].Pending, touch(t, dir, ".part-sink-bbbbbbbb-0-0-1.aaaaaaaa")}
	other := touch(t, dir, ".part-sink-dddddddd-0-0-0.dddddddd") // another lineage's

	rerun := newWriter(t, dir, restored("cccccccc00000000cccccccc00000000"))
	if got := names(t, dir); !slices.Contains(got, filepath.Base(siblingFiles[0])) {
		t.Fatalf("the rerun removed a sibling's files before its end: %q", got)
	}
	mine := write(t, rerun, 2, "c")
	commit(t, mine...)
	allCommitted(t, rerun)
	want := base(committed[0].Final, mine[0].Final, other)
	if got := names(t, dir); !slices.Equal(got, want) {
		t.Errorf("at the rerun's end:\n got %q\nwant %q", got, want)
	}
}

// A rescale whose new attempt is deployed only in part (a TaskManager lost
// during the deployment) and fails before any checkpoint, then a restart
// at another parallelism, both restored from the same checkpoint: the
// subtasks of the partial attempt that run discard nothing the checkpoint
// references, whichever of the checkpoint's writer states and committables
// they got (none, too) and whether or not the subtask that got a
// committable ever ran; the restart then commits every file.
func TestPartialRescaleKeepsWhatTheCheckpointReferences(t *testing.T) {
	dir := t.TempDir()
	// Attempt 1 at parallelism 2: checkpoint 5 committed, 6 completed but
	// not committed, then one more file opened after it.
	w0, w1 := newWriter(t, dir, info(jobA, 0, 1)), newWriter(t, dir, info(jobA, 1, 1))
	commit(t, append(write(t, w0, 5, "a"), write(t, w1, 5, "b")...)...)
	c0, c1 := write(t, w0, 6, "c"), write(t, w1, 6, "d")
	s0, s1 := writerState(t, w0, 6), writerState(t, w1, 6)
	late := write(t, w0, 7, "never checkpointed")

	// Attempt 2 at parallelism 3 restored from 6: the lists are dealt out
	// one entry a subtask, subtask 0 (committable c0, state s0) never
	// runs; subtask 1 commits c1 and opens its writer; subtask 2 got
	// nothing of either list.
	restored := func(subtask, attempt, parallelism int, states ...[]byte) weir.SinkContext {
		ci := info(jobA, subtask, attempt)
		ci.Parallelism, ci.RestoredFromID, ci.RestoredWriterStates = parallelism, 6, states
		return ci
	}
	commit(t, c1...)
	newWriter(t, dir, restored(1, 2, 3, s1))
	newWriter(t, dir, restored(2, 2, 3))
	if _, err := os.Stat(c0[0].Pending); err != nil {
		t.Fatalf("the pending file checkpoint 6 references is gone after the partial attempt: %v", err)
	}
	// Only a subtask holding s0 knows that the file written after the
	// checkpoint is not referenced: it stays until one runs.
	if _, err := os.Stat(late[0].Pending); err != nil {
		t.Fatalf("%s discarded by subtasks without its writer's state: %v", filepath.Base(late[0].Pending), err)
	}

	// Attempt 3 at parallelism 2 restored from 6 commits everything.
	newWriter(t, dir, restored(0, 3, 2, s0))
	newWriter(t, dir, restored(1, 3, 2, s1))
	commit(t, append(c0, c1...)...)
	for _, c := range append(c0, c1...) {
		if got := read(t, c.Final); got == "" {
			t.Errorf("%s is empty", c.Final)
		}
	}
	if _, err := os.Stat(late[0].Pending); err == nil {
		t.Errorf("%s, written after checkpoint 6, is still there after the restore that got its writer's state", late[0].Pending)
	}
}
