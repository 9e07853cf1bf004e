package simtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/internal/sim"
	"google.golang.org/protobuf/proto"
)

// Transport carries the gateways' calls between the nodes of a simulated
// network: a call is marshalled to bytes, sent to the node that serves
// its address, unmarshalled there and handed to the real gateway; the
// answer comes back the same way. Futures complete on the goroutine that
// drives the world.
//
// A call fails with rpc.ErrUnreachable when its address is not served,
// when the connection to the callee's node is closed (also while it is in
// flight), and with context.DeadlineExceeded when no answer came within
// Timeout (a request or an answer lost, as DropRate makes them).
type Transport struct {
	w   *sim.World
	net *sim.Network
	// Timeout bounds every call (default 10 s of virtual time).
	Timeout time.Duration
	// DropRate is the probability that a request or an answer is lost
	// without either side learning of it, as when a peer hangs; only
	// the caller's timeout notices. Data messages (Endpoint.SendData)
	// are never lost on a live connection.
	DropRate float64
	// Sent, when set, sees every request as its caller sends it;
	// Delivered every request as the callee's gateway gets it.
	Sent, Delivered func(from, addr, method string, req proto.Message)
	dir             map[string]string // address -> node
}

// NewTransport returns a transport over net, a network of w.
func NewTransport(w *sim.World, net *sim.Network) *Transport {
	return &Transport{w: w, net: net, Timeout: 10 * time.Second, dir: map[string]string{}}
}

// handler serves one method: it decodes a request and answers with the
// encoded response.
type handler func(ctx context.Context, payload []byte) (proto.Message, *rpc.Future[[]byte])

// Endpoint is a node's side of the transport: the gateways it serves and
// the calls it makes. It is the node registered in the network.
type Endpoint struct {
	t        *Transport
	node     string
	dead     bool
	services map[string]map[string]handler // address -> method -> handler
	pending  map[uint64]*pendingCall
	next     uint64
	down     map[string]bool
	// OnData gets the node's data messages; OnLost learns of a closed
	// connection (after the calls in flight on it failed).
	OnData func(from string, msg []byte)
	OnLost func(peer string)
}

type pendingCall struct {
	peer    string
	done    func([]byte, error)
	timeout *sim.Event
}

// Endpoint registers node in the network and returns its endpoint.
func (t *Transport) Endpoint(node string) *Endpoint {
	e := &Endpoint{t: t, node: node, services: map[string]map[string]handler{}, pending: map[uint64]*pendingCall{}, down: map[string]bool{}}
	t.net.Register(node, e)
	return e
}

// Kill ends the node's process: it leaves the network, its peers learn of
// it, and it neither receives nor answers nor times out any more.
func (e *Endpoint) Kill() {
	e.dead = true
	e.t.net.Unregister(e.node)
}

// Dead reports whether the node was killed.
func (e *Endpoint) Dead() bool { return e.dead }

// Message kinds on the wire.
const (
	kindRequest  = 'Q'
	kindResponse = 'R'
	kindData     = 'D'
)

// Receive implements sim.Node.
func (e *Endpoint) Receive(from string, msg []byte) {
	if e.dead || len(msg) == 0 {
		return
	}
	switch msg[0] {
	case kindRequest:
		e.serve(from, msg[1:])
	case kindResponse:
		e.answered(msg[1:])
	case kindData:
		if e.OnData != nil {
			e.OnData(from, msg[1:])
		}
	}
}

// Disconnected implements sim.Node: the calls in flight to peer fail.
func (e *Endpoint) Disconnected(peer string) {
	if e.dead {
		return
	}
	e.down[peer] = true
	for _, id := range sortedKeys(e.pending) {
		if c := e.pending[id]; c.peer == peer {
			delete(e.pending, id)
			c.timeout.Cancel()
			c.done(nil, fmt.Errorf("%w: the connection to %s closed", rpc.ErrUnreachable, peer))
		}
	}
	if e.OnLost != nil {
		e.OnLost(peer)
	}
}

// SendData sends a data message to the node that serves addr.
func (e *Endpoint) SendData(node string, msg []byte) {
	e.t.net.Send(e.node, node, append([]byte{kindData}, msg...))
}

// dropped draws whether a message is lost.
func (t *Transport) dropped() bool {
	return t.DropRate > 0 && t.w.Rand().Float64() < t.DropRate
}

func (e *Endpoint) serve(from string, b []byte) {
	id, addr, method, payload, err := decodeRequest(b)
	if err != nil {
		e.t.w.Tracef("%s: bad request from %s: %v", e.node, from, err)
		return
	}
	h := e.services[addr][method]
	var answer *rpc.Future[[]byte]
	if h == nil {
		answer = rpc.Failed[[]byte](fmt.Errorf("%w: %s does not serve %s %s", rpc.ErrUnreachable, e.node, addr, method))
	} else {
		var req proto.Message
		req, answer = h(context.Background(), payload)
		if req != nil && e.t.Delivered != nil {
			e.t.Delivered(from, addr, method, req)
		}
	}
	answer.OnComplete(func(resp []byte, err error) {
		if e.dead {
			return
		}
		if e.t.dropped() {
			e.t.w.Tracef("%s -> %s: answer to %s lost", e.node, from, method)
			return
		}
		e.t.net.Send(e.node, from, encodeResponse(id, resp, err))
	})
}

func (e *Endpoint) answered(b []byte) {
	id, resp, err := decodeResponse(b)
	c, ok := e.pending[id]
	if !ok {
		return // timed out or failed already
	}
	delete(e.pending, id)
	c.timeout.Cancel()
	c.done(resp, err)
}

