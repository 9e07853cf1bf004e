package op

// Dynamic split assignment, as Flink's FLIP-27 sources have it: a split
// enumerator runs on the JobMaster (as an operator coordinator) and hands
// out splits to the source subtasks that ask for one. The enumerator
// checkpoints the splits not assigned yet; each reader checkpoints the
// splits it holds, with their positions. Splits travel as bytes (the
// source's codec encoding), so the JobMaster needs no knowledge of their
// type.

// Enumerator hands out the splits of one source. The JobMaster's loop owns
// it: its methods are never called concurrently.
type Enumerator interface {
	// Next returns an unassigned split for subtask, or ok=false when none
	// is left.
	Next(subtask int) (split []byte, ok bool)
	// Snapshot returns the state of the unassigned splits.
	Snapshot() ([]byte, error)
}

// An Enumerator that holds resources (a client, a goroutine that discovers
// new splits) implements io.Closer: the JobMaster closes it when its run
// ends (a restart creates a new one from the checkpoint) and when the job
// ends.

// EnumeratorFactory creates a source's enumerator for a run at the given
// parallelism, from a snapshot when the job is restored (nil otherwise).
type EnumeratorFactory func(parallelism int, restored []byte) (Enumerator, error)

// SplitRequester asks the source's enumerator for a split on behalf of a
// subtask. The reply runs on the subtask's goroutine (through its mailbox),
// with ok=false when the enumerator has no split left.
type SplitRequester interface {
	RequestSplit(reply func(split []byte, ok bool))
}
