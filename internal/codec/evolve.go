package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// ErrSchemaChanged is wrapped by the errors of NewTranscoder for a schema
// that cannot be mapped onto the current type: a field or element whose type
// changed.
var ErrSchemaChanged = errors.New("codec: incompatible schema change")

// SchemaError is the error of NewTranscoder for an incompatible change. It
// wraps ErrSchemaChanged.
type SchemaError struct {
	// Path names the component that changed, from the top type: "value"
	// for the value itself, "value.Total", "value[].Items[].Price", ...
	Path string
	// Field is the name of the struct field that changed ("" if the
	// change is not in a field).
	Field string
	// Old and New describe the type written in the schema and the type of
	// the current value.
	Old, New string
}

func (e *SchemaError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%v: field %s (%s) changed type from %s to %s", ErrSchemaChanged, e.Field, e.Path, e.Old, e.New)
	}
	return fmt.Sprintf("%v: %s changed type from %s to %s", ErrSchemaChanged, e.Path, e.Old, e.New)
}

func (e *SchemaError) Unwrap() error { return ErrSchemaChanged }

// Transcoder rewrites encodings written under an old schema into encodings
// of the current type, mapping struct fields by name: fields the old schema
// has and the type lacks are dropped, fields the type has and the old schema
// lacks are left zero, reordered fields are moved. It is built once from a
// schema (a tree of decoders) and then costs one decode and one encode per
// value. Safe for concurrent use.
type Transcoder struct {
	t   reflect.Type
	pl  *plan
	dec evoDec
}

// evoDec decodes one value encoded under an old schema into v, an
// addressable value of the current type holding its zero value.
type evoDec func(buf []byte, v reflect.Value, depth int) (int, error)

// NewTranscoder returns the Transcoder from encodings under the schema old
// to encodings of t, or nil if old is t's schema (nothing to rewrite). An
// incompatible change is a *SchemaError.
func NewTranscoder(old []byte, t reflect.Type) (*Transcoder, error) {
	cur, err := Schema(t)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(old, cur) {
		return nil, nil
	}
	n, k, err := parseSchema(old, 0)
	if err != nil {
		return nil, err
	}
	if k != len(old) {
		return nil, fmt.Errorf("%w: schema: %d trailing bytes", ErrCorrupt, len(old)-k)
	}
	pl, err := planFor(t)
	if err != nil {
		return nil, err
	}
	dec, err := evolve(n, t, "value", "")
	if err != nil {
		return nil, err
	}
	return &Transcoder{t: t, pl: pl, dec: dec}, nil
}

// Transcode decodes one value from the front of src, encoded under the
// transcoder's old schema, and appends its encoding as the current type to
// dst. It returns the extended dst and the bytes of src consumed.
func (x *Transcoder) Transcode(dst, src []byte) ([]byte, int, error) {
	p := reflect.New(x.t)
	n, err := x.dec(src, p.Elem(), 0)
	if err != nil {
		return dst, 0, fmt.Errorf("decoding %v under its old schema: %w", x.t, err)
	}
	return appendOp(dst, x.pl, p.UnsafePointer()), n, nil
}

