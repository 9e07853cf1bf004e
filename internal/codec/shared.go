package codec

import (
	"encoding/binary"
	"unsafe"
)

// SharedDecoder is implemented by codecs that can decode without copying:
// the values DecodeShared returns alias buf (a string points into it), so
// the caller must never write to buf again while they may be live. A
// reader that allocates a buffer once for the values decoded from it
// saves an allocation and a copy per value (the cache's partition reader
// does).
type SharedDecoder[T any] interface {
	DecodeShared(buf []byte) (T, int, error)
}

var _ SharedDecoder[string] = stringCodec{}

// DecodeShared implements SharedDecoder: the string points into buf.
func (stringCodec) DecodeShared(buf []byte) (string, int, error) {
	l, n := binary.Uvarint(buf)
	if n <= 0 || l > uint64(len(buf)-n) {
		return "", 0, lengthErr(n)
	}
	if l == 0 {
		return "", n, nil
	}
	return unsafe.String(&buf[n], int(l)), n + int(l), nil
}
