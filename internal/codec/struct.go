package codec

import "unsafe"

// structField is one encoded field of a struct plan.
type structField struct {
	off uintptr
	pl  *plan
}

// structPlan compiles a struct into the list of its encoded fields: all
// fields, exported or not, in declaration order, addressed by the offsets
// reflect reports, so encoding a struct is a loop over this list with no
// reflect call. Blank (_) fields are skipped: Go's == ignores them, and
// skipping them keeps the encoding, and so the key hash, consistent with ==.
// Fields that encode to nothing (struct{}, [0]T) are dropped from the list.
func (b *builder) structPlan(pl *plan) error {
	t := pl.typ
	var fields []structField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		fp, err := b.sub("."+f.Name, f.Type)
		if err != nil {
			return err
		}
		// A field's plan is always complete here: a struct cannot
		// contain itself except through a pointer, slice or map.
		if fp.empty {
			continue
		}
		fields = append(fields, structField{off: f.Offset, pl: fp})
		pl.minSize = addSize(pl.minSize, fp.minSize)
	}
	pl.empty = len(fields) == 0
	pl.enc = func(buf []byte, p unsafe.Pointer) []byte {
		for i := range fields {
			f := &fields[i]
			buf = appendOp(buf, f.pl, unsafe.Add(p, f.off))
		}
		return buf
	}
	pl.dec = func(buf []byte, p unsafe.Pointer, depth int) (int, error) {
		n := 0
		for i := range fields {
			f := &fields[i]
			k, err := decodeOp(buf[n:], f.pl, unsafe.Add(p, f.off), depth)
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, nil
	}
	return nil
}
