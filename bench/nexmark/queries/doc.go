// Package queries implements the Nexmark queries q0-q5, q7 and q8 with
// Weir's public API, as a user of the engine would write them, so that their
// results can be checked against package reference and their speed compared
// with it (BenchmarkQueries).
//
// Every query reads Source: a split source over the nexmark generator, split
// by event position in blocks of BlockEvents (subtask i of p reads blocks
// i, i+p, ...), so it works at any parallelism, a subtask's bids name
// mostly its own auctions, and it restores from a checkpoint at the
// position it stopped. Event time is Event.Timestamp(). Watermarks come from
// weir.AssignTimestampsAndWatermarks with an out-of-orderness bound derived
// from the generator (OutOfOrderness): a whole out-of-order group plus one
// inter-event delay, rounded up, so no event is ever late and every result
// counts every event, as package reference requires.
//
// The queries, and how each follows the reference's rules:
//
//   - Q0 is Flink's pass-through: every bid, projected to (auction, bidder,
//     price, dateTime, extra), into a stage chained to it that counts and
//     checksums its subtask's rows; each subtask's one partial result goes at
//     the end of the input to a stage of parallelism 1 that adds them up.
//   - Q1 and Q2 are a filter and a map of the bids.
//   - Q3 is a symmetric, unwindowed CoProcess join of persons and auctions
//     keyed by person ID; whichever side comes first waits in keyed state.
//   - Q4 joins auctions and bids keyed by auction ID in a CoProcess; bids that
//     come before their auction wait in list state; an event-time timer at
//     Expires-1 emits the winner (no valid bid can come after it), and a
//     second keyed stage sums the winners per category and emits at the end.
//   - Q5 counts bids per auction in sliding windows (WindowAggregate of
//     partial counts, which the window operator keeps per slice), then a
//     second stage keyed by window keeps the maximum count and every auction
//     with it, emitting at the window's end. Both stages are two-phase, as
//     Flink's local-global aggregation: a local count per auction and pane
//     before the keyBy, a local maximum per window before the second.
//   - Q7 keeps the highest bids per bucket (of price and time, not the
//     skewed auction) in tumbling windows, then a second stage keyed by
//     window keeps the bids with the window's maximum.
//   - Q8 joins persons and auctions keyed by person ID in a CoProcess, with
//     map state per tumbling window and an event-time timer at the window's
//     end that emits the row and clears the window.
//
// Q6 is not part of package reference and is not implemented here.
package queries
