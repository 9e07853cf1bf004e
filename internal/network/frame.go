package network

import (
	"encoding/binary"
	"errors"

	"github.com/weir-engine/weir/internal/op"
)

// The elements of a data buffer. A record is its tag, its timestamp (8
// bytes, little endian) when the tag says it has one, its key group (2
// bytes, little endian) when the tag says it is keyed, then its encoding.
// A watermark is its tag and 8 bytes; a watermark status its tag and one
// of StatusIdle and StatusActive. Elements never span buffers.
const (
	TagRecord    byte = 0x01
	TagRecordTS  byte = 0x02
	TagWatermark byte = 0x03
	// TagWatermarkStatus is followed by one byte, StatusIdle or
	// StatusActive (Flink's WatermarkStatus).
	TagWatermarkStatus byte = 0x04
	// TagKeyedRecord and TagKeyedRecordTS are the records of a keyed
	// exchange: the sender's key group travels with the record, so the
	// keyed operator that receives it need not hash its key again.
	TagKeyedRecord   byte = 0x05
	TagKeyedRecordTS byte = 0x06
)

// The bodies of a TagWatermarkStatus element.
const (
	StatusActive byte = 0x00
	StatusIdle   byte = 0x01
)

// AppendRecordHeader appends to b the header of a record with timestamp ts
// (op.NoTimestamp when none) and key group keyGroup (negative when the
// record is not keyed).
func AppendRecordHeader(b []byte, ts int64, keyGroup int) []byte {
	switch {
	case keyGroup < 0 && ts == op.NoTimestamp:
		return append(b, TagRecord)
	case keyGroup < 0:
		return binary.LittleEndian.AppendUint64(append(b, TagRecordTS), uint64(ts))
	case ts == op.NoTimestamp:
		return binary.LittleEndian.AppendUint16(append(b, TagKeyedRecord), uint16(keyGroup))
	}
	b = binary.LittleEndian.AppendUint64(append(b, TagKeyedRecordTS), uint64(ts))
	return binary.LittleEndian.AppendUint16(b, uint16(keyGroup))
}

// isRecord reports whether tag starts a record.
func isRecord(tag byte) bool {
	return tag == TagRecord || tag == TagRecordTS || tag == TagKeyedRecord || tag == TagKeyedRecordTS
}

// readRecordHeader reads from buf the rest of the header of a record that
// starts with tag: its timestamp (op.NoTimestamp when none), its key group
// (-1 when it is not keyed) and the bytes it read.
func readRecordHeader(tag byte, buf []byte) (ts int64, keyGroup, n int, err error) {
	ts, keyGroup = op.NoTimestamp, -1
	if tag == TagRecordTS || tag == TagKeyedRecordTS {
		if len(buf) < 8 {
			return 0, 0, 0, errors.New("network: truncated record timestamp")
		}
		ts, n = int64(binary.LittleEndian.Uint64(buf)), 8
	}
	if tag == TagKeyedRecord || tag == TagKeyedRecordTS {
		if len(buf) < n+2 {
			return 0, 0, 0, errors.New("network: truncated record key group")
		}
		keyGroup, n = int(binary.LittleEndian.Uint16(buf[n:])), n+2
	}
	return ts, keyGroup, n, nil
}
