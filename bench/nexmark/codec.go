package nexmark

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// eventJSON is an Event's JSON shape: the kind and the one entity it
// carries, e.g. {"Kind":2,"Bid":{"Auction":1000,...}}.
type eventJSON struct {
	Kind    EventKind
	Person  Person  `json:",omitzero"`
	Auction Auction `json:",omitzero"`
	Bid     Bid     `json:",omitzero"`
}

// MarshalJSON encodes the event as its kind and its entity.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(eventJSON{Kind: e.Kind, Person: e.Person(), Auction: e.Auction(), Bid: e.Bid()})
}

// UnmarshalJSON decodes what MarshalJSON encodes. Exactly the entity Kind
// names must be set (not zero).
func (e *Event) UnmarshalJSON(b []byte) error {
	var w eventJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	set := []bool{w.Person != (Person{}), w.Auction != (Auction{}), w.Bid != (Bid{})}
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	if n != 1 || int(w.Kind) >= len(set) || !set[w.Kind] {
		return fmt.Errorf("kind %s with %d of person, auction and bid set, want that one", w.Kind, n)
	}
	switch w.Kind {
	case KindPerson:
		*e = PersonEvent(w.Person)
	case KindAuction:
		*e = AuctionEvent(w.Auction)
	default:
		*e = BidEvent(w.Bid)
	}
	return nil
}

// errShortEvent is UnmarshalBinary's error for truncated input.
var errShortEvent = errors.New("nexmark: truncated binary event")

// AppendBinary appends the event's binary encoding to b: the kind byte, the
// seven numbers as varints and the six strings, each its length as a uvarint
// and its bytes. Events cross the network with it when a job shuffles them.
func (e Event) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, byte(e.Kind))
	for _, v := range e.num {
		b = binary.AppendVarint(b, v)
	}
	for _, s := range e.str {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b, nil
}

// MarshalBinary returns the encoding AppendBinary appends.
func (e Event) MarshalBinary() ([]byte, error) { return e.AppendBinary(nil) }

// UnmarshalBinary decodes what AppendBinary encodes; the strings are copied
// out of b.
func (e *Event) UnmarshalBinary(b []byte) error {
	if len(b) < 1 || EventKind(b[0]) > KindBid {
		return fmt.Errorf("nexmark: binary event: bad kind")
	}
	out := Event{Kind: EventKind(b[0])}
	b = b[1:]
	for i := range out.num {
		v, n := binary.Varint(b)
		if n <= 0 {
			return errShortEvent
		}
		out.num[i], b = v, b[n:]
	}
	for i := range out.str {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return errShortEvent
		}
		out.str[i], b = string(b[n:n+int(l)]), b[n+int(l):]
	}
	if len(b) != 0 {
		return fmt.Errorf("nexmark: binary event: %d trailing bytes", len(b))
	}
	*e = out
	return nil
}
