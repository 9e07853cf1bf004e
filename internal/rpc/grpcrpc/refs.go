package grpcrpc

import (
	"github.com/weir-engine/weir/internal/rpc"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// forEachError calls fn with every Error message inside m.
func forEachError(m protoreflect.Message, fn func(*rpcpb.Error)) {
	if e, ok := m.Interface().(*rpcpb.Error); ok {
		fn(e)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					forEachError(mv.Message(), fn)
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := range l.Len() {
					forEachError(l.Get(i).Message(), fn)
				}
			}
		case fd.Message() != nil:
			forEachError(v.Message(), fn)
		}
		return true
	})
}

// outgoing returns m as it may leave the process: when m refers to errors
// in this process's rpc.Handoff, a copy without the references, which are
// taken out of the Handoff (the receiver could never take them); otherwise
// m itself.
func outgoing[M proto.Message](m M) M {
	refs := false
	forEachError(m.ProtoReflect(), func(e *rpcpb.Error) { refs = refs || e.GetEmbeddedRef() != 0 })
	if !refs {
		return m
	}
	out := proto.Clone(m).(M)
	forEachError(out.ProtoReflect(), func(e *rpcpb.Error) {
		if e.EmbeddedRef != 0 {
			rpc.TakeLocal(e.EmbeddedRef)
			e.EmbeddedRef = 0
		}
	})
	return out
}

// incoming zeroes the error references of a message that came from
// another process, whose ids mean nothing here.
func incoming[M proto.Message](m M) M {
	forEachError(m.ProtoReflect(), func(e *rpcpb.Error) { e.EmbeddedRef = 0 })
	return m
}
