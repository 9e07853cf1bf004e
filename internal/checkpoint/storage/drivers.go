package storage

// The gocloud.dev/blob drivers linked into every binary that uses this
// package, registered with blob.DefaultURLMux by their init functions:
//
//	s3://  gocloud.dev/blob/s3blob (AWS SDK v2; any S3-compatible store
//	       through the endpoint and use_path_style query parameters)
//
// file:// and plain paths need no driver. A binary may link more with
// blank imports of its own in its main package: the weir command links
// gocloud.dev/blob/gcsblob for gs:// (cmd/weir/drivers.go). gcsblob is not
// linked here because the Google Cloud SDK it brings (the storage client,
// gRPC, xDS) would grow every binary using this package by some 20 MB.
import _ "gocloud.dev/blob/s3blob"
