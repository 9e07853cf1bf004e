package reference

import (
	"cmp"
	"iter"
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q8Row is a new user who both registered and opened an auction in one
// tumbling window.
type Q8Row struct {
	PersonID    int64
	Name        string
	WindowStart int64 // the window is [WindowStart, WindowStart+WindowSize)
}

// Q8 monitors new users: it joins persons and auctions on Person.ID =
// Auction.Seller within the same tumbling window of WindowSize ms, each
// placed by its own DateTime. As in the published Flink q8, which groups each
// side by (id, window) before joining, a person yields one row however many
// auctions they opened in the window. Arrival order does not matter. Rows are
// sorted by (WindowStart, PersonID).
func Q8(events iter.Seq[nexmark.Event]) []Q8Row {
	type key struct{ window, person int64 }
	type state struct {
		name              string
		person, auctioned bool
	}
	seen := map[key]*state{}
	get := func(k key) *state {
		s := seen[k]
		if s == nil {
			s = &state{}
			seen[k] = s
		}
		return s
	}
	for e := range events {
		switch {
		case e.IsPerson():
			p := e.Person()
			s := get(key{WindowStart(p.DateTime, WindowSize), p.ID})
			s.person, s.name = true, p.Name
		case e.IsAuction():
			a := e.Auction()
			get(key{WindowStart(a.DateTime, WindowSize), a.Seller}).auctioned = true
		}
	}
	var out []Q8Row
	for k, s := range seen {
		if s.person && s.auctioned {
			out = append(out, Q8Row{PersonID: k.person, Name: s.name, WindowStart: k.window})
		}
	}
	slices.SortFunc(out, CompareQ8)
	return out
}

// CompareQ8 orders Q8 rows by (WindowStart, PersonID).
func CompareQ8(a, b Q8Row) int {
	return cmp.Or(cmp.Compare(a.WindowStart, b.WindowStart), cmp.Compare(a.PersonID, b.PersonID))
}
