package codec

import (
	"reflect"
	"sync"
	"unsafe"
)

// mapScratch is the reusable state of one map encode or decode: an iterator
// and one addressable key and value to copy entries through. Pooling it
// keeps encoding a map free of allocations.
type mapScratch struct {
	it     reflect.MapIter
	k, v   reflect.Value // addressable, of the key and element type
	kp, vp unsafe.Pointer
}

// mapPlan encodes a map as uvarint(len+1), or 0 for a nil map, followed by
// len key, value pairs in Go's iteration order, so two encodings of one map
// may differ (maps cannot be keys, so key hashing never sees them). A
// decoder refuses duplicate keys. Maps are the one kind that goes through
// reflect.Value per entry: Go offers no other way to iterate or insert.
func (b *builder) mapPlan(pl *plan) error {
	t := pl.typ
	key, err := b.sub("[key]", t.Key())
	if err != nil {
		return err
	}
	val, err := b.sub("[value]", t.Elem())
	if err != nil {
		return err
	}
	pl.minSize = 1
	// A key type holding an interface (only possible with a registered
	// codec) can decode to a dynamic type that is not comparable, which
	// SetMapIndex would panic on; such keys are checked first.
	checkKeys := containsInterface(t.Key())
	pool := &sync.Pool{New: func() any {
		s := &mapScratch{k: reflect.New(t.Key()).Elem(), v: reflect.New(t.Elem()).Elem()}
		s.kp, s.vp = s.k.Addr().UnsafePointer(), s.v.Addr().UnsafePointer()
		return s
	}}
	release := func(s *mapScratch) {
		// Do not let the pool keep the user's data alive.
		s.it.Reset(reflect.Value{})
		s.k.SetZero()
		s.v.SetZero()
		pool.Put(s)
	}
	pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
		if *(*unsafe.Pointer)(p) == nil {
			return append(buf, 0)
		}
		// A direct map Value (from an interface) rather than one
		// indirect through p: the iterator lives in a pooled heap
		// object and must not hold p, which may point into a stack.
		m := reflect.ValueOf(reflect.NewAt(t, p).Elem().Interface())
		buf = appendOptLen(buf, m.Len(), false)
		s := pool.Get().(*mapScratch)
		s.it.Reset(m)
		for s.it.Next() {
			s.k.SetIterKey(&s.it)
			s.v.SetIterValue(&s.it)
			buf = appendOp(buf, key, s.kp)
			buf = appendOp(buf, val, s.vp)
		}
		release(s)
		return buf
	}
	pl.dec = func(buf []byte, p unsafe.Pointer, depth int, a *arena) (int, error) {
		entryMin := addSize(key.minSize, val.minSize)
		l, isNil, n, err := decodeOptLen(buf, entryMin, maxCount(entryMin, t.Key().Size()+t.Elem().Size()))
		switch {
		case err != nil:
			return 0, err
		case isNil:
			*(*unsafe.Pointer)(p) = nil
			return n, nil
		case depth >= maxDepth:
			return 0, errDepth
		}
		hint := l
		if entryMin == 0 {
			// Keys that encode to nothing are all equal: any
			// count above 1 is a duplicate, found below. Do not
			// size a map for a corrupt count.
			hint = min(l, 1)
		}
		m := reflect.MakeMapWithSize(t, hint)
		s := pool.Get().(*mapScratch)
		defer release(s)
		for i := range l {
			s.k.SetZero()
			s.v.SetZero()
			k, err := decodeOp(buf[n:], key, s.kp, depth+1, a)
			if err != nil {
				return 0, err
			}
			n += k
			if k, err = decodeOp(buf[n:], val, s.vp, depth+1, a); err != nil {
				return 0, err
			}
			n += k
			if checkKeys && !s.k.Comparable() {
				return 0, errKeyType
			}
			m.SetMapIndex(s.k, s.v)
			if m.Len() != i+1 {
				return 0, errDupKey
			}
		}
		*(*unsafe.Pointer)(p) = m.UnsafePointer()
		return n, nil
	}
	return nil
}

// containsInterface reports whether values of t can hold an interface
// without indirection (the part of a value that map key equality looks at).
func containsInterface(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Array:
		return containsInterface(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if containsInterface(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
