package weir

import (
	"fmt"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator"
	"github.com/weir-engine/weir/internal/state/opstate"
)

// CheckpointedFunction is implemented by a function of a non-keyed
// operator (Map, FlatMap, Filter, Process, ProcessStream, a sink of
// AddSinkWith) that keeps operator state:
// state of the subtask, not of a key (Flink's CheckpointedFunction).
//
// InitializeState is called when the subtask starts, before Open, also
// after a restore: register the states there (GetOperatorListState,
// GetUnionListState) and read what they restored into the function's
// fields. SnapshotState is called at every checkpoint barrier, on the
// subtask's goroutine: write the fields into the states there; the
// checkpoint stores what they hold when it returns.
//
// On a restore at another parallelism the entries of a list state are
// dealt out round-robin over the new subtasks (each to exactly one), and
// those of a union list state go to every subtask, which keeps what it
// needs. A checkpoint taken after some but not all subtasks of an
// operator with union list state finished is declined (FLIP-147): the
// finished subtasks' entries would be lost.
type CheckpointedFunction interface {
	InitializeState(ctx *StateInitializationContext) error
	SnapshotState(ctx StateSnapshotContext) error
}

// StateInitializationContext is what InitializeState sees: the runtime
// context of the subtask, whether it restored state, and the operator
// state to register.
type StateInitializationContext struct {
	*RuntimeContext
	store *opstate.Store
}

// IsRestored says whether the subtask started from a checkpoint or a
// savepoint.
func (c *StateInitializationContext) IsRestored() bool { return c.store.IsRestored() }

// StateSnapshotContext says which checkpoint SnapshotState is taking.
type StateSnapshotContext struct {
	CheckpointID int64
}

// GetOperatorListState returns the operator list state called name,
// registering it on first use with the entries restored to this subtask
// (Flink's getListState: redistributed round-robin on rescale).
func GetOperatorListState[V any](ctx *StateInitializationContext, name string) (ListState[V], error) {
	return opstate.List[V](ctx.store, name, op.SplitList)
}

// GetUnionListState returns the union list state called name: on restore,
// every subtask gets the entries of all subtasks (Flink's
// getUnionListState).
func GetUnionListState[V any](ctx *StateInitializationContext, name string) (ListState[V], error) {
	return opstate.List[V](ctx.store, name, op.UnionList)
}

// statefulUDF is the udf of a CheckpointedFunction: it initializes the
// function's operator state when it opens and snapshots it at barriers.
type statefulUDF struct {
	udf
	fn    CheckpointedFunction
	store *opstate.Store
}

// statefulHooks returns the hooks of fn with its operator state when fn
// is a CheckpointedFunction.
func statefulHooks(fn any, acc *accumulators) (operator.StatefulHooks, bool) {
	c, ok := fn.(CheckpointedFunction)
	if !ok {
		return nil, false
	}
	return &statefulUDF{udf: udf{fn, acc}, fn: c}, true
}

// Open initializes the operator state, then opens the function.
func (u *statefulUDF) Open(ctx *op.Context) error {
	if err := u.initialize(ctx); err != nil {
		return err
	}
	return u.udf.Open(ctx)
}

func (u *statefulUDF) initialize(ctx *op.Context) error {
	u.store = opstate.NewStore(ctx.Restored)
	if err := u.fn.InitializeState(&StateInitializationContext{RuntimeContext: newRuntimeContext(ctx, u.acc), store: u.store}); err != nil {
		return fmt.Errorf("initialize state: %w", err)
	}
	return nil
}

// SnapshotState lets the function write its state, then snapshots it.
func (u *statefulUDF) SnapshotState(id int64) (*op.Snapshot, error) {
	if err := u.fn.SnapshotState(StateSnapshotContext{CheckpointID: id}); err != nil {
		return nil, fmt.Errorf("snapshot state: %w", err)
	}
	lists, err := u.store.Snapshot()
	if err != nil {
		return nil, err
	}
	return &op.Snapshot{Lists: lists}, nil
}
