package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
)

// Decode parses and validates the bytes of a _metadata file. It never
// panics, and it never returns a Metadata from damaged bytes: a truncated,
// damaged or malformed input gives an error wrapping ErrCorrupt, and a
// well-formed file of a newer major version gives one wrapping ErrVersion.
// The returned Metadata shares no memory with b.
//
// The checks run in this order: magic, CRC-32C trailer over everything
// before it (so any damage, including to the version field, is reported as
// corruption), version, then the sections.
func Decode(b []byte) (*Metadata, error) {
	md, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	return md, nil
}

func decode(b []byte) (*Metadata, error) {
	if len(b) >= len(magic) && !bytes.Equal(b[:len(magic)], magic[:]) {
		return nil, fmt.Errorf("%w: not a checkpoint metadata file (bad magic)", ErrCorrupt)
	}
	if len(b) < headerLen+trailerLen {
		return nil, fmt.Errorf("%w: truncated: %d bytes", ErrCorrupt, len(b))
	}
	body := b[:len(b)-trailerLen]
	stored := binary.LittleEndian.Uint32(b[len(body):])
	if sum := crc32.Checksum(body, castagnoli); sum != stored {
		return nil, fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x): the file is truncated or damaged",
			ErrCorrupt, stored, sum)
	}
	version := binary.LittleEndian.Uint16(b[len(magic):])
	switch major := version >> 8; {
	case major > FormatMajor:
		return nil, fmt.Errorf("%w: format %s was written by a newer Weir; this build reads %d.x: upgrade Weir to restore it",
			ErrVersion, VersionString(version), FormatMajor)
	case major < FormatMajor:
		return nil, fmt.Errorf("%w: format %s is older than any this build reads (%d.x)",
			ErrVersion, VersionString(version), FormatMajor)
	}
	d := &dec{b: body, off: headerLen, minor: version & 0xff, lenient: version&0xff > FormatMinor}
	md := &Metadata{Version: version}
	header := false
	for d.err == nil && d.left() > 0 {
		tag := d.byte()
		switch {
		case !header && tag != tagHeader:
			d.failf("first section has tag %d, want the header (%d)", tag, tagHeader)
		case tag == tagHeader && header:
			d.failf("second header section")
		case tag == tagHeader:
			header = true
			d.record("header", md.decodeHeader)
		case tag == tagOperator:
			var op OperatorState
			d.record("operator", op.decode)
			md.Operators = append(md.Operators, op)
		case tag == tagMaster:
			var ms MasterState
			d.record("master state", func(d *dec) {
				ms.Name = d.str()
				ms.Data = d.bytes()
			})
			md.MasterStates = append(md.MasterStates, ms)
		case d.lenient && tag != 0:
			d.record("unknown section", func(d *dec) { d.off = len(d.b) })
		default:
			d.failf("unknown section tag %d", tag)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	if !header {
		return nil, fmt.Errorf("%w: no header section", ErrCorrupt)
	}
	if err := md.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return md, nil
}

func (md *Metadata) decodeHeader(d *dec) {
	md.JobID = d.str()
	md.CheckpointID = d.int64("checkpoint id")
	md.Timestamp = d.varint()
	md.Kind = Kind(d.byte())
}

func (op *OperatorState) decode(d *dec) {
	op.UID = d.str()
	op.Name = d.str()
	op.Parallelism = d.int("parallelism", math.MaxInt32)
	op.MaxParallelism = d.int("max parallelism", math.MaxInt32)
	op.FullyFinished = d.flags(1)[0]
	op.Coordinator = d.bytes()
	n := d.length("subtask count")
	for i := 0; i < n && d.err == nil; i++ {
		var st SubtaskState
		d.record("subtask", st.decode)
		op.Subtasks = append(op.Subtasks, st)
	}
}

func (st *SubtaskState) decode(d *dec) {
	st.Index = d.int("subtask index", math.MaxInt32)
	st.Finished = d.flags(1)[0]
	n := d.length("keyed state count")
	for i := 0; i < n && d.err == nil; i++ {
		var k KeyedStateHandle
		d.record("keyed state", k.decode)
		st.Keyed = append(st.Keyed, k)
	}
	n = d.length("operator list state count")
	for i := 0; i < n && d.err == nil; i++ {
		var ls OperatorListState
		d.record("operator list state", func(d *dec) {
			ls.Name = d.str()
			ls.Mode = Mode(d.byte())
			m := d.length("entry count")
			for j := 0; j < m && d.err == nil; j++ {
				ls.Entries = append(ls.Entries, d.bytes())
			}
		})
		st.OperatorLists = append(st.OperatorLists, ls)
	}
	n = d.length("channel state count")
	for i := 0; i < n && d.err == nil; i++ {
		var h StreamHandle
		d.record("channel state", h.decode)
		st.ChannelState = append(st.ChannelState, h)
	}
	st.Raw = d.bytes()
}

func (k *KeyedStateHandle) decode(d *dec) {
	k.KeyGroupStart = d.int("key group", math.MaxInt32)
	k.KeyGroupEnd = d.int("key group", math.MaxInt32)
	n := d.length("offset count")
	for i := 0; i < n && d.err == nil; i++ {
		k.Offsets = append(k.Offsets, d.int64("offset"))
	}
	d.record("stream handle", k.Stream.decode)
	n = d.length("shared file count")
	for i := 0; i < n && d.err == nil; i++ {
		var f SharedFile
		d.record("shared file", func(d *dec) {
			f.Key = d.str()
			f.Path = d.str()
			f.Size = d.int64("size")
			if d.minor >= 1 {
				f.HasCRC = d.flags(1)[0]
				f.CRC = d.u32()
			}
		})
		k.Shared = append(k.Shared, f)
	}
}

func (h *StreamHandle) decode(d *dec) {
	h.Path = d.str()
	h.Size = d.int64("size")
	h.CRC = d.u32()
	h.Inline = d.bytes()
}
