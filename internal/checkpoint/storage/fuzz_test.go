package storage_test

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// FuzzDecode decodes arbitrary bytes. Decode must never panic, must fail
// only with ErrCorrupt or ErrVersion, and whatever it accepts must be valid
// metadata that encodes and decodes back to itself. The CRC trailer makes
// random inputs fail early, so the target also reseals the CRC of every
// input, which lets the fuzzer reach the section and record decoders.
func FuzzDecode(f *testing.F) {
	f.Add(mustEncode(f, sampleMetadata()))
	f.Add(mustEncode(f, &storage.Metadata{JobID: "j", Kind: storage.KindSavepoint}))
	f.Add([]byte{})
	f.Add([]byte{0x89, 'W', 'C', 'K', 0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		check(t, data)
		if len(data) >= 4 {
			check(t, reseal(data))
		}
	})
}

func check(t *testing.T, data []byte) {
	md, err := storage.Decode(data)
	if err != nil {
		if !errors.Is(err, storage.ErrCorrupt) && !errors.Is(err, storage.ErrVersion) {
			t.Fatalf("error wraps neither ErrCorrupt nor ErrVersion: %v", err)
		}
		return
	}
	if err := md.Validate(); err != nil {
		t.Fatalf("accepted metadata is invalid: %v", err)
	}
	md.Version = 0
	enc, err := storage.Encode(md)
	if err != nil {
		t.Fatalf("accepted metadata does not encode: %v", err)
	}
	again, err := storage.Decode(enc)
	if err != nil {
		t.Fatalf("re-encoding does not decode: %v", err)
	}
	again.Version = 0
	if !reflect.DeepEqual(again, md) {
		t.Fatalf("decode(encode(md)) != md:\n%+v\n%+v", again, md)
	}
	if enc2, _ := storage.Encode(again); !bytes.Equal(enc, enc2) {
		t.Fatalf("encoding is not a function of the value")
	}
}
