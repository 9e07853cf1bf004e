package codec

// structPlan compiles a struct into the flat program of its encoded fields
// (see inst): all fields, exported or not, in declaration order, addressed by
// the offsets reflect reports, nested structs and small arrays inlined, so
// encoding a struct is one loop over a table with no reflect call and no
// call per scalar or string field. Blank (_) fields are skipped: Go's ==
// ignores them, and skipping them keeps the encoding, and so the key hash,
// consistent with ==. Fields that encode to nothing (struct{}, [0]T) are
// dropped.
func (b *builder) structPlan(pl *plan) error {
	t := pl.typ
	insts := []inst{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		fp, err := b.sub("."+f.Name, f.Type)
		if err != nil {
			return err
		}
		if fp.empty {
			continue
		}
		insts = appendShifted(insts, partInsts(fp), f.Offset)
		pl.minSize = addSize(pl.minSize, fp.minSize)
	}
	pl.empty = len(insts) == 0
	pl.op, pl.insts = opFlat, insts
	return nil
}

// partInsts is the program of a struct field or array element. A struct
// cannot contain itself except through a pointer, slice or map, so the plan
// of a part is complete unless it is one of those, met again while it is
// being built (a *Node field of the Node a *Node points to); its program,
// not written yet, will be the call of its own enc and dec.
func partInsts(pl *plan) []inst {
	if pl.insts == nil {
		return []inst{{op: opFunc, pl: pl}}
	}
	return pl.insts
}

// appendShifted appends the program insts of a part that lies off bytes into
// the enclosing value.
func appendShifted(dst, insts []inst, off uintptr) []inst {
	for _, in := range insts {
		in.off += off
		dst = append(dst, in)
	}
	return dst
}
