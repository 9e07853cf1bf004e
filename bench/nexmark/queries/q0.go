package queries

import (
	"math"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// Q0 is the pass-through query: it emits one reference.Q0Result, the count
// and checksum of all bids, when the input ends.
func Q0(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q0Result] {
	return Q0Of(Source(env, cfg, SourceOptions{}))
}

// Q0Of is Flink's Nexmark q0 over a given event stream: every bid passes
// through, projected (`SELECT auction, bidder, price, dateTime, extra FROM
// bid`), into a discarding stage chained to it that only counts and
// checksums the bids of its subtask. There is no keyBy: nothing crosses the
// network per record. At the end of the input each subtask emits its one
// partial result, and a final stage of parallelism 1 adds those up into the
// one reference.Q0Result, so the answer can be checked.
func Q0Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q0Result] {
	bids := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[reference.Q0Row]) error {
		if e.IsBid() {
			// Field by field from the event: going through a Bid and
			// Q0RowOf builds two copies on the stack, and reading back
			// whole a copy just written word by word stalls the processor.
			auction, bidder, price, dateTime := e.BidNumbers()
			out.Collect(reference.Q0Row{Auction: auction, Bidder: bidder, Price: price, DateTime: dateTime, Extra: e.Extra()})
		}
		return nil
	}).Name("q0-bids")
	parts := weir.ProcessStream(bids, weir.ProcessFunction[reference.Q0Row, reference.Q0Result](&q0Discard{})).Name("q0-discard")
	return weir.ProcessStream(parts.Global(), weir.ProcessFunction[reference.Q0Result, reference.Q0Result](&q0Total{})).
		Name("q0-total").SetParallelism(1)
}

// q0Discard is q0's discarding sink: it counts and checksums its subtask's
// rows and emits that one partial result at the end of the input (the final
// watermark), unless the subtask saw no row. It is a type of its own
// rather than a fold with a function field: the row then stays in
// registers instead of being copied to call the function.
type q0Discard struct {
	q0Sum
}

// ProcessElement adds row to the subtask's result.
func (f *q0Discard) ProcessElement(_ *weir.ProcessContext[reference.Q0Result], row reference.Q0Row) error {
	f.sum.Bids++
	f.sum.Checksum += row.Checksum()
	return nil
}

// q0Total adds up the partial results of the q0Discard subtasks and emits
// the total at the end of the input.
type q0Total struct {
	q0Sum
}

// ProcessElement adds one subtask's partial result.
func (f *q0Total) ProcessElement(_ *weir.ProcessContext[reference.Q0Result], part reference.Q0Result) error {
	f.sum = f.sum.Add(part)
	return nil
}

// q0Sum is the partial result of a q0 stage's subtask. It is operator
// state, so that a job restored from a checkpoint counts every bid once,
// and it is emitted at the final watermark, which a restored subtask gets
// too (a function's Finish has no collector). Emitting resets it: what was
// sent is the next stage's, and a final watermark seen again after a
// restore sends nothing twice.
type q0Sum struct {
	sum   reference.Q0Result
	state weir.ListState[reference.Q0Result]
}

// InitializeState registers the sum's state and adds up what was
// restored to this subtask.
func (q *q0Sum) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	if q.state, err = weir.GetOperatorListState[reference.Q0Result](ctx, "q0-sum"); err != nil {
		return err
	}
	for _, part := range q.state.Get() {
		q.sum = q.sum.Add(part)
	}
	return nil
}

// SnapshotState stores the sum.
func (q *q0Sum) SnapshotState(weir.StateSnapshotContext) error {
	q.state.Update([]reference.Q0Result{q.sum})
	return nil
}

// OnWatermark emits the sum at the end of the input, unless it is empty.
func (q *q0Sum) OnWatermark(ctx *weir.ProcessContext[reference.Q0Result], wm int64) error {
	if wm == math.MaxInt64 && q.sum != (reference.Q0Result{}) {
		ctx.Collect(q.sum)
		q.sum = reference.Q0Result{}
	}
	return nil
}
