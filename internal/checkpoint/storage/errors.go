package storage

import "errors"

// Errors returned by this package, wrapped with context; test for them with
// errors.Is.
var (
	// ErrCorrupt marks bytes that are not what they claim to be: a
	// _metadata file that is truncated, damaged or malformed, or a state
	// file whose size or CRC does not match its handle. Retrying does not
	// help; LatestCompleted skips a checkpoint that has this error.
	ErrCorrupt = errors.New("storage: corrupt")

	// ErrVersion marks a _metadata file in a format version this build
	// cannot read (a newer major version: upgrade Weir to restore it), or
	// a request to write a version other than FormatVersion.
	ErrVersion = errors.New("storage: unsupported format version")

	// ErrNotFound marks a file or object that does not exist. A missing
	// _metadata means the checkpoint was never completed.
	ErrNotFound = errors.New("storage: not found")

	// ErrNoCheckpoint is returned by LatestCompleted when the job has no
	// complete checkpoint.
	ErrNoCheckpoint = errors.New("storage: no completed checkpoint")

	// ErrInvalid marks a caller error: metadata that fails validation on
	// Encode, a file name that is not a safe path segment, a location that
	// is not a snapshot directory.
	ErrInvalid = errors.New("storage: invalid argument")

	// ErrCommitted is returned when writing to a CheckpointDir that was
	// already committed or aborted, and by Commit when the directory
	// already holds a _metadata (checkpoint ids must not be reused).
	ErrCommitted = errors.New("storage: snapshot already committed")
)
