package queries

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/reference"
)

// q8Person is a new person: ID, name and time.
type q8Person struct {
	ID       int64
	Name     string
	DateTime int64
}

// q8Auction is a new auction's seller and time.
type q8Auction struct{ Seller, DateTime int64 }

// q8Window is what q8 knows of one person in one window.
type q8Window struct {
	Name              string
	Person, Auctioned bool
}

// Q8 is monitor new users: the persons who registered and opened an auction
// in the same tumbling window of reference.WindowSize, one row per person
// and window.
func Q8(env *weir.Env, cfg nexmark.Config) weir.DataStream[reference.Q8Row] {
	return Q8Of(Source(env, cfg, SourceOptions{}))
}

// Q8Of is Q8 over a given event stream.
func Q8Of(events weir.DataStream[nexmark.Event]) weir.DataStream[reference.Q8Row] {
	persons := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q8Person]) error {
		if p := e.Person(); e.IsPerson() {
			out.Collect(q8Person{ID: p.ID, Name: p.Name, DateTime: p.DateTime})
		}
		return nil
	}).Name("q8-persons")
	auctions := weir.FlatMap(events, func(e nexmark.Event, out weir.Collector[q8Auction]) error {
		if a := e.Auction(); e.IsAuction() {
			out.Collect(q8Auction{Seller: a.Seller, DateTime: a.DateTime})
		}
		return nil
	}).Name("q8-auctions")
	return weir.CoProcess(weir.Connect(
		weir.KeyBy(persons, func(p q8Person) int64 { return p.ID }),
		weir.KeyBy(auctions, func(a q8Auction) int64 { return a.Seller })),
		weir.KeyedCoProcessFunction[int64, q8Person, q8Auction, reference.Q8Row](&newUsers{})).Name("q8-join")
}

// newUsers keeps, per person ID, map state from window start to what was
// seen in that window, and a timer at each window's end that emits the row
// if both sides were seen and forgets the window.
type newUsers struct {
	windows weir.MapState[int64, q8Window]
}

// Open registers the state.
func (f *newUsers) Open(rc *weir.KeyedRuntimeContext[int64]) (err error) {
	f.windows, err = weir.GetMapState[int64, q8Window](rc, "windows")
	return err
}

func (f *newUsers) update(ctx *weir.KeyedContext[int64, reference.Q8Row], ts int64, change func(*q8Window)) {
	start := reference.WindowStart(ts, reference.WindowSize)
	w, ok := f.windows.Get(start)
	if !ok {
		ctx.TimerService().RegisterEventTimeTimer(start + reference.WindowSize - 1)
	}
	change(&w)
	f.windows.Put(start, w)
}

// ProcessElement1 takes a person.
func (f *newUsers) ProcessElement1(ctx *weir.KeyedContext[int64, reference.Q8Row], p q8Person) error {
	f.update(ctx, p.DateTime, func(w *q8Window) { w.Person, w.Name = true, p.Name })
	return nil
}

// ProcessElement2 takes an auction.
func (f *newUsers) ProcessElement2(ctx *weir.KeyedContext[int64, reference.Q8Row], a q8Auction) error {
	f.update(ctx, a.DateTime, func(w *q8Window) { w.Auctioned = true })
	return nil
}

// OnTimer closes the window ending at ts.
func (f *newUsers) OnTimer(ctx *weir.KeyedContext[int64, reference.Q8Row], ts int64) error {
	start := ts + 1 - reference.WindowSize
	if w, ok := f.windows.Get(start); ok {
		if w.Person && w.Auctioned {
			ctx.Collect(reference.Q8Row{PersonID: ctx.Key(), Name: w.Name, WindowStart: start})
		}
		f.windows.Remove(start)
	}
	return nil
}
