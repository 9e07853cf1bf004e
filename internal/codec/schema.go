package codec

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"sync"
)

// A schema describes the shape of a type's encoding: for structs the names
// and schemas of the encoded fields in order, for containers the schemas of
// their elements, for scalars their kind. Snapshots of keyed state carry the
// schema of each state's value type, so that a job whose struct gained,
// lost or reordered fields can still read them (see Transcoder). Encoding:
//
//	schema := kind byte, then by kind:
//	  scalar kinds (reflect.Kind)  nothing
//	  pointer, slice               elem schema
//	  array                        uvarint len, elem schema
//	  map                          key schema, elem schema
//	  struct                       uvarint n, n × (string name, schema)
//	  tagMarshaler, tagRegistered  string type name (encoded by methods
//	                               or a registered codec: opaque)
//	  tagRecursive                 uvarint depth: the type of the enclosing
//	                               struct that many levels up
//
// string is uvarint(len) then the bytes. Type names of structs are not
// recorded: renaming a struct type keeps its state readable.
const (
	tagMarshaler  = 0xf0
	tagRegistered = 0xf1
	tagRecursive  = 0xf2
)

var schemas sync.Map // reflect.Type -> schemaEntry

type schemaEntry struct {
	b   []byte
	err error
}

// Schema returns the schema of t's encoding (see the package's schema
// format). It fails, wrapping ErrNoCodec, for types that have no codec.
// Schemas are computed once per type and cached; callers must not modify
// the result.
func Schema(t reflect.Type) ([]byte, error) {
	if e, ok := schemas.Load(t); ok {
		return e.(schemaEntry).b, e.(schemaEntry).err
	}
	if _, err := planFor(t); err != nil {
		schemas.Store(t, schemaEntry{err: err})
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	b, err := appendSchema(nil, t, nil)
	schemas.Store(t, schemaEntry{b: b, err: err})
	return b, err
}

// appendSchema appends the schema of t; stack holds the structs being
// described, outermost first. mu is held.
func appendSchema(dst []byte, t reflect.Type, stack []reflect.Type) ([]byte, error) {
	if _, ok := registry[t]; ok {
		return appendName(append(dst, tagRegistered), t.String()), nil
	}
	if m := marshalMethods(t); m.ok {
		return appendName(append(dst, tagMarshaler), t.String()), nil
	}
	if _, ok := scalarOps[t.Kind()]; ok {
		return append(dst, byte(t.Kind())), nil
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if stack[i] == t {
			dst = append(dst, tagRecursive)
			return binary.AppendUvarint(dst, uint64(len(stack)-1-i)), nil
		}
	}
	var err error
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		return appendSchema(append(dst, byte(t.Kind())), t.Elem(), stack)
	case reflect.Array:
		dst = binary.AppendUvarint(append(dst, byte(reflect.Array)), uint64(t.Len()))
		return appendSchema(dst, t.Elem(), stack)
	case reflect.Map:
		if dst, err = appendSchema(append(dst, byte(reflect.Map)), t.Key(), stack); err != nil {
			return nil, err
		}
		return appendSchema(dst, t.Elem(), stack)
	case reflect.Struct:
		stack = append(stack, t)
		var names []string
		var subs [][]byte
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name == "_" {
				continue
			}
			fp, err := planForLocked(f.Type)
			if err != nil {
				return nil, err
			}
			if fp.empty {
				continue
			}
			sub, err := appendSchema(nil, f.Type, stack)
			if err != nil {
				return nil, err
			}
			names, subs = append(names, f.Name), append(subs, sub)
		}
		dst = binary.AppendUvarint(append(dst, byte(reflect.Struct)), uint64(len(names)))
		for i := range names {
			dst = append(appendName(dst, names[i]), subs[i]...)
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%w %v: no schema for kind %v", ErrNoCodec, t, t.Kind())
}

func appendName(dst []byte, s string) []byte {
	return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
}

// node is a parsed schema.
type node struct {
	kind   byte // a reflect.Kind or one of the tags
	name   string
	length int // arrays; depth of tagRecursive
	elem   *node
	key    *node
	fields []field
	raw    []byte // the bytes of this node's schema
}

type field struct {
	name string
	n    *node
}

// maxSchemaDepth bounds the nesting a schema may describe.
const maxSchemaDepth = 1000

// parseSchema parses one schema from the front of b.
func parseSchema(b []byte, depth int) (*node, int, error) {
	bad := func(what string) (*node, int, error) {
		return nil, 0, fmt.Errorf("%w: schema: %s", ErrCorrupt, what)
	}
	if depth > maxSchemaDepth {
		return bad("nested too deeply")
	}
	if len(b) == 0 {
		return bad("truncated")
	}
	n := &node{kind: b[0]}
	off := 1
	readUvarint := func() (uint64, bool) {
		v, k := binary.Uvarint(b[off:])
		if k <= 0 {
			return 0, false
		}
		off += k
		return v, true
	}
	readName := func() (string, bool) {
		l, ok := readUvarint()
		if !ok || l > uint64(len(b)-off) {
			return "", false
		}
		s := string(b[off : off+int(l)])
		off += int(l)
		return s, true
	}
	sub := func() (*node, bool) {
		c, k, err := parseSchema(b[off:], depth+1)
		if err != nil {
			return nil, false
		}
		off += k
		return c, true
	}
	ok := true
	switch {
	case n.kind == tagMarshaler || n.kind == tagRegistered:
		n.name, ok = readName()
	case n.kind == tagRecursive:
		var d uint64
		d, ok = readUvarint()
		n.length = int(min(d, maxSchemaDepth+1))
	case reflect.Kind(n.kind) == reflect.Pointer || reflect.Kind(n.kind) == reflect.Slice:
		n.elem, ok = sub()
	case reflect.Kind(n.kind) == reflect.Array:
		var l uint64
		if l, ok = readUvarint(); ok && l > 1<<31 {
			ok = false
		}
		n.length = int(l)
		if ok {
			n.elem, ok = sub()
		}
	case reflect.Kind(n.kind) == reflect.Map:
		if n.key, ok = sub(); ok {
			n.elem, ok = sub()
		}
	case reflect.Kind(n.kind) == reflect.Struct:
		var c uint64
		if c, ok = readUvarint(); ok && c > uint64(len(b)-off) {
			ok = false
		}
		for i := uint64(0); ok && i < c; i++ {
			var f field
			if f.name, ok = readName(); ok {
				f.n, ok = sub()
			}
			n.fields = append(n.fields, f)
		}
	default:
		if _, scalar := scalarOps[reflect.Kind(n.kind)]; !scalar {
			return bad(fmt.Sprintf("unknown kind %d", n.kind))
		}
	}
	if !ok {
		return bad("malformed")
	}
	n.raw = b[:off]
	return n, off, nil
}

// describe renders a schema node's kind for an error message.
func (n *node) describe() string {
	switch n.kind {
	case tagMarshaler, tagRegistered:
		return n.name
	case tagRecursive:
		return "a recursive type"
	}
	k := reflect.Kind(n.kind)
	switch k {
	case reflect.Pointer:
		return "*" + n.elem.describe()
	case reflect.Slice:
		return "[]" + n.elem.describe()
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", n.length, n.elem.describe())
	case reflect.Map:
		return "map[" + n.key.describe() + "]" + n.elem.describe()
	}
	return k.String()
}