// evolve builds the decoder from old to t; path and fieldName locate t for
// error messages.
func evolve(old *node, t reflect.Type, path, fieldName string) (evoDec, error) {
	cur, err := Schema(t)
	if err != nil {
		return nil, err
	}
	changed := func() error {
		return &SchemaError{Path: path, Field: fieldName, Old: old.describe(), New: t.String()}
	}
	if bytes.Equal(old.raw, cur) {
		pl, err := planFor(t)
		if err != nil {
			return nil, err
		}
		return func(buf []byte, v reflect.Value, depth int) (int, error) {
			return decodeOp(buf, pl, unsafe.Pointer(v.UnsafeAddr()), depth, nil)
		}, nil
	}
	if len(cur) == 0 || cur[0] != old.kind || old.kind == tagMarshaler || old.kind == tagRegistered {
		return nil, changed()
	}
	if old.kind == tagRecursive {
		return nil, &SchemaError{Path: path, Field: fieldName, Old: "a recursive type of another shape", New: t.String()}
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := evolve(old.elem, t.Elem(), path, fieldName)
		if err != nil {
			return nil, err
		}
		return func(buf []byte, v reflect.Value, depth int) (int, error) {
			if len(buf) == 0 || buf[0] > 1 {
				return 0, fmt.Errorf("%w: pointer flag", ErrCorrupt)
			}
			if buf[0] == 0 {
				return 1, nil
			}
			p := reflect.New(t.Elem())
			n, err := elem(buf[1:], p.Elem(), depth+1)
			if err != nil {
				return 0, err
			}
			v.Set(p)
			return 1 + n, nil
		}, nil
	case reflect.Slice:
		elem, err := evolve(old.elem, t.Elem(), path+"[]", "")
		if err != nil {
			return nil, err
		}
		return func(buf []byte, v reflect.Value, depth int) (int, error) {
			l, n := binary.Uvarint(buf)
			if n <= 0 || l > uint64(len(buf)-n)+1 {
				return 0, fmt.Errorf("%w: slice length", ErrCorrupt)
			}
			if l == 0 {
				return n, nil
			}
			s := reflect.MakeSlice(t, int(l-1), int(l-1))
			for i := range int(l - 1) {
				k, err := elem(buf[n:], s.Index(i), depth+1)
				if err != nil {
					return 0, err
				}
				n += k
			}
			v.Set(s)
			return n, nil
		}, nil
	case reflect.Array:
		if old.length != t.Len() {
			return nil, changed()
		}
		elem, err := evolve(old.elem, t.Elem(), path+"[]", "")
		if err != nil {
			return nil, err
		}
		return func(buf []byte, v reflect.Value, depth int) (int, error) {
			n := 0
			for i := range t.Len() {
				k, err := elem(buf[n:], v.Index(i), depth+1)
				if err != nil {
					return 0, err
				}
				n += k
			}
			return n, nil
		}, nil
	case reflect.Map:
		key, err := evolve(old.key, t.Key(), path+"[key]", "")
		if err != nil {
			return nil, err
		}
		elem, err := evolve(old.elem, t.Elem(), path+"[]", "")
		if err != nil {
			return nil, err
		}
		return func(buf []byte, v reflect.Value, depth int) (int, error) {
			l, n := binary.Uvarint(buf)
			if n <= 0 || l > uint64(len(buf)-n)+1 {
				return 0, fmt.Errorf("%w: map length", ErrCorrupt)
			}
			if l == 0 {
				return n, nil
			}
			m := reflect.MakeMapWithSize(t, int(l-1))
			for range int(l - 1) {
				kv, ev := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
				k, err := key(buf[n:], kv, depth+1)
				if err != nil {
					return 0, err
				}
				n += k
				if k, err = elem(buf[n:], ev, depth+1); err != nil {
					return 0, err
				}
				n += k
				m.SetMapIndex(kv, ev)
			}
			v.Set(m)
			return n, nil
		}, nil
	case reflect.Struct:
		return evolveStruct(old, t, path)
	}
	return nil, changed()
}

// evolveStruct maps the fields of the old struct schema onto t's by name.
func evolveStruct(old *node, t reflect.Type, path string) (evoDec, error) {
	type step struct {
		off  uintptr
		dec  evoDec // nil: skip
		skip func(buf []byte, depth int) (int, error)
		typ  reflect.Type
	}
	byName := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name != "_" {
			byName[f.Name] = f
		}
	}
	steps := make([]step, len(old.fields))
	for i, of := range old.fields {
		f, ok := byName[of.name]
		if !ok {
			skip, err := skipper(of.n, path+"."+of.name)
			if err != nil {
				return nil, err
			}
			steps[i] = step{skip: skip}
			continue
		}
		dec, err := evolve(of.n, f.Type, path+"."+of.name, of.name)
		if err != nil {
			return nil, err
		}
		steps[i] = step{off: f.Offset, dec: dec, typ: f.Type}
	}
	return func(buf []byte, v reflect.Value, depth int) (int, error) {
		base := unsafe.Pointer(v.UnsafeAddr())
		n := 0
		for i := range steps {
			s := &steps[i]
			var k int
			var err error
			if s.dec == nil {
				k, err = s.skip(buf[n:], depth)
			} else {
				k, err = s.dec(buf[n:], reflect.NewAt(s.typ, unsafe.Add(base, s.off)).Elem(), depth)
			}
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	}, nil
}

