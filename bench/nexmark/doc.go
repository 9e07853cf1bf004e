// Package nexmark generates the Nexmark benchmark's event stream: an online
// auction site where people register (Person), open auctions (Auction) and
// bid on them (Bid). Package reference beside it answers the benchmark's
// queries with plain loops, as the oracle and the speed limit for Weir's
// implementations.
//
// # Model
//
// The stream is a sequence of Event values, each carrying exactly one of a
// Person, Auction or Bid, held by value (see Event). All times are event
// times in ms since the Unix epoch; nothing here reads the wall clock.
//
// The stream is a pure function of a Config and a position: Config.EventAt(n)
// computes event n from scratch, drawing from its own window of one
// splitmix64 stream per Config.Seed. So parallel source subtasks need no
// coordination: each takes its own positions, either through Generator.Split
// (round-robin, which keeps every subtask at the same point in event time)
// or by calling EventAt on a contiguous range. Generator.Fill and
// Config.EventsAt give the same events into a reused slab, the cheapest way
// to walk the stream. A Generator's whole state is its position, which a
// source checkpoints and restores with Position and SetPosition.
//
// # Relationships, as in the reference generator
//
// These follow Beam's Java generator (sdks/java/testing/nexmark: Generator,
// GeneratorConfig, PersonGenerator, AuctionGenerator, BidGenerator) and the
// Flink Nexmark generator derived from it (nexmark/nexmark), so queries see
// the same shape of data:
//
//   - Kinds come in fixed cycles of PersonProportion + AuctionProportion +
//     BidProportion = 50 events: 1 person, then 3 auctions, then 46 bids.
//   - IDs are dense and derived from the event number: the k-th person has
//     ID FirstPersonID+k, the k-th auction FirstAuctionID+k.
//   - An auction's seller is, with probability 1-1/HotSellersRatio, the hot
//     seller (the first person of the current batch of 100), otherwise one of
//     the NumActivePeople most recent people.
//   - A bid's auction is, with probability 1-1/HotAuctionRatio, the hot
//     auction (the first of the current batch of 100 auctions), otherwise one
//     of the InFlightAuctions most recent auctions. Its bidder is, with
//     probability 1-1/HotBiddersRatio, the hot bidder (the second person of
//     the current batch), otherwise one of the most recent active people.
//   - Event n (with no shuffle) has time BaseTime + n*(1e6/FirstEventRate)/1000:
//     whole microseconds between events, truncated to ms.
//   - OutOfOrderGroupSize g shuffles the events within each aligned group
//     of g positions with the reference's n*953 mod g permutation. An event's
//     content, time included, follows its shuffled number, so the stream
//     holds the same events in a different order. WatermarkAt gives the
//     matching lower bound on future event times.
//   - An auction's category is uniform in [FirstCategoryID,
//     FirstCategoryID+NumCategories). It expires 1 ms to twice the "horizon"
//     after it opens, the horizon being the event time until InFlightAuctions
//     more auctions exist; prices are log-uniform over [$1, $1M] in cents,
//     and the reserve is the initial bid plus another such price.
//   - Names, cities and states come from the reference's short lists (so q3
//     finds sellers in OR, ID and CA quickly); e-mail addresses, credit cards,
//     item names and descriptions are random words of the reference's shape.
//     Half of all bids come through four hot channels (Google, Facebook,
//     Baidu, Apple), the rest through "channel-0" to "channel-9999", as in
//     the Flink generator. Extra pads each kind to AvgPersonByteSize,
//     AvgAuctionByteSize or AvgBidByteSize, counted as the reference counts
//     (8 bytes per number plus string lengths; a bid counts only its numbers).
//
// References may point a little into the future, as in the reference: a
// random seller or bidder can be up to PersonIDLead IDs past the newest
// person, a random auction up to AuctionIDLead IDs past the newest auction,
// and while a batch of 100 people has only its first member the hot bidder
// is the next, not yet generated, person. Over the first 200,000 events of
// the default stream 0.55% of sellers, 1.2% of bidders and 4.6% of bids'
// auctions name an entity that comes later in the stream. Joins must therefore not assume the referenced
// side arrived first (see package reference).
//
// # Where we differ from the reference, and why
//
//   - Randomness is splitmix64 per (Seed, event number) instead of
//     java.util.Random seeded with the event ID, so the values differ from
//     Beam's stream though the distributions match. Seed is ours; with the
//     same Config the bytes are the same on every machine and run.
//   - BaseTime defaults to a constant (DefaultBaseTime, 10 s aligned), not
//     the wall clock at start.
//   - One constant rate only: no rate shapes (square, sine), no next rate,
//     no delayed events, no wall-clock pacing. FirstEventRate is at most 1e6
//     so the inter-event delay stays a whole microsecond.
//   - Splitting shares out one timeline by position. Beam's split instead
//     gives each generator its own range of event IDs and stretches its
//     delay by the number of generators; ours keeps the union of the splits
//     identical to the unsplit stream, which is what the oracle needs.
//   - When NumEvents cuts the last out-of-order group short, that group stays
//     in order (the reference can emit event numbers past the end there), and
//     group sizes that are multiples of 953 are rejected (the shuffle would
//     not be a permutation).
//   - Extra is cut at a random offset from a fixed 2 MiB string of random
//     letters instead of being drawn letter by letter; the sizes follow the
//     reference's formula. This halves generation cost. Nothing reads Extra.
//   - Item names and descriptions are windows of a fixed 1 MiB text whose
//     bytes follow the reference's letter distribution (a space with
//     probability 1/13, else a uniform letter), trimmed as the reference
//     trims; their lengths are drawn as the reference draws them. Credit
//     card numbers are four consecutive groups of a fixed text of uniform
//     four-digit groups. E-mail addresses are drawn from 65,536 made by the
//     reference's rule (so they repeat; no query reads them). So no event
//     builds a string and EventAt allocates nothing.
//   - Channel URLs are a fixed function of the channel number; the Flink
//     generator draws them from an unseeded Random on first use, so they
//     differ between its runs.
//   - The bidder ID adds FirstPersonID once, as Beam does (the Flink
//     generator adds it twice).
//   - The proportions are Config fields (constants in the reference); the hot
//     batch size (100) and the ID leads (10) stay constants as there.
package nexmark
