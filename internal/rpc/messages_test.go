package rpc_test

import (
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// files are the proto files of the boundary's messages.
var files = []protoreflect.FileDescriptor{
	rpcpb.File_weir_rpc_v1_common_proto, rpcpb.File_weir_rpc_v1_function_proto, rpcpb.File_weir_rpc_v1_job_proto,
	rpcpb.File_weir_rpc_v1_registration_proto, rpcpb.File_weir_rpc_v1_state_proto, rpcpb.File_weir_rpc_v1_deployment_proto,
	rpcpb.File_weir_rpc_v1_task_proto, rpcpb.File_weir_rpc_v1_checkpoint_proto, rpcpb.File_weir_rpc_v1_split_proto,
}

// fill sets every field of m to a value that is not the default, distinct
// per field (seed), recursing into messages, lists and maps; of a oneof it
// sets the member the seed picks.
func fill(m protoreflect.Message, seed int, depth int) {
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil && o.Fields().Get(seed%o.Fields().Len()) != fd {
			continue
		}
		n := seed*31 + i + 1
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for j := 0; j < 2; j++ {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					fill(e.Message(), n+j, depth+1)
					l.Append(e)
				} else {
					l.Append(scalar(fd, n+j))
				}
			}
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			k := scalar(fd.MapKey(), n).MapKey()
			if fd.MapValue().Kind() == protoreflect.MessageKind {
				v := mp.NewValue()
				fill(v.Message(), n, depth+1)
				mp.Set(k, v)
			} else {
				mp.Set(k, scalar(fd.MapValue(), n))
			}
		case fd.Kind() == protoreflect.MessageKind:
			if depth < 6 {
				fill(m.Mutable(fd).Message(), n, depth+1)
			}
		default:
			m.Set(fd, scalar(fd, n))
		}
	}
}

func scalar(fd protoreflect.FieldDescriptor, n int) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(fmt.Sprintf("s%d-ü", n))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes([]byte{byte(n), 0, 0xff})
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.Int32Kind:
		return protoreflect.ValueOfInt32(int32(-n))
	case protoreflect.Int64Kind:
		return protoreflect.ValueOfInt64(int64(n) << 40)
	case protoreflect.Uint32Kind:
		return protoreflect.ValueOfUint32(uint32(n) | 1<<31)
	case protoreflect.Uint64Kind:
		return protoreflect.ValueOfUint64(uint64(n) << 50)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(n) + 0.25)
	case protoreflect.EnumKind:
		vals := fd.Enum().Values()
		return protoreflect.ValueOfEnum(vals.Get(1 + n%(vals.Len()-1)).Number())
	}
	panic(fmt.Sprintf("no test value for %v", fd.Kind()))
}

// Every message of the boundary survives encoding with every field set
// (each oneof member in turn), and its encoding is not empty.
func TestEveryMessageRoundTrips(t *testing.T) {
	count := 0
	for _, f := range files {
		msgs := f.Messages()
		for i := 0; i < msgs.Len(); i++ {
			md := msgs.Get(i)
			mt, err := protoregistryFind(md)
			if err != nil {
				t.Fatal(err)
			}
			for seed := 0; seed < 2; seed++ {
				m := mt.New()
				fill(m, seed, 0)
				b, err := proto.Marshal(m.Interface())
				if err != nil {
					t.Fatalf("%s: marshal: %v", md.FullName(), err)
				}
				if len(b) == 0 && md.Fields().Len() > 0 {
					t.Fatalf("%s: empty encoding of a filled message", md.FullName())
				}
				got := mt.New().Interface()
				if err := proto.Unmarshal(b, got); err != nil {
					t.Fatalf("%s: unmarshal: %v", md.FullName(), err)
				}
				if !proto.Equal(m.Interface(), got) {
					t.Fatalf("%s: round trip changed it:\n%v\n%v", md.FullName(), m.Interface(), got)
				}
			}
			count++
		}
	}
	if count < 40 {
		t.Fatalf("only %d messages checked; the files define more", count)
	}
}

func protoregistryFind(md protoreflect.MessageDescriptor) (protoreflect.MessageType, error) {
	return protoregistry.GlobalTypes.FindMessageByName(md.FullName())
}
