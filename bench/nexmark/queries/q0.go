package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// q0Buckets is how many keys q0's first, parallel stage sums into.
const q0Buckets = 64

// q0Part is a partial q0 result for one bucket.
type q0Part struct {
	Bucket int64
	reference.Q0Result
}

// Q0 is the pass-through query: it emits one reference.Q0Result, the counts
// and checksum of all events, when the input ends.
func Q0(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q0Result] {
	return Q0Of(Source(env, cfg, SourceOptions{}))
}

// Q0Of is Q0 over a given event stream.
func Q0Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q0Result] {
	parts := weir.Map(events, func(e nexmark.Event) (q0Part, error) {
		r := reference.Q0Result{Events: 1, Checksum: reference.Checksum(e)}
		switch {
		case e.Person != nil:
			r.Persons = 1
		case e.Auction != nil:
			r.Auctions = 1
		case e.Bid != nil:
			r.Bids = 1
		}
		return q0Part{Bucket: int64(r.Checksum % q0Buckets), Q0Result: r}, nil
	}).Name("q0-count")
	sums := weir.Process(weir.KeyBy(parts, func(p q0Part) int64 { return p.Bucket }),
		weir.KeyedProcessFunction[int64, q0Part, q0Part](&q0Sum{})).Name("q0-partial")
	total := weir.Process(weir.KeyBy(sums, func(q0Part) int64 { return 0 }),
		weir.KeyedProcessFunction[int64, q0Part, q0Part](&q0Sum{})).Name("q0-total").SetParallelism(1)
	return weir.Map(total, func(p q0Part) (reference.Q0Result, error) { return p.Q0Result, nil })
}

// q0Sum adds up the partial results of its key and emits the sum when the
// input ends.
type q0Sum struct{ sum weir.ValueState[q0Part] }

// Open registers the running sum.
func (f *q0Sum) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.sum, err = weir.GetValueState[q0Part](rc, "sum")
	return err
}

// ProcessElement adds p to the key's sum.
func (f *q0Sum) ProcessElement(ctx *weir.KeyedContext[int64, q0Part], p q0Part) error {
	s, ok := f.sum.Value()
	if !ok {
		ctx.TimerService().RegisterEventTimeTimer(endOfInput)
		s.Bucket = p.Bucket
	}
	s.Events += p.Events
	s.Persons += p.Persons
	s.Auctions += p.Auctions
	s.Bids += p.Bids
	s.Checksum += p.Checksum
	f.sum.Update(s)
	return nil
}

// OnTimer emits the key's sum at the end of input.
func (f *q0Sum) OnTimer(ctx *weir.KeyedContext[int64, q0Part], _ int64) error {
	if s, ok := f.sum.Value(); ok {
		ctx.Collect(s)
		f.sum.Clear()
	}
	return nil
}
