package codec

import (
	"testing"
	"unsafe"
)

// DecodeShared gives the string Decode gives, pointing into the buffer,
// and refuses the same damaged inputs.
func TestStringDecodeShared(t *testing.T) {
	for _, tc := range []struct {
		name string
		buf  []byte
		want string
		err  bool
	}{
		{"empty string", []byte{0, 'x'}, "", false},
		{"string", append([]byte{5}, "hello!"...), "hello", false},
		{"truncated", append([]byte{9}, "hello"...), "", true},
		{"bad varint", []byte{0x80}, "", true},
		{"empty buffer", nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := stringCodec{}.DecodeShared(tc.buf)
			want, wn, werr := stringCodec{}.Decode(tc.buf)
			if (err != nil) != tc.err || (werr != nil) != tc.err || got != tc.want || got != want || n != wn {
				t.Fatalf("DecodeShared = %q, %d, %v; Decode = %q, %d, %v; want %q", got, n, err, want, wn, werr, tc.want)
			}
			if tc.err && err.Error() != werr.Error() {
				t.Fatalf("errors differ: %v, %v", err, werr)
			}
			if len(got) > 0 && unsafe.StringData(got) != &tc.buf[n-len(got)] {
				t.Fatal("the string does not alias the buffer")
			}
		})
	}
}
