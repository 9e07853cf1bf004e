package allocator

import (
	"errors"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// Pool is the set of slots a job holds (its slot pool, as the
// ResourceManager matched its declared needs) and which of them the
// current generation reserved. It is not safe for concurrent use: the
// JobMaster loop owns it.
type Pool struct {
	slots    []slots.ID
	reserved map[slots.ID]bool
}

// ErrSlotGone says a plan uses a slot the pool no longer holds.
var ErrSlotGone = errors.New("allocator: slot no longer in the pool")

// Set replaces the pool's slots with held (a copy, sorted, without
// duplicates). Reservations of slots that left are dropped.
func (p *Pool) Set(held []slots.ID) {
	s := slices.Clone(held)
	slices.SortFunc(s, compareSlots)
	p.slots = slices.Compact(s)
	for id := range p.reserved {
		if !p.Has(id) {
			delete(p.reserved, id)
		}
	}
}

// Slots returns the pool's slots, sorted.
func (p *Pool) Slots() []slots.ID { return slices.Clone(p.slots) }

// Has reports whether the pool holds slot id.
func (p *Pool) Has(id slots.ID) bool {
	_, ok := slices.BinarySearchFunc(p.slots, id, compareSlots)
	return ok
}

// Reserve commits a plan: its slots become the reservation of the new
// generation, replacing the previous one (whose tasks have ended). It
// fails, reserving nothing, when a slot of the plan left the pool since
// the plan was made.
func (p *Pool) Reserve(plan Plan) error {
	for _, s := range plan.Shared {
		if !p.Has(s.Slot) {
			return fmt.Errorf("reserve %v: %w", s.Slot, ErrSlotGone)
		}
	}
	p.reserved = make(map[slots.ID]bool, len(plan.Shared))
	for _, s := range plan.Shared {
		p.reserved[s.Slot] = true
	}
	return nil
}

// Reserved reports whether slot id is reserved by the current generation.
func (p *Pool) Reserved(id slots.ID) bool { return p.reserved[id] }

// Release drops the reservation, when a generation ended.
func (p *Pool) Release() { p.reserved = nil }
