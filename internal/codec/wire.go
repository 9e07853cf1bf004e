package codec

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Decoding errors. They are allocated once so that the error path of a
// decoder costs no allocation either; every one of them wraps ErrCorrupt.
var (
	errTruncated = fmt.Errorf("%w: unexpected end of data", ErrCorrupt)
	errOverflow  = fmt.Errorf("%w: varint overflows 64 bits", ErrCorrupt)
	errRange     = fmt.Errorf("%w: integer out of range for its type", ErrCorrupt)
	errBool      = fmt.Errorf("%w: bool byte is neither 0 nor 1", ErrCorrupt)
	errPresence  = fmt.Errorf("%w: presence byte is neither 0 nor 1", ErrCorrupt)
	errLength    = fmt.Errorf("%w: length exceeds the remaining data", ErrCorrupt)
	errDepth     = fmt.Errorf("%w: value nested more than %d levels deep", ErrCorrupt, maxDepth)
	errDupKey    = fmt.Errorf("%w: duplicate map key", ErrCorrupt)
	errKeyType   = fmt.Errorf("%w: map key of a type that is not comparable", ErrCorrupt)
)

// maxDepth bounds how many pointers, slices and maps a decoder follows
// inside one another. Decoding recurses once per level, so without a bound a
// few megabytes of 0x01 bytes read as a linked list would overflow the
// goroutine stack, which is fatal rather than an error. Encoding has no bound
// (Append cannot fail): a value nested deeper than this encodes, but does not
// decode.
const maxDepth = 10000

// appendBool appends b as one byte, 0 or 1.
func appendBool(buf []byte, b bool) []byte {
	if b {
		return append(buf, 1)
	}
	return append(buf, 0)
}

// decodeBool reads one byte and refuses anything but 0 or 1, so that every
// value has exactly one encoding and corruption is caught early.
func decodeBool(buf []byte) (bool, int, error) {
	if len(buf) == 0 {
		return false, 0, errTruncated
	}
	switch buf[0] {
	case 0:
		return false, 1, nil
	case 1:
		return true, 1, nil
	}
	return false, 0, errBool
}

// decodeByte reads one raw byte (uint8, int8).
func decodeByte(buf []byte) (byte, int, error) {
	if len(buf) == 0 {
		return 0, 0, errTruncated
	}
	return buf[0], 1, nil
}

// varintErr is the error of a binary.Uvarint that returned n <= 0: n == 0
// when the input ends first, n < 0 when the value overflows 64 bits. The
// decoders call binary.Uvarint directly because, returning a result code
// rather than an error, it is small enough to be inlined into each of them.
func varintErr(n int) error {
	if n == 0 {
		return errTruncated
	}
	return errOverflow
}

// unzigzag undoes the zig-zag mapping of binary.AppendVarint.
func unzigzag(ux uint64) int64 {
	return int64(ux>>1) ^ -int64(ux&1)
}

// decodeUvarint reads a uvarint.
func decodeUvarint(buf []byte) (uint64, int, error) {
	x, n := binary.Uvarint(buf)
	if n <= 0 {
		return 0, 0, varintErr(n)
	}
	return x, n, nil
}

// decodeVarint reads a zig-zag varint (the encoding of binary.AppendVarint).
func decodeVarint(buf []byte) (int64, int, error) {
	ux, n := binary.Uvarint(buf)
	if n <= 0 {
		return 0, 0, varintErr(n)
	}
	return unzigzag(ux), n, nil
}

// fitsInt reports whether x fits in a signed integer of bits bits.
func fitsInt(x int64, bits uint) bool {
	s := 64 - bits
	return x<<s>>s == x
}

// fitsUint reports whether x fits in an unsigned integer of bits bits.
func fitsUint(x uint64, bits uint) bool {
	return bits >= 64 || x>>bits == 0
}

// decodeIntN reads a zig-zag varint and checks that it fits in bits bits.
func decodeIntN(buf []byte, bits uint) (int64, int, error) {
	ux, n := binary.Uvarint(buf)
	if n <= 0 {
		return 0, 0, varintErr(n)
	}
	x := unzigzag(ux)
	if !fitsInt(x, bits) {
		return 0, 0, errRange
	}
	return x, n, nil
}

