package state

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/weir-engine/weir/internal/codec"
)

// State schema evolution. Every key group section that holds a state's
// entries also holds, under the reserved name schemaPrefix+name, the codec
// schema of that state's value type (V, []V, map[UK]UV, or the stamped
// value of a TTL state) when the snapshot was taken. A section without such
// an entry is of the format before schemas (section format 1) and its
// payloads are decoded as the current types, positionally, as they always
// were.
//
// On restore, a payload whose recorded schema differs from the schema of
// the registered state's value type is rewritten (codec.Transcoder: struct
// fields mapped by name, new fields zero, removed fields dropped) before
// the table reads it. The heap table then decodes it as usual; the Pebble
// table stores the rewritten bytes, so the migration happens once, at
// restore, and reads never see the old layout (state restored from a
// Pebble checkpoint's own files migrates when it is registered; see
// kvevolve.go). A type change is refused
// with an error naming the state and the field. The transcoder of a state
// is built once per schema met, not per record.

// schemaPrefix starts the names of schema entries in a section. No
// operator state is named with a NUL byte.
const schemaPrefix = "\x00schema:"

// isSchemaEntry reports whether a section entry name is a schema entry,
// and of which state.
func isSchemaEntry(name string) (string, bool) {
	return strings.CutPrefix(name, schemaPrefix)
}

// schemasOf returns the schema of every registered state of b by name.
func (b *KeyedBackend[K]) schemasOf() (map[string][]byte, error) {
	out := make(map[string][]byte, len(b.states)+len(b.pendingSchemas))
	for name, s := range b.pendingSchemas {
		out[name] = s
	}
	for name, e := range b.states {
		s, err := codec.Schema(e.table.valueType())
		if err != nil {
			return nil, fmt.Errorf("state: schema of %q: %w", name, err)
		}
		out[name] = s
	}
	return out, nil
}

// transcoder returns the transcoder from schema old to the value type of
// state name's table t, built on first use; nil when there is nothing to
// rewrite.
func (b *KeyedBackend[K]) transcoder(name string, t registered[K], old []byte) (*codec.Transcoder, error) {
	id := name + "\x00" + string(old)
	if x, ok := b.transcoders[id]; ok {
		return x, nil
	}
	x, err := codec.NewTranscoder(old, t.valueType())
	if err != nil {
		return nil, fmt.Errorf("state %q: %w", name, err)
	}
	if b.transcoders == nil {
		b.transcoders = map[string]*codec.Transcoder{}
	}
	b.transcoders[id] = x
	return x, nil
}

// transcodePayload rewrites the values of a payload (count, then key and
// value encodings) with x, keeping the keys' bytes.
func transcodePayload[K comparable](payload []byte, kc codec.Codec[K], x *codec.Transcoder) ([]byte, error) {
	n, rest, err := uvarint(payload)
	if err != nil {
		return nil, err
	}
	out := binary.AppendUvarint(make([]byte, 0, len(payload)), n)
	for i := uint64(0); i < n; i++ {
		_, m, err := kc.Decode(rest)
		if err != nil {
			return nil, fmt.Errorf("%w: key: %v", ErrCorruptSnapshot, err)
		}
		out = append(out, rest[:m]...)
		rest = rest[m:]
		if out, m, err = x.Transcode(out, rest); err != nil {
			return nil, fmt.Errorf("%w: value: %v", ErrCorruptSnapshot, err)
		}
		rest = rest[m:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrCorruptSnapshot, len(rest))
	}
	return out, nil
}
