package storage

// The gocloud.dev/blob drivers linked into every binary that uses this
// package, registered with blob.DefaultURLMux by their init functions:
//
//	s3://  gocloud.dev/blob/s3blob (AWS SDK v2; any S3-compatible store
//	       through the endpoint and use_path_style query parameters)
//
// file:// and plain paths need no driver. A binary may link more (e.g.
// gocloud.dev/blob/gcsblob for gs://) with blank imports of its own.
import _ "gocloud.dev/blob/s3blob"
