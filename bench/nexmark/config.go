package nexmark

import (
	"errors"
	"fmt"
)

// ErrInvalidConfig is wrapped by every error Validate returns.
var ErrInvalidConfig = errors.New("nexmark: invalid config")

// DefaultBaseTime is the event time of event 0 in DefaultConfig:
// 2024-01-01T00:00:00Z in ms. It is a multiple of 10 s, so the first event
// opens a fresh window in every query. A constant rather than the wall clock
// (which the reference generator uses) makes every run produce the same bytes.
const DefaultBaseTime int64 = 1_704_067_200_000

// Config parameterises the generator. The generator is a pure function of
// Config and the event number, so two processes with equal Configs produce
// equal streams. Start from DefaultConfig and change fields; Validate reports
// combinations the generator cannot honour.
type Config struct {
	// Seed is mixed into every event's random numbers. Default 0.
	Seed uint64
	// FirstEventRate is the event-time rate in events per second: event n has
	// DateTime BaseTime + n*(1e6/FirstEventRate)/1000 ms (integer division, as
	// the reference does). It does not pace wall-clock emission; a source that
	// wants to throttle does so itself. Default 10_000, at most 1_000_000.
	FirstEventRate int64
	// NumEvents bounds the stream; 0 means unbounded. Default 0.
	NumEvents int64

	// PersonProportion, AuctionProportion and BidProportion split every run of
	// P+A+B consecutive event numbers into P persons, then A auctions, then B
	// bids. Defaults 1, 3, 46.
	PersonProportion  int
	AuctionProportion int
	BidProportion     int

	// NumActivePeople is how many of the most recent people a non-hot seller
	// or bidder is drawn from. Default 1000.
	NumActivePeople int
	// InFlightAuctions is how many of the most recent auctions a non-hot bid
	// is drawn from; it also sets the mean auction length. Default 100.
	InFlightAuctions int
	// HotAuctionRatio: a bid goes to the hot auction with probability
	// 1-1/HotAuctionRatio. Default 2 (half the bids).
	HotAuctionRatio int
	// HotSellersRatio: an auction is sold by the hot seller with
	// probability 1-1/HotSellersRatio. Default 4.
	HotSellersRatio int
	// HotBiddersRatio: a bid comes from the hot bidder with probability
	// 1-1/HotBiddersRatio. Default 4.
	HotBiddersRatio int

	// AvgPersonByteSize, AvgAuctionByteSize and AvgBidByteSize are the mean
	// encoded sizes the Extra field pads each kind towards, counting 8 bytes
	// per number and the length of each string as the reference does.
	// Defaults 200, 500, 100.
	AvgPersonByteSize  int
	AvgAuctionByteSize int
	AvgBidByteSize     int

	// BaseTime is the event time of event 0, ms since the Unix epoch.
	// Default DefaultBaseTime.
	BaseTime int64
	// FirstPersonID and FirstAuctionID are the IDs of the first person and
	// auction. Defaults 1000 and 1000.
	FirstPersonID  int64
	FirstAuctionID int64
	// FirstCategoryID and NumCategories bound Auction.Category to
	// [FirstCategoryID, FirstCategoryID+NumCategories). Defaults 10 and 5.
	FirstCategoryID int64
	NumCategories   int

	// OutOfOrderGroupSize permutes event numbers within consecutive groups
	// of this size, so event times are out of order by at most one group.
	// 1 (the default) keeps the stream in event-time order.
	OutOfOrderGroupSize int64
}

// DefaultConfig returns the reference defaults (Beam's NexmarkConfiguration
// and GeneratorConfig), with BaseTime fixed to DefaultBaseTime.
func DefaultConfig() Config {
	return Config{
		FirstEventRate:      10_000,
		PersonProportion:    1,
		AuctionProportion:   3,
		BidProportion:       46,
		NumActivePeople:     1000,
		InFlightAuctions:    100,
		HotAuctionRatio:     2,
		HotSellersRatio:     4,
		HotBiddersRatio:     4,
		AvgPersonByteSize:   200,
		AvgAuctionByteSize:  500,
		AvgBidByteSize:      100,
		BaseTime:            DefaultBaseTime,
		FirstPersonID:       1000,
		FirstAuctionID:      1000,
		FirstCategoryID:     10,
		NumCategories:       5,
		OutOfOrderGroupSize: 1,
	}
}

// outOfOrderMultiplier is the reference's in-group shuffle: position i of a
// group of size g carries event number i*953 mod g. It is a permutation
// exactly when g is not a multiple of 953 (a prime).
const outOfOrderMultiplier = 953

// maxDrawRange bounds the fields the generator draws from with 32 random
// bits (see lemire32): the hot ratios, NumActivePeople and
// InFlightAuctions.
const maxDrawRange = 1 << 30

// Validate returns an error wrapping ErrInvalidConfig that names the first
// field out of range, or nil.
func (c Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
	}
	switch {
	case c.FirstEventRate < 1 || c.FirstEventRate > 1_000_000:
		return bad("FirstEventRate %d not in [1, 1e6] (the inter-event delay is whole microseconds)", c.FirstEventRate)
	case c.NumEvents < 0:
		return bad("NumEvents %d is negative", c.NumEvents)
	case c.PersonProportion < 1 || c.AuctionProportion < 1 || c.BidProportion < 1:
		return bad("proportions %d:%d:%d must all be at least 1", c.PersonProportion, c.AuctionProportion, c.BidProportion)
	case c.NumActivePeople < 1 || c.NumActivePeople > maxDrawRange:
		return bad("NumActivePeople %d not in [1, 2^30]", c.NumActivePeople)
	case c.InFlightAuctions < 1 || c.InFlightAuctions > maxDrawRange:
		return bad("InFlightAuctions %d not in [1, 2^30]", c.InFlightAuctions)
	case c.HotAuctionRatio < 1 || c.HotSellersRatio < 1 || c.HotBiddersRatio < 1 ||
		c.HotAuctionRatio > maxDrawRange || c.HotSellersRatio > maxDrawRange || c.HotBiddersRatio > maxDrawRange:
		return bad("hot ratios %d, %d, %d must all be in [1, 2^30]", c.HotAuctionRatio, c.HotSellersRatio, c.HotBiddersRatio)
	case c.AvgPersonByteSize < 0 || c.AvgAuctionByteSize < 0 || c.AvgBidByteSize < 0:
		return bad("average byte sizes must not be negative")
	case c.BaseTime < 0:
		return bad("BaseTime %d is negative", c.BaseTime)
	case c.FirstPersonID < 0 || c.FirstAuctionID < 0:
		return bad("first IDs must not be negative")
	case c.NumCategories < 1:
		return bad("NumCategories %d < 1", c.NumCategories)
	case c.OutOfOrderGroupSize < 1:
		return bad("OutOfOrderGroupSize %d < 1", c.OutOfOrderGroupSize)
	case c.OutOfOrderGroupSize%outOfOrderMultiplier == 0:
		return bad("OutOfOrderGroupSize %d is a multiple of %d, so the shuffle is not a permutation", c.OutOfOrderGroupSize, outOfOrderMultiplier)
	}
	return nil
}

// proportionDenominator is the length of one person/auction/bid cycle.
func (c Config) proportionDenominator() int64 {
	return int64(c.PersonProportion + c.AuctionProportion + c.BidProportion)
}

// interEventDelayUs is the event-time gap between consecutive event numbers.
func (c Config) interEventDelayUs() int64 {
	return 1_000_000 / c.FirstEventRate
}