// decodeUintN reads a varint and checks that it fits in bits bits.
func decodeUintN(buf []byte, bits uint) (uint64, int, error) {
	x, n := binary.Uvarint(buf)
	if n <= 0 {
		return 0, 0, varintErr(n)
	}
	if !fitsUint(x, bits) {
		return 0, 0, errRange
	}
	return x, n, nil
}

// decodeFloat32 reads 4 little-endian bytes of IEEE 754 bits.
func decodeFloat32(buf []byte) (float32, int, error) {
	if len(buf) < 4 {
		return 0, 0, errTruncated
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(buf)), 4, nil
}

// decodeFloat64 reads 8 little-endian bytes of IEEE 754 bits.
func decodeFloat64(buf []byte) (float64, int, error) {
	if len(buf) < 8 {
		return 0, 0, errTruncated
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(buf)), 8, nil
}

func appendFloat32(buf []byte, f float32) []byte {
	return binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
}

func appendFloat64(buf []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(buf, math.Float64bits(f))
}

// decodeLen reads a uvarint length and checks it against what the rest of
// buf could hold: at least length*minSize bytes must follow, and the length
// must not exceed maxCount. A corrupt length therefore can neither make a
// decoder allocate more than the input could describe nor overflow int. It
// returns the length and the bytes the varint took.
func decodeLen(buf []byte, minSize, maxCount int) (int, int, error) {
	l, n, err := decodeUvarint(buf)
	if err != nil {
		return 0, 0, err
	}
	if err := checkCount(l, len(buf)-n, minSize, maxCount); err != nil {
		return 0, 0, err
	}
	return int(l), n, nil
}

// decodeOptLen reads the length of a value that can be nil (slices, maps):
// 0 means nil and n+1 means length n, checked as in decodeLen. It returns the
// length, whether the value is nil, and the bytes consumed.
func decodeOptLen(buf []byte, minSize, maxCount int) (l int, isNil bool, n int, err error) {
	x, n, err := decodeUvarint(buf)
	if err != nil {
		return 0, false, 0, err
	}
	if x == 0 {
		return 0, true, n, nil
	}
	if err := checkCount(x-1, len(buf)-n, minSize, maxCount); err != nil {
		return 0, false, 0, err
	}
	return int(x - 1), false, n, nil
}

// checkCount reports whether count elements of at least minSize bytes each
// fit in remaining bytes, and count is at most maxCount.
func checkCount(count uint64, remaining, minSize, maxCount int) error {
	if count > uint64(maxCount) {
		return errLength
	}
	if minSize > 0 && count > uint64(remaining)/uint64(minSize) {
		return errLength
	}
	return nil
}

// appendOptLen appends the length of a value that can be nil.
func appendOptLen(buf []byte, l int, isNil bool) []byte {
	if isNil {
		return append(buf, 0)
	}
	return binary.AppendUvarint(buf, uint64(l)+1)
}

// decodeString reads a uvarint length and that many bytes as a new string.
func decodeString(buf []byte) (string, int, error) {
	l, n := binary.Uvarint(buf)
	if n <= 0 || l > uint64(len(buf)-n) {
		return "", 0, lengthErr(n)
	}
	return string(buf[n : n+int(l)]), n + int(l), nil
}

// lengthErr is the error of a length prefix for which binary.Uvarint
// returned n: either the varint failed or too few bytes follow it.
func lengthErr(n int) error {
	if n > 0 {
		return errLength
	}
	return varintErr(n)
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// decodeBytes reads a nil-able byte slice; the result never aliases buf
// because network buffers are recycled as soon as the record is decoded. It
// is copied into a, or into an allocation of its own when a is nil.
func decodeBytes(buf []byte, a *arena) ([]byte, int, error) {
	l, isNil, n, err := decodeOptLen(buf, 1, math.MaxInt)
	if err != nil || isNil {
		return nil, n, err
	}
	return a.bytes(buf[n : n+l]), n + l, nil
}

func appendBytes(buf []byte, b []byte) []byte {
	buf = appendOptLen(buf, len(b), b == nil)
	return append(buf, b...)
}
