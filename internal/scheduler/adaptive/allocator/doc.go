// Package allocator is the adaptive scheduler's SlotAllocator: given the
// slots a job holds and the bounds of its vertices, it decides each
// vertex's parallelism and which slot runs which subtask. It is pure: it
// returns a Plan, and one call, Pool.Reserve, commits it (a plan that is
// not reserved is simply dropped).
//
// # Parallelism
//
// Vertices belong to slot-sharing groups. A shared slot of a group holds
// at most one subtask of every vertex of the group, so a group of
// vertices with parallelisms p1..pn needs max(pi) slots. Allocate first
// gives every group the slots its vertices' lower bounds need (failing
// with ErrNotEnoughSlots when the slots do not cover that), then hands
// out the remaining slots one at a time, round-robin over the groups in
// ID order, to groups that can still use one. A vertex runs at the number
// of slots of its group, capped by its upper bound: min(Max,
// MaxParallelism), so a vertex with max parallelism 1 never runs above 1.
//
// # Placement
//
// Shared slot i of a group runs subtask i of each of its vertices. When
// TaskManagers report the key groups they hold locally (from the previous
// generation), each (shared slot, TaskManager) pair scores the number of
// key groups the subtasks of the shared slot would find there; pairs are
// taken best first, as Flink's StateLocalitySlotAssigner does, so a
// TaskManager that keeps its slots keeps the state it already has. The
// other shared slots take the remaining slots spread round-robin over
// TaskManagers (slots.Spread). Every tie is broken by group, index and
// TaskManager name, so a plan depends only on its inputs.
package allocator