// skipper returns a function that steps over one encoding under the schema
// n without decoding it: how a removed field is dropped.
func skipper(n *node, path string) (func(buf []byte, depth int) (int, error), error) {
	fixed := func(size int) func([]byte, int) (int, error) {
		return func(buf []byte, _ int) (int, error) {
			if len(buf) < size {
				return 0, fmt.Errorf("%w: truncated", ErrCorrupt)
			}
			return size, nil
		}
	}
	varint := func(buf []byte, _ int) (int, error) {
		_, k := binary.Uvarint(buf)
		if k <= 0 {
			return 0, fmt.Errorf("%w: varint", ErrCorrupt)
		}
		return k, nil
	}
	lenPrefixed := func(buf []byte, _ int) (int, error) {
		l, k := binary.Uvarint(buf)
		if k <= 0 || l > uint64(len(buf)-k) {
			return 0, fmt.Errorf("%w: length", ErrCorrupt)
		}
		return k + int(l), nil
	}
	switch n.kind {
	case tagMarshaler:
		return lenPrefixed, nil
	case tagRegistered:
		return nil, fmt.Errorf("%w: removed %s has a registered codec (%s), whose encoding cannot be skipped", ErrSchemaChanged, path, n.name)
	case tagRecursive:
		return nil, fmt.Errorf("%w: removed %s is of a recursive type, which cannot be skipped", ErrSchemaChanged, path)
	}
	switch k := reflect.Kind(n.kind); k {
	case reflect.Bool, reflect.Int8, reflect.Uint8:
		return fixed(1), nil
	case reflect.Float32:
		return fixed(4), nil
	case reflect.Float64, reflect.Complex64:
		return fixed(8), nil
	case reflect.Complex128:
		return fixed(16), nil
	case reflect.String:
		return lenPrefixed, nil
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		elem, err := skipper(n.elem, path+"[]")
		if err != nil {
			return nil, err
		}
		key := func([]byte, int) (int, error) { return 0, nil }
		if k == reflect.Map {
			if key, err = skipper(n.key, path+"[key]"); err != nil {
				return nil, err
			}
		}
		return func(buf []byte, depth int) (int, error) {
			if depth > 10000 {
				return 0, fmt.Errorf("%w: nested too deeply", ErrCorrupt)
			}
			count, pos := uint64(n.length), 0
			switch k {
			case reflect.Pointer:
				if len(buf) == 0 || buf[0] > 1 {
					return 0, fmt.Errorf("%w: pointer flag", ErrCorrupt)
				}
				count, pos = uint64(buf[0]), 1
			case reflect.Slice, reflect.Map:
				l, m := binary.Uvarint(buf)
				if m <= 0 || l > uint64(len(buf)-m)+1 {
					return 0, fmt.Errorf("%w: length", ErrCorrupt)
				}
				count, pos = max(l, 1)-1, m
			}
			for range count {
				m, err := key(buf[pos:], depth+1)
				if err != nil {
					return 0, err
				}
				pos += m
				if m, err = elem(buf[pos:], depth+1); err != nil {
					return 0, err
				}
				pos += m
			}
			return pos, nil
		}, nil
	case reflect.Struct:
		fields := make([]func([]byte, int) (int, error), len(n.fields))
		for i, f := range n.fields {
			s, err := skipper(f.n, path+"."+f.name)
			if err != nil {
				return nil, err
			}
			fields[i] = s
		}
		return func(buf []byte, depth int) (int, error) {
			pos := 0
			for _, s := range fields {
				m, err := s(buf[pos:], depth+1)
				if err != nil {
					return 0, err
				}
				pos += m
			}
			return pos, nil
		}, nil
	}
	if _, ok := scalarOps[reflect.Kind(n.kind)]; ok {
		return varint, nil
	}
	return nil, fmt.Errorf("%w: schema of %s: unknown kind %d", ErrCorrupt, path, n.kind)
}
