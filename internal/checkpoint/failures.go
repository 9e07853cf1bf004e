package checkpoint

// failureCounter is Flink's CheckpointFailureManager: it counts consecutive
// failed checkpoints and says when there were more than the tolerated
// number.
//
//   - Only counted reasons count (see counted): declines, expiries and
//     storage errors, not the aborts the coordinator causes itself.
//   - Savepoints never count: they are a user's manual action and failing
//     the job would not help; the caller reports their failure to the user.
//   - A failure of a checkpoint older than the latest completed one does
//     not count: it changes nothing about the job's progress.
//   - Any completed checkpoint or savepoint resets the count; so does the
//     JobFailure it asks for.
type failureCounter struct {
	tolerable   int // UnlimitedFailures or >= 0
	consecutive int
	lastSuccess int64
}

// failed records the failure of checkpoint id and reports whether the job
// must now fail.
func (f *failureCounter) failed(id int64, kind Kind, reason error) bool {
	if kind.IsSavepoint() || !counted(reason) || id <= f.lastSuccess {
		return false
	}
	if f.tolerable == UnlimitedFailures {
		return false
	}
	f.consecutive++
	if f.consecutive > f.tolerable {
		f.consecutive = 0
		return true
	}
	return false
}

// succeeded records the completion of checkpoint id.
func (f *failureCounter) succeeded(id int64) {
	if id > f.lastSuccess {
		f.lastSuccess = id
		f.consecutive = 0
	}
}
