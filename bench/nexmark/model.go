package nexmark

// Person is a new user registering with the auction site. IDs are dense: the
// k-th person ever generated has ID FirstPersonID+k (in event-number order).
type Person struct {
	ID           int64
	Name         string
	EmailAddress string
	CreditCard   string
	City         string
	State        string
	DateTime     int64 // event time, ms since the Unix epoch
	Extra        string
}

// Auction is a new item put up for sale. IDs are dense like Person IDs. The
// auction is open for bids with DateTime <= bid.DateTime < Expires.
type Auction struct {
	ID          int64
	ItemName    string
	Description string
	InitialBid  int64 // cents
	Reserve     int64 // cents; a winning bid must be at least this
	DateTime    int64 // event time, ms since the Unix epoch
	Expires     int64 // ms since the Unix epoch; always > DateTime
	Seller      int64 // Person.ID
	Category    int64 // in [FirstCategoryID, FirstCategoryID+NumCategories)
	Extra       string
}

// Bid is an offer on an auction. Auction and Bidder usually name an auction
// and a person generated earlier; see the package comment for the exception.
type Bid struct {
	Auction  int64 // Auction.ID
	Bidder   int64 // Person.ID
	Price    int64 // cents
	Channel  string
	URL      string
	DateTime int64 // event time, ms since the Unix epoch
	Extra    string
}

// EventKind says which of an Event's entities is set. The values match the
// event_type column of the published Flink Nexmark source (0, 1, 2).
type EventKind uint8

const (
	// KindPerson marks an Event that carries a Person.
	KindPerson EventKind = 0
	// KindAuction marks an Event that carries an Auction.
	KindAuction EventKind = 1
	// KindBid marks an Event that carries a Bid.
	KindBid EventKind = 2
)

// String returns "person", "auction" or "bid".
func (k EventKind) String() string {
	switch k {
	case KindPerson:
		return "person"
	case KindAuction:
		return "auction"
	case KindBid:
		return "bid"
	}
	return "unknown"
}
