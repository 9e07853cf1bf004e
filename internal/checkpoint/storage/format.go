package storage

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// The format version of _metadata files: the major version in the high
// byte, the minor in the low byte. A reader reads every minor version of
// its major (newer minors only add what older readers may skip) and refuses
// newer majors with ErrVersion. docs/format/checkpoint.md is the
// specification; change both together.
const (
	FormatMajor = 1
	FormatMinor = 1
	// FormatVersion is the version this build writes.
	FormatVersion uint16 = FormatMajor<<8 | FormatMinor
)

// magic starts every _metadata file. The high first byte keeps text files
// from passing for metadata.
var magic = [4]byte{0x89, 'W', 'C', 'K'}

// Fixed parts of the frame, the same in every version.
const (
	headerLen  = len(magic) + 2 // magic, version
	trailerLen = 4              // CRC-32C
)

// Section tags. Tag 0 is never used.
const (
	tagHeader   byte = 1
	tagOperator byte = 2
	tagMaster   byte = 3
)

// VersionString formats a format version as "major.minor".
func VersionString(v uint16) string { return fmt.Sprintf("%d.%d", v>>8, v&0xff) }

// Encode returns the _metadata bytes of md, after validating it. Errors wrap
// ErrInvalid (md fails Validate) or ErrVersion (md.Version is set to a
// version other than FormatVersion).
func Encode(md *Metadata) ([]byte, error) {
	if md.Version != 0 && md.Version != FormatVersion {
		return nil, fmt.Errorf("encode metadata: %w: can write only %s, not %s",
			ErrVersion, VersionString(FormatVersion), VersionString(md.Version))
	}
	if err := md.Validate(); err != nil {
		return nil, fmt.Errorf("encode metadata: %w: %w", ErrInvalid, err)
	}
	e := &enc{b: make([]byte, 0, 256)}
	e.b = append(e.b, magic[:]...)
	e.b = binary.LittleEndian.AppendUint16(e.b, FormatVersion)
	e.byte(tagHeader)
	e.record(func(e *enc) {
		e.str(md.JobID)
		e.uvarint(uint64(md.CheckpointID))
		e.varint(md.Timestamp)
		e.byte(byte(md.Kind))
	})
	for i := range md.Operators {
		e.byte(tagOperator)
		e.record(md.Operators[i].encode)
	}
	for _, ms := range md.MasterStates {
		e.byte(tagMaster)
		e.record(func(e *enc) {
			e.str(ms.Name)
			e.bytes(ms.Data)
		})
	}
	e.u32(crc32.Checksum(e.b, castagnoli))
	return e.b, nil
}

func (op *OperatorState) encode(e *enc) {
	e.str(op.UID)
	e.str(op.Name)
	e.int(op.Parallelism)
	e.int(op.MaxParallelism)
	e.flags(op.FullyFinished)
	e.bytes(op.Coordinator)
	e.count(len(op.Subtasks))
	for i := range op.Subtasks {
		e.record(op.Subtasks[i].encode)
	}
}

func (st *SubtaskState) encode(e *enc) {
	e.int(st.Index)
	e.flags(st.Finished)
	e.count(len(st.Keyed))
	for i := range st.Keyed {
		e.record(st.Keyed[i].encode)
	}
	e.count(len(st.OperatorLists))
	for i := range st.OperatorLists {
		ls := &st.OperatorLists[i]
		e.record(func(e *enc) {
			e.str(ls.Name)
			e.byte(byte(ls.Mode))
			e.count(len(ls.Entries))
			for _, entry := range ls.Entries {
				e.bytes(entry)
			}
		})
	}
	e.count(len(st.ChannelState))
	for _, h := range st.ChannelState {
		e.record(h.encode)
	}
	e.bytes(st.Raw)
}

func (k *KeyedStateHandle) encode(e *enc) {
	e.int(k.KeyGroupStart)
	e.int(k.KeyGroupEnd)
	e.count(len(k.Offsets))
	for _, off := range k.Offsets {
		e.uvarint(uint64(off))
	}
	e.record(k.Stream.encode)
	e.count(len(k.Shared))
	for _, f := range k.Shared {
		e.record(func(e *enc) {
			e.str(f.Key)
			e.str(f.Path)
			e.uvarint(uint64(f.Size))
			e.flags(f.HasCRC) // since 1.1
			e.u32(f.CRC)
		})
	}
}

func (h StreamHandle) encode(e *enc) {
	e.str(h.Path)
	e.uvarint(uint64(h.Size))
	e.u32(h.CRC)
	e.bytes(h.Inline)
}
