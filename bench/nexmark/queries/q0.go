package queries

import (
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
		if b := e.Bid(); e.IsBid() {
			out.Collect(reference.Q0RowOf(&b))
		}
		return nil
	}).Name("q0-bids")
	parts := weir.FlatMapWith(bids, weir.FlatMapFunction[reference.Q0Row, reference.Q0Result](&q0Sum[reference.Q0Row]{
		add: func(r *reference.Q0Result, row reference.Q0Row) { r.Bids++; r.Checksum += row.Checksum() },
	})).Name("q0-discard")
	return weir.FlatMapWith(parts.Global(), weir.FlatMapFunction[reference.Q0Result, reference.Q0Result](&q0Sum[reference.Q0Result]{
		add: func(r *reference.Q0Result, p reference.Q0Result) { *r = r.Add(p) },
	})).Name("q0-total").SetParallelism(1)
}

// q0Sum folds its subtask's input into one result with add and emits it
// when the input ends (Finish may still emit, as FLIP-147 defines), unless
// the subtask saw no input.
type q0Sum[T any] struct {
	add func(*reference.Q0Result, T)
	sum reference.Q0Result
	out weir.Collector[reference.Q0Result]
}

// FlatMap adds v to the subtask's result.
func (f *q0Sum[T]) FlatMap(v T, out weir.Collector[reference.Q0Result]) error {
	f.add(&f.sum, v)
	f.out = out
	return nil
}

// Finish emits the subtask's result.
func (f *q0Sum[T]) Finish() error {
	if f.out != nil {
		f.out.Collect(f.sum)
	}
	return nil
}
