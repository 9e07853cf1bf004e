package nexmark

import (
	"fmt"
	"iter"
)

// Generator walks a Config's stream in order. It owns no goroutine and does
// no I/O: Next computes one event with EventAt. A Generator is not safe for
// concurrent use; give each source subtask its own, made with Split.
//
// A Generator visits the positions first, first+stride, first+2*stride, ...
// below NumEvents (all of them when NumEvents is 0). NewGenerator starts at
// position 0 with stride 1.
type Generator struct {
	cfg     Config
	plan    *plan // shared by the generators Split makes; never written
	first   int64 // position of this generator's first event
	stride  int64 // distance between consecutive positions
	emitted int64 // events returned so far
}

// TryNewGenerator returns a Generator over the whole stream c describes, or
// the error from c.Validate.
func TryNewGenerator(c Config) (*Generator, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := c.newPlan()
	return &Generator{cfg: c, plan: &p, stride: 1}, nil
}

// NewGenerator is TryNewGenerator for configs known to be valid; it panics
// on an invalid one.
func NewGenerator(c Config) *Generator {
	g, err := TryNewGenerator(c)
	if err != nil {
		panic(err)
	}
	return g
}

// Config returns the configuration the generator draws from.
func (g *Generator) Config() Config { return g.cfg }

// NextPosition returns the stream position of the event Next will return.
func (g *Generator) NextPosition() int64 { return g.first + g.emitted*g.stride }

// Next returns the next event, or false once the generator has passed
// NumEvents. An unbounded generator never returns false. Fill is cheaper
// per event.
func (g *Generator) Next() (Event, bool) {
	var one [1]Event
	if g.Fill(one[:]) == 0 {
		return Event{}, false
	}
	return one[0], true
}

// Fill writes the next events into dst, as many as fit and remain, and
// returns how many it wrote (0 once the generator has passed NumEvents).
// They are the events Next would return one by one; dst may hold old
// events, which are overwritten. Filling a reused slab is the cheapest way
// to walk the stream: the per-event work is then the event's own random
// draws and fields.
func (g *Generator) Fill(dst []Event) int {
	n := len(dst)
	if g.cfg.NumEvents > 0 {
		n = min(n, int(g.remaining()))
	}
	g.plan.fill(dst[:n], g.NextPosition(), g.stride)
	g.emitted += int64(n)
	return n
}

// remaining returns how many events a bounded generator has left.
func (g *Generator) remaining() int64 {
	left := g.cfg.NumEvents - g.NextPosition()
	if left <= 0 {
		return 0
	}
	return (left + g.stride - 1) / g.stride
}

// All returns an iterator over the events Next would return; iterating
// advances g.
func (g *Generator) All() iter.Seq[Event] {
	return func(yield func(Event) bool) {
		for {
			e, ok := g.Next()
			if !ok || !yield(e) {
				return
			}
		}
	}
}

// Position returns how many events the generator has returned. Together
// with the Split arguments that made it, it is all a source subtask needs to
// checkpoint.
func (g *Generator) Position() int64 { return g.emitted }

// SetPosition makes the generator continue as if it had returned pos events,
// for restoring a checkpointed source. pos must not be negative.
func (g *Generator) SetPosition(pos int64) {
	if pos < 0 {
		panic(fmt.Sprintf("nexmark: SetPosition(%d): negative position", pos))
	}
	g.emitted = pos
}

// Watermark returns a lower bound on the event time of every event the
// generator has yet to return (see Config.WatermarkAt).
func (g *Generator) Watermark() int64 { return g.cfg.WatermarkAt(g.NextPosition()) }

// Split returns the index-th of count generators that share out g's remaining
// events round-robin: the k-th remaining event goes to generator k mod count.
// Together the count generators return every remaining event exactly once,
// and each of them moves through event time at the full stream's pace, so
// parallel source subtasks advance their watermarks together. g itself is
// not changed; stop using it once split. Split panics unless
// 0 <= index < count.
func (g *Generator) Split(index, count int) *Generator {
	if count < 1 || index < 0 || index >= count {
		panic(fmt.Sprintf("nexmark: Split(%d, %d): need 0 <= index < count", index, count))
	}
	return &Generator{
		cfg:    g.cfg,
		plan:   g.plan,
		first:  g.first + (g.emitted+int64(index))*g.stride,
		stride: g.stride * int64(count),
	}
}
