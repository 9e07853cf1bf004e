package reference

import (
	"cmp"
	"iter"
	"slices"

	"github.com/weir-engine/weir/bench/nexmark"
)

// Q3Category is the auction category q3 keeps.
const Q3Category = 10

// Q3State reports whether q3 keeps sellers from state: OR, ID or CA.
func Q3State(state string) bool { return state == "OR" || state == "ID" || state == "CA" }

// Q3Row is one local item suggestion: the seller's name, city and state and
// the auction's ID.
type Q3Row struct {
	Name, City, State string
	AuctionID         int64
}

// Q3 joins auctions in category Q3Category with their sellers in OR, ID or
// CA (local item suggestion). The join is unwindowed and symmetric: a match
// counts whichever of the two arrives first, as in Flink's regular SQL join,
// so an auction whose seller ID was generated ahead of the person (see the
// nexmark package comment) still matches. Each auction has one seller, so
// there is at most one row per auction; rows are sorted by AuctionID.
//
// The loop is the streaming join an engine would run: it keeps every person
// seen (the matching ones with their fields) and only those auctions whose
// seller has not arrived yet.
func Q3(events iter.Seq[nexmark.Event]) []Q3Row {
	type seller struct{ name, city, state string }
	persons := map[int64]*seller{} // every person seen; nil if not in a kept state
	waiting := map[int64][]int64{} // seller ID -> kept auctions that came before the seller
	var out []Q3Row
	for e := range events {
		switch {
		case e.IsPerson():
			p := e.Person()
			var s *seller
			if Q3State(p.State) {
				s = &seller{p.Name, p.City, p.State}
				for _, id := range waiting[p.ID] {
					out = append(out, Q3Row{Name: s.name, City: s.city, State: s.state, AuctionID: id})
				}
			}
			delete(waiting, p.ID)
			persons[p.ID] = s
		case e.IsAuction():
			a := e.Auction()
			if a.Category != Q3Category {
				continue
			}
			s, seen := persons[a.Seller]
			switch {
			case !seen:
				waiting[a.Seller] = append(waiting[a.Seller], a.ID)
			case s != nil:
				out = append(out, Q3Row{Name: s.name, City: s.city, State: s.state, AuctionID: a.ID})
			}
		}
	}
	slices.SortFunc(out, CompareQ3)
	return out
}

// CompareQ3 orders Q3 rows by AuctionID.
func CompareQ3(a, b Q3Row) int { return cmp.Compare(a.AuctionID, b.AuctionID) }
