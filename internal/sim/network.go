package sim

import (
	"fmt"
	"slices"
	"time"
)

// Node is an endpoint of the simulated network: a process, or the part of
// one that holds connections.
type Node interface {
	// Receive is a message from a peer.
	Receive(from string, msg []byte)
	// Disconnected is the connection to peer closing: the peer's process
	// died or the link was cut. Messages in flight on it are lost.
	Disconnected(peer string)
}

// Faults are what the network does to messages. Latencies are drawn
// uniformly from [MinLatency, MaxLatency]; a message is lost with
// probability DropRate without either side learning of it, as when a
// peer hangs, so only timeouts notice.
type Faults struct {
	MinLatency, MaxLatency time.Duration
	DropRate               float64
}

// Network moves messages between nodes of a world. Messages on one
// connection arrive in the order they were sent, as on TCP.
type Network struct {
	w      *World
	faults Faults
	nodes  map[string]Node
	links  map[link]*linkState
}

// link names a connection by its two ends in sorted order.
type link struct{ a, b string }

func linkOf(x, y string) link {
	if x > y {
		x, y = y, x
	}
	return link{x, y}
}

type linkState struct {
	cut bool
	// epoch counts the connection's incarnations: a message sent before a
	// cut is not delivered on the healed connection.
	epoch int
	// last is the delivery time of the latest message per direction, which
	// later messages must not overtake.
	last map[string]time.Time
}

// NewNetwork returns a network of w with the given faults.
func NewNetwork(w *World, f Faults) *Network {
	if f.MaxLatency < f.MinLatency {
		f.MaxLatency = f.MinLatency
	}
	return &Network{w: w, faults: f, nodes: map[string]Node{}, links: map[link]*linkState{}}
}

// Register adds a node under addr, or replaces the one there (a process
// that restarted).
func (n *Network) Register(addr string, node Node) { n.nodes[addr] = node }

// Unregister removes the node at addr, as when its process dies: every
// peer connected to it learns of the closed connection.
func (n *Network) Unregister(addr string) {
	delete(n.nodes, addr)
	n.Isolate(addr)
}

func (n *Network) state(l link) *linkState {
	s := n.links[l]
	if s == nil {
		s = &linkState{last: map[string]time.Time{}}
		n.links[l] = s
	}
	return s
}

// Send sends msg from one node to another. It never blocks and never
// fails: a message to an unknown node or over a cut link is lost, and the
// sender learns of the cut through Disconnected.
func (n *Network) Send(from, to string, msg []byte) {
	l := linkOf(from, to)
	s := n.state(l)
	if s.cut {
		n.w.Tracef("%s -> %s: lost on a cut link", from, to)
		return
	}
	if n.faults.DropRate > 0 && n.w.rng.Float64() < n.faults.DropRate {
		n.w.Tracef("%s -> %s: dropped", from, to)
		return
	}
	d := n.faults.MinLatency
	if span := n.faults.MaxLatency - n.faults.MinLatency; span > 0 {
		d += time.Duration(n.w.rng.Int64N(int64(span) + 1))
	}
	at := n.w.now.Add(d)
	if last := s.last[from]; at.Before(last) {
		at = last
	}
	s.last[from] = at
	buf := append([]byte(nil), msg...)
	epoch := s.epoch
	n.w.After(at.Sub(n.w.now), func() {
		if s.cut || s.epoch != epoch {
			return
		}
		node := n.nodes[to]
		if node == nil {
			n.w.Tracef("%s -> %s: no such node", from, to)
			return
		}
		node.Receive(from, buf)
	})
}

// Cut closes the connection between a and b: both learn of it at once,
// messages in flight are lost, and later sends are lost until Heal.
func (n *Network) Cut(a, b string) {
	s := n.state(linkOf(a, b))
	if s.cut {
		return
	}
	s.cut = true
	s.epoch++
	s.last = map[string]time.Time{}
	n.w.Tracef("cut %s <-> %s", a, b)
	n.notify(a, b)
	n.notify(b, a)
}

// notify tells node at of the closed connection to peer, as an event.
func (n *Network) notify(at, peer string) {
	n.w.After(0, func() {
		if node := n.nodes[at]; node != nil {
			node.Disconnected(peer)
		}
	})
}

// Heal lets a and b talk again after a Cut.
func (n *Network) Heal(a, b string) {
	s := n.state(linkOf(a, b))
	if s.cut {
		s.cut = false
		n.w.Tracef("heal %s <-> %s", a, b)
	}
}

// Isolate cuts every connection of addr to a registered node.
func (n *Network) Isolate(addr string) {
	for _, peer := range n.sortedNodes() {
		if peer != addr {
			n.Cut(addr, peer)
		}
	}
}

// sortedNodes lists the registered addresses in a fixed order, so that
// what Isolate schedules does not depend on map order.
func (n *Network) sortedNodes() []string {
	addrs := make([]string, 0, len(n.nodes))
	for a := range n.nodes {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	return addrs
}

// String describes the network's faults for a failure message.
func (n *Network) String() string {
	return fmt.Sprintf("latency %v-%v, drop rate %.2f", n.faults.MinLatency, n.faults.MaxLatency, n.faults.DropRate)
}
