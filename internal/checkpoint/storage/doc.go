// Package storage owns where checkpoints and savepoints live and what their
// _metadata file looks like: the Metadata model, its binary format (specified
// in docs/format/checkpoint.md), the directory layout, the write protocol
// that makes a snapshot count as complete only once everything it references
// is durable, the search for the latest complete checkpoint on recovery, and
// the reference counting that decides when a shared file of an incremental
// backend may be deleted. It does not decide when to snapshot, what goes in
// Raw or Entries, or how keyed state is laid out in a stream: the checkpoint
// coordinator and the state backends do.
//
// # Layout
//
// Like Flink's, under the root given to Open (a path, file://, or any
// gocloud.dev/blob URL such as s3://bucket/prefix or gs://bucket/prefix):
//
//	<root>/<jobID>/chk-<id>/_metadata          the checkpoint's metadata, written last
//	<root>/<jobID>/chk-<id>/<name>-<16 hex>    its state files (WriteState)
//	<root>/<jobID>/shared/<key>-<16 hex>       files of incremental backends (WriteShared)
//	<root>/<jobID>/taskowned/<name>-<16 hex>   files whose lifetime tasks manage (WriteTaskOwned)
//	<target>/savepoint-<jobID[:6]>-<12 hex>/   a savepoint: _metadata and every file it references
//
// Handles in the metadata hold paths relative to the snapshot directory
// ("shared/..." and "taskowned/..." resolve against the job directory), so
// a job directory, and a savepoint directory on its own, can be moved.
//
// # Writing a snapshot
//
// CreateCheckpointWriter (or CreateSavepointWriter) returns the
// JobManager's CheckpointDir, whose Location the trigger carries. A
// CheckpointDir holds no state but its location, so each TaskManager makes
// its own for the same snapshot (WriterAt) and its tasks write their state
// through it (WriteState, WriteShared, WriteTaskOwned; concurrently if they
// like), each call returning a handle once the file is durable. Only the
// handles travel to the JobManager (TaskState; a restore's way back is a
// TaskRestore). When every task has acknowledged, the coordinator builds
// the Metadata from the handles and the JobManager's writer commits it,
// writing _metadata atomically and last. A task's write that ends after
// its snapshot was aborted may make the directory again:
// DiscardUnfinished removes it. Locally every file is written to a
// temporary name, synced, renamed, and its directory synced; on object
// stores each object appears whole or not at all. The existence of a valid
// _metadata is therefore the commit point: a snapshot without one is
// garbage (Abort or Discard removes it), never a checkpoint.
//
// Commit leaves no _metadata when it fails, with one exception: if syncing
// the directory after the rename fails and removing the renamed file fails
// too, the file stays and may survive. It is complete and everything it
// references was durable before it was written, so recovering from it is
// correct (as when the JobManager dies after writing metadata and before
// notifying tasks: two-phase-commit sinks commit their pending transactions
// on restore); the caller only must not treat the id as free.
//
// # Recovery
//
// LatestCompleted returns the newest checkpoint whose _metadata decodes and
// whose referenced files are all there and intact, skipping (and logging)
// newer ones that are not. It returns an error rather than go further back
// when a checkpoint cannot be read for another reason (I/O, a newer format).
// ReadState verifies each stream, and ReadShared each shared file, against
// its handle's size and CRC as it is read (shared files of format 1.0
// snapshots recorded no CRC: size only).
//
// # Retiring snapshots
//
// When a checkpoint is subsumed the caller discards its directory
// (Discard), unregisters it from its SharedStateRegistry, and deletes the
// shared files the registry returns (DeleteShared). Discard never deletes
// shared or task-owned files. Savepoints are the user's: nothing here
// deletes them unless asked.
//
// # Drivers
//
// Non-file URLs are opened through gocloud.dev/blob's URL mux
// (Options.URLMux, default blob.DefaultURLMux()). This package links the S3
// driver, gocloud.dev/blob/s3blob (drivers.go), so s3:// works in every
// binary, for AWS and for S3-compatible stores, which the URL's query
// points at:
//
//	s3://bucket/prefix?region=eu-west-1
//	s3://bucket/prefix?endpoint=http://minio:9000&region=us-east-1&use_path_style=true
//
// The query is part of every location the Storage returns, so that a
// savepoint's location opens the same store. Credentials come from the AWS
// SDK's default chain (environment, shared files, instance metadata), never
// from the URL.
//
// Other drivers are linked by blank imports in the binary's main package:
// this package does not link them, so that a program embedding the engine
// does not carry every cloud SDK (gcsblob, with the Google Cloud storage
// client, gRPC and xDS, adds about 20 MB to a stripped binary). The weir
// command links gocloud.dev/blob/gcsblob (cmd/weir/drivers.go), so gs://
// works there:
//
//	gs://bucket/prefix
//
// Credentials come from Google's Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's file, the GCE metadata server);
// when STORAGE_EMULATOR_HOST is set (host:port), gcsblob talks to that
// emulator (e.g. fake-gcs-server) over plain HTTP, without credentials. No
// binary links azblob:// (gocloud.dev/blob/azureblob) yet.
// A binary without the driver a URL needs gets an error naming the import.
//
// Tests use memblob (mem://), an S3 server (gofakes3; s3_test.go) and a
// GCS server (fake-gcs-server; gcs_test.go, which links gcsblob into the
// test binary only), both in the test process over a loopback socket.
package storage
