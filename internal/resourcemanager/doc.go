// Package resourcemanager is the ResourceManager of a session cluster as a
// pure state machine: it knows the TaskManagers that registered and their
// slots, and the resources every job declared, and decides which free
// slots go to which job. It starts no goroutine, does no I/O and reads no
// clock; the caller (the mini-cluster's ResourceManager loop, later the
// JobManager process) feeds it events with Step and performs the decisions
// it takes from Ready, the way etcd's raft library is driven.
//
// # Declarations, not requests
//
// As in FLIP-160 (declarative resource management), a job does not ask
// for slots one by one: it declares how many it needs, a minimum and a
// maximum (DeclareResources), and declares again when that changes. After
// every event the ResourceManager matches the declarations against the
// free slots and offers slots to the jobs that hold fewer than they
// declared (OfferSlots). An offered slot belongs to the job at once; a job
// that does not want it, or no longer needs a slot, gives it back with
// SlotsFreed, and a job that ended gives back all of them (JobEnded).
//
// # Matching policy
//
// Jobs are served in the order they first declared: first every job up to
// its minimum, then every job up to its maximum, so a later job's minimum
// comes before an earlier job's extra slots. A job gets what is free even
// when that is less than its minimum, as Flink's slot manager does: the
// job holds those slots while it waits for the rest (its JobMaster bounds
// the wait), and they are not lost to a later, smaller job that would keep
// taking them. Slots are picked from the TaskManager with the most free
// slots first (ties: the one registered first), which spreads a job over
// the TaskManagers before it doubles up, as slots.Allocate does within
// the job's slots.
//
// # TaskManagers that go
//
// A TaskManager that is lost (TaskManagerLost: removed, crashed, or its
// heartbeats timed out, as the caller decides) takes its slots with it:
// every job that held one is told (NotifyLost) so that its JobMaster fails
// the executions there at once, and the job's declaration stays, so that
// free slots elsewhere are offered to it in the same step.
//
// # Cluster partitions
//
// The ResourceManager also keeps the table of cluster partitions
// (partitions.go, Flink's ResourceManagerPartitionTracker): the
// BLOCKING_PERSISTENT partitions of cached streams that TaskManagers keep
// after the job that wrote them, by dataset. A TaskManager reports all it
// holds (PartitionsReported); a lost one takes its partitions out of the
// table, leaving their datasets incomplete; ReleaseDataset forgets a
// dataset and tells its holders to delete it (ReleasePartitions).
//
// Bad input (an unknown TaskManager, a slot the job does not hold, a
// declaration whose minimum exceeds its maximum) is refused with an error
// and changes nothing.
package resourcemanager
