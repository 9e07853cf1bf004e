package grpcrpc

import (
	"fmt"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The calls and replies of a gateway's stream are envelopes (see
// service.proto): a oneof whose field, named after the gateway method,
// holds the method's request or response. These helpers fill and read them
// by field name, so one piece of code serves the three gateways.

// setField sets m's message field name to v (an empty message for a nil
// v).
func setField(m proto.Message, name protoreflect.Name, v proto.Message) {
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(name)
	vr := v.ProtoReflect()
	if !vr.IsValid() {
		vr = vr.Type().New()
	}
	r.Set(fd, protoreflect.ValueOfMessage(vr))
}

// oneofField returns the name and the message of the field set in m's
// oneof ("" and nil when none is).
func oneofField(m proto.Message, oneof protoreflect.Name) (protoreflect.Name, proto.Message) {
	r := m.ProtoReflect()
	od := r.Descriptor().Oneofs().ByName(oneof)
	if od == nil {
		return "", nil
	}
	fd := r.WhichOneof(od)
	if fd == nil || fd.Message() == nil {
		return "", nil
	}
	return fd.Name(), r.Get(fd).Message().Interface()
}

// encodable reports why m cannot be marshalled (a string that is not
// UTF-8), checked before it goes on a stream, where the failure would end
// the stream and every call on it.
func encodable(m proto.Message) error {
	if _, err := proto.Marshal(m); err != nil {
		return fmt.Errorf("encode %T: %w", m, err)
	}
	return nil
}

// outbox is an unbounded queue of messages that one goroutine sends in
// order, so that whoever queues (a JobMaster's loop completing a future)
// never waits for the network.
type outbox[T any] struct {
	mu     sync.Mutex
	cond   *sync.Cond
	items  []T
	closed bool
}

func newOutbox[T any]() *outbox[T] {
	o := &outbox[T]{}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// push queues v; false when the outbox is closed.
func (o *outbox[T]) push(v T) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.items = append(o.items, v)
	o.cond.Signal()
	return true
}

// close drops what is queued and ends run.
func (o *outbox[T]) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.items = nil
	o.cond.Broadcast()
}

// run sends the queued messages in order until the outbox is closed or
// send fails (then it closes the outbox and returns the error).
func (o *outbox[T]) run(send func(T) error) error {
	for {
		o.mu.Lock()
		for len(o.items) == 0 && !o.closed {
			o.cond.Wait()
		}
		if o.closed {
			o.mu.Unlock()
			return nil
		}
		v := o.items[0]
		var zero T
		o.items[0] = zero
		o.items = o.items[1:]
		o.mu.Unlock()
		if err := send(v); err != nil {
			o.close()
			return err
		}
	}
}
