package cluster

import "errors"

// ErrStateDir refuses a job submitted to a cluster with a state directory:
// the directory would be the submitting host's, while each TaskManager
// keeps the Pebble backend's working directories under its own --data-dir
// (the job chooses only the backend, as Flink's state.backend.type).
var ErrStateDir = errors.New("--state-dir means nothing on a cluster: each TaskManager keeps Pebble's working directories under its own --data-dir")
