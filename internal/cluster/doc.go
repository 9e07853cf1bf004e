// Package cluster is the wiring of Weir's cluster processes: `weir
// jobmanager` (JobManager) and `weir taskmanager` (TaskManager), each in a
// process of its own, possibly on its own host.
//
// The JobManager is the session cluster of package minicluster without
// TaskManagers of its own: its ResourceManager, one JobMaster per job and
// the Dispatcher (dispatcher.go) that starts jobs submitted over REST (POST
// /jobs, the existing internal/rest server). Its gateways are served over
// gRPC (internal/rpc/grpcrpc) on its RPC address: the ResourceManager at
// minicluster.ResourceManagerName, each JobMaster at jobmaster/<job id>.
// It watches every TaskManager on a heartbeat link and declares it lost at
// once when the link's connection closes (or after heartbeat.timeout
// without a heartbeat), so that its jobs restart at once.
//
// A TaskManager serves its rpc.TaskExecutorGateway over gRPC on its own RPC
// address and its result partitions over TCP (internal/network/tcp) on
// its data address. It links to the JobManager's heartbeats, registers
// with the ResourceManager, whose offers of its slots carry both
// addresses, and runs the subtasks deployed to it, rebuilding their
// registered job with the builder of its own binary. The deployment
// descriptors name the data address of every producer a subtask reads,
// which is how its connection manager locates them. A TaskManager that
// loses its JobManager cancels its subtasks and registers again, retrying
// with a growing delay.
//
// The JobManager keeps its jobs in an HA storage directory (hastore.go;
// high-availability.storageDir, by default the checkpoint directory), so
// that one started again with the same flags recovers every running job
// from its latest completed checkpoint (harecover.go,
// docs/design/ha.md). A TaskManager that shuts down deregisters first.
//
// Goroutines: per process its servers' (gRPC, REST, data plane), the
// session cluster's, and the TaskManager's registration loop; all end
// when the process's Close returns.
package cluster