// invoke calls method of the gateway at addr with req.
func invoke[Resp proto.Message](e *Endpoint, addr, method string, req proto.Message) *rpc.Future[Resp] {
	f := rpc.NewFuture[Resp]()
	var zero Resp
	fail := func(err error) *rpc.Future[Resp] {
		f.Complete(zero, fmt.Errorf("sim rpc %s to %s: %w", method, addr, err))
		return f
	}
	node, ok := e.t.dir[addr]
	switch {
	case e.dead:
		return fail(errors.New("the caller's process is dead"))
	case !ok:
		return fail(rpc.ErrUnreachable)
	case e.down[node]:
		return fail(fmt.Errorf("%w: the connection to %s is closed", rpc.ErrUnreachable, node))
	}
	payload, err := proto.Marshal(req)
	if err != nil {
		return fail(err)
	}
	if e.t.Sent != nil {
		e.t.Sent(e.node, addr, method, req)
	}
	e.next++
	id := e.next
	c := &pendingCall{peer: node, done: func(b []byte, err error) {
		if err != nil {
			fail(err)
			return
		}
		resp := newMessage[Resp]()
		if err := proto.Unmarshal(b, resp); err != nil {
			fail(fmt.Errorf("decode the answer: %w", err))
			return
		}
		f.Complete(resp, nil)
	}}
	c.timeout = e.t.w.After(e.t.Timeout, func() {
		if e.dead || e.pending[id] != c {
			return
		}
		delete(e.pending, id)
		c.done(nil, fmt.Errorf("%w: no answer within %v", context.DeadlineExceeded, e.t.Timeout))
	})
	e.pending[id] = c
	e.t.w.Tracef("%s -> %s %s %s", e.node, addr, method, summary(req))
	if e.t.dropped() {
		e.t.w.Tracef("%s -> %s: request %s lost", e.node, node, method)
		return f
	}
	e.t.net.Send(e.node, node, encodeRequest(id, addr, method, payload))
	return f
}

// newMessage returns an empty message of type M.
func newMessage[M proto.Message]() M {
	var zero M
	return zero.ProtoReflect().New().Interface().(M)
}

// method adapts a gateway method to a handler.
func method[G any, Req, Resp proto.Message](g G, m func(G, context.Context, Req) *rpc.Future[Resp]) handler {
	return func(ctx context.Context, payload []byte) (proto.Message, *rpc.Future[[]byte]) {
		req := newMessage[Req]()
		if err := proto.Unmarshal(payload, req); err != nil {
			return nil, rpc.Failed[[]byte](fmt.Errorf("decode the request: %w", err))
		}
		return req, rpc.Then(m(g, ctx, req), func(r Resp) ([]byte, error) { return proto.Marshal(r) })
	}
}

// serveAt adds the methods under addr, served by this node.
func (e *Endpoint) serveAt(addr string, methods map[string]handler) (func(), error) {
	if _, dup := e.t.dir[addr]; dup {
		return nil, fmt.Errorf("simtest: address %q is already served", addr)
	}
	e.t.dir[addr] = e.node
	e.services[addr] = methods
	return func() {
		delete(e.t.dir, addr)
		delete(e.services, addr)
	}, nil
}

// Wire encoding: a request is its kind, call id, address, method and the
// message; an answer its kind, call id, a status byte and the message or
// the error (an rpcpb.Error).

func encodeRequest(id uint64, addr, method string, payload []byte) []byte {
	b := []byte{kindRequest}
	b = binary.AppendUvarint(b, id)
	b = appendString(b, addr)
	b = appendString(b, method)
	return append(b, payload...)
}

func decodeRequest(b []byte) (id uint64, addr, method string, payload []byte, err error) {
	id, b, err = readUvarint(b)
	if err == nil {
		addr, b, err = readString(b)
	}
	if err == nil {
		method, b, err = readString(b)
	}
	return id, addr, method, b, err
}

func encodeResponse(id uint64, resp []byte, err error) []byte {
	b := []byte{kindResponse}
	b = binary.AppendUvarint(b, id)
	if err == nil {
		return append(append(b, 1), resp...)
	}
	m := rpc.EncodeError(err)
	rpc.TakeLocal(m.EmbeddedRef) // another process: only the text and kinds travel
	m.EmbeddedRef = 0
	eb, merr := proto.Marshal(m)
	if merr != nil {
		eb = nil
	}
	return append(append(b, 0), eb...)
}

func decodeResponse(b []byte) (uint64, []byte, error) {
	id, b, err := readUvarint(b)
	if err != nil || len(b) == 0 {
		return id, nil, fmt.Errorf("simtest: a malformed answer")
	}
	if b[0] == 1 {
		return id, b[1:], nil
	}
	m := &rpcpb.Error{}
	if err := proto.Unmarshal(b[1:], m); err != nil {
		return id, nil, fmt.Errorf("simtest: decode an error: %w", err)
	}
	return id, nil, rpc.DecodeError(m)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func readUvarint(b []byte) (uint64, []byte, error) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, nil, errors.New("simtest: a malformed varint")
	}
	return v, b[n:], nil
}

func readString(b []byte) (string, []byte, error) {
	n, b, err := readUvarint(b)
	if err != nil || uint64(len(b)) < n {
		return "", nil, errors.New("simtest: a malformed string")
	}
	return string(b[:n]), b[n:], nil
}
