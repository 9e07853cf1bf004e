package main

// Checkpoint storage drivers linked into the weir binary beyond the ones
// internal/checkpoint/storage links for every binary (s3:// through
// gocloud.dev/blob/s3blob). Each registers its URL scheme with
// blob.DefaultURLMux in its init function, so that --checkpoint-dir,
// --from-savepoint and savepoint directories may name it:
//
//	gs://bucket/prefix  gocloud.dev/blob/gcsblob (Google Cloud Storage over
//	                    the JSON API; credentials from Application Default
//	                    Credentials, or none when STORAGE_EMULATOR_HOST
//	                    names an emulator such as fake-gcs-server)
//
// The storage package does not link gcsblob itself so that programs
// embedding the engine do not carry the Google Cloud SDK unless they ask
// for it with a blank import like this one.
import _ "gocloud.dev/blob/gcsblob"
