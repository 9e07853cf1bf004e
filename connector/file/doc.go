// Package file is Weir's exactly-once file sink.
//
// Each sink subtask writes its elements, one formatted line each, into a
// pending part file whose name starts with a dot, so that readers that skip
// hidden files (as Weir's own ReadTextFile does, and Hadoop-style tools)
// never see it. The file is opened by the first element after a checkpoint,
// never before. At a checkpoint the pending file is flushed, synced and
// closed, and becomes a committable; when the checkpoint completed the
// committer renames it to its visible name and syncs the directory it is
// in (which, after a restore into another output directory, is the old
// one). A committed file is never written again.
//
// Part files are named
//
//	part-<operator uid>-<first 8 characters of the job id>-<subtask>-<attempt>-<n>
//
// and their pending form is the same name with a leading dot and, after a
// last dot, the first 8 characters of the id of the lineage's root: the
// first job of a chain of jobs each restored from a checkpoint of the one
// before.
//
// Commit is idempotent: when the visible file exists and the pending one
// does not, the rename already happened. When neither exists the data is
// lost, and Commit fails with ErrMissingFile.
//
// Hidden files are cleaned up by these rules:
//
//   - A subtask that fails or is cancelled removes the part file it had
//     open (no checkpoint references it).
//   - A restored job, and a job restarted after a failure, discards the
//     pending files of this sink that the run it continues wrote after the
//     checkpoint it restores from (or, without one, all that run wrote):
//     each writer checkpoints how many part files it had opened, and these
//     counts are dealt out over the subtasks of the restored job, each
//     subtask discarding for the writers whose counts it got. Files of
//     writers no checkpoint counted go at the end.
//   - At a successful end (every committable committed by the final
//     checkpoint) each subtask removes its own pending files and every
//     pending file of this sink that an earlier attempt of its job, or any
//     job of its lineage, left behind: also a job restored from the same
//     checkpoint that died before taking one of its own, as a crashed run
//     that `weir run` resumes again does.
//   - The pending files of a job that did not end, and of other jobs, stay
//     until a job restored from one of its checkpoints commits or discards
//     them.
//
// A job restored from a checkpoint or savepoint takes over the pending
// files of the job that took it and of every job restored from the same
// one, in whatever directory they wrote: the job that took it must have
// ended (stopped with the savepoint, cancelled, killed) before the
// restored one starts, and two jobs restored from one snapshot must not
// run at the same time. A job still running when another restores its
// snapshot loses its pending files and fails at its next commit, with an
// error that says the file is gone. Flink's FileSink makes the same
// assumption: a restored job resumes the old job's in-progress files.
package file
