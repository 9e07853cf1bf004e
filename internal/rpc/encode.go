package rpc

import (
	"fmt"
	"os"
	"testing"

	"google.golang.org/protobuf/proto"
)

// EncodeEnv is the environment variable that turns encoding on ("1") or
// off ("0"); unset, encoding is on in test binaries only.
const EncodeEnv = "WEIR_RPC_ENCODE"

// Encoding reports whether Local encodes every message it carries by
// default: WEIR_RPC_ENCODE=1 or 0 decides; unset, it is on in test
// binaries (testing.Testing), so the whole test suite runs with it.
func Encoding() bool {
	switch os.Getenv(EncodeEnv) {
	case "1", "true":
		return true
	case "0", "false":
		return false
	}
	return testing.Testing()
}

// cross returns m as the receiver gets it: m itself when encode is off,
// otherwise a fresh message unmarshalled from m's bytes.
func cross[M proto.Message](m M, encode bool) (M, error) {
	if !encode {
		return m, nil
	}
	b, err := proto.Marshal(m)
	if err != nil {
		var zero M
		return zero, fmt.Errorf("rpc: encode %T: %w", m, err)
	}
	out := m.ProtoReflect().New().Interface().(M)
	if err := proto.Unmarshal(b, out); err != nil {
		var zero M
		return zero, fmt.Errorf("rpc: decode %T: %w", m, err)
	}
	return out, nil
}
