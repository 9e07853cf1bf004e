package tcp

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzFrame feeds arbitrary bytes to the frame decoder: it must return a
// frame or an error (ErrCorrupt for malformed input, io.EOF for none),
// never panic, and never allocate beyond the bytes given (the maximum
// payload is large on purpose). A frame it accepts encodes back to the
// same bytes. Seeds: testdata/fuzz/FuzzFrame and every sample frame.
func FuzzFrame(f *testing.F) {
	for _, fr := range sampleFrames(f) {
		f.Add(encode(f, fr))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := ReadFrame(bytes.NewReader(data), 1<<30)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && err != io.EOF {
				t.Fatalf("error %v is neither ErrCorrupt nor io.EOF", err)
			}
			return
		}
		// Frames delimit themselves: the frame is a prefix of the input.
		if again := encode(t, fr); !bytes.HasPrefix(data, again) {
			t.Fatalf("frame %#v re-encodes to %x, read from %x", fr, again, data)
		}
	})
}
