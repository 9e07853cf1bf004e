package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// q3Person is a person as q3's join keeps it; Keep says whether the person
// lives in a state q3 reports.
type q3Person struct {
	ID                int64
	Keep              bool
	Name, City, State string
}

// q3Auction is an auction of reference.Q3Category.
type q3Auction struct{ ID, Seller int64 }

// Q3 is local item suggestion: an unwindowed join of the auctions in
// reference.Q3Category with their sellers in OR, ID or CA.
func Q3(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q3Row] {
	return Q3Of(Source(env, cfg, SourceOptions{}))
}

// Q3Of is Q3 over a given event stream.
func Q3Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q3Row] {
	persons := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q3Person]) error {
		if p := e.Person(); e.IsPerson() {
			if reference.Q3State(p.State) {
				out.Collect(q3Person{ID: p.ID, Keep: true, Name: p.Name, City: p.City, State: p.State})
			} else {
				out.Collect(q3Person{ID: p.ID})
			}
		}
		return nil
	}).Name("q3-persons")
	auctions := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q3Auction]) error {
		if a := e.Auction(); e.IsAuction() && a.Category == reference.Q3Category {
			out.Collect(q3Auction{ID: a.ID, Seller: a.Seller})
		}
		return nil
	}).Name("q3-auctions")
	return weir.CoProcess(weir.Connect(
		weir.KeyBy(persons, func(p q3Person) int64 { return p.ID }),
		weir.KeyBy(auctions, func(a q3Auction) int64 { return a.Seller })),
		weir.KeyedCoProcessFunction[int64, q3Person, q3Auction, reference.Q3Row](&q3Join{})).Name("q3-join")
}

// q3Join keeps, per person ID, the person once seen and the auctions that
// came before it.
type q3Join struct {
	person  weir.ValueState[q3Person]
	waiting weir.ListState[int64]
}

// Open registers the state.
func (j *q3Join) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	if j.person, err = weir.GetValueState[q3Person](rc, "person"); err != nil {
		return err
	}
	j.waiting, err = weir.GetListState[int64](rc, "waiting")
	return err
}

// ProcessElement1 takes a person and matches the auctions waiting for it.
func (j *q3Join) ProcessElement1(ctx *weir.KeyedContext[int64, reference.Q3Row], p q3Person) error {
	if p.Keep {
		for _, id := range j.waiting.Get() {
			ctx.Collect(reference.Q3Row{Name: p.Name, City: p.City, State: p.State, AuctionID: id})
		}
	}
	j.waiting.Clear()
	j.person.Update(p)
	return nil
}

// ProcessElement2 takes an auction: it joins a kept seller already seen, or
// waits for a seller not seen yet.
func (j *q3Join) ProcessElement2(ctx *weir.KeyedContext[int64, reference.Q3Row], a q3Auction) error {
	p, seen := j.person.Value()
	switch {
	case !seen:
		j.waiting.Add(a.ID)
	case p.Keep:
		ctx.Collect(reference.Q3Row{Name: p.Name, City: p.City, State: p.State, AuctionID: a.ID})
	}
	return nil
}
