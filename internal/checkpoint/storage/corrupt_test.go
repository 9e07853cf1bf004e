package storage_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

func isCorrupt(err error) bool { return errors.Is(err, storage.ErrCorrupt) }

// TestTruncated: every strict prefix of a valid _metadata is corrupt.
func TestTruncated(t *testing.T) {
	for _, md := range []*storage.Metadata{sampleMetadata(), {JobID: "j", Kind: storage.KindSavepoint}} {
		b := mustEncode(t, md)
		for i := range len(b) {
			prefix := bytes.Clone(b[:i])
			if _, err := storage.Decode(prefix); !isCorrupt(err) {
				t.Errorf("prefix of %d/%d bytes: err = %v, want ErrCorrupt", i, len(b), err)
			}
		}
	}
}

// TestBitFlips: a single damaged byte anywhere, including the version field
// and the trailer, is corrupt: the CRC is checked before anything else is
// believed. The named cases point at each part of the frame; the loop
// covers every byte with several masks.
func TestBitFlips(t *testing.T) {
	b := mustEncode(t, sampleMetadata())
	n := len(b)
	named := []struct {
		name string
		at   int
		mask byte
	}{
		{"magic first byte", 0, 0x01},
		{"magic last byte", 3, 0x80},
		{"version minor", 4, 0x01},
		{"version major", 5, 0x01},
		{"header section tag", 6, 0x03},
		{"header length", 7, 0x40},
		{"job id", 9, 0x20},
		{"middle", n / 2, 0xff},
		{"last body byte", n - 5, 0x01},
		{"crc first byte", n - 4, 0x01},
		{"crc last byte", n - 1, 0x80},
	}
	for _, tt := range named {
		t.Run(tt.name, func(t *testing.T) {
			c := bytes.Clone(b)
			c[tt.at] ^= tt.mask
			if _, err := storage.Decode(c); !isCorrupt(err) {
				t.Fatalf("flip at %d: err = %v, want ErrCorrupt", tt.at, err)
			}
		})
	}
	for i := range b {
		for _, mask := range []byte{0x01, 0x10, 0x80, 0xff} {
			c := bytes.Clone(b)
			c[i] ^= mask
			if _, err := storage.Decode(c); !isCorrupt(err) {
				t.Errorf("flip %02x at %d: err = %v, want ErrCorrupt", mask, i, err)
			}
		}
	}
}

// TestMalformed is the table of bodies that are damaged yet carry a
// matching CRC (a bug in a writer, or damage before the checksum was
// computed): the structural checks must catch them on their own.
func TestMalformed(t *testing.T) {
	valid := mustEncode(t, sampleMetadata())
	body := valid[:len(valid)-4]
	seal := func(parts ...[]byte) []byte { return reseal(append(bytes.Join(parts, nil), 0, 0, 0, 0)) }
	head := body[:6]                            // magic and version
	minimalHeader := []byte{1, 4, 1, 'j', 0, 0} // tag, length, job "j", id 0, timestamp 0; kind missing
	tests := []struct {
		name   string
		file   []byte
		reason string
	}{
		{"empty", nil, "truncated: 0 bytes"},
		{"bad magic", seal([]byte("WEIR"), body[4:]), "bad magic"},
		{"text file", []byte("checkpoint\n"), "bad magic"},
		{"frame only", seal(head), "no header section"},
		{"no header section", seal(head, []byte{3, 2, 1, 'm', 0}), "want the header"},
		{"header not first", seal(head, []byte{3, 2, 1, 'm', 0}, body[6:]), "want the header"},
		{"two headers", seal(body, []byte{1, 5, 1, 'j', 0, 0, 1}), "second header section"},
		{"unknown section", seal(body, []byte{200, 0}), "unknown section tag 200"},
		{"section tag zero", seal(body, []byte{0, 0}), "unknown section tag 0"},
		{"section length past end", seal(body, []byte{3, 100, 1}), "exceeds the 1 bytes left"},
		{"section length overflow", seal(body, []byte{3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), "exceeds the 0 bytes left"},
		{"header record too short", seal(head, minimalHeader), "unexpected end of record"},
		{"header trailing bytes", seal(head, []byte{1, 6, 1, 'j', 0, 0, 1, 9}), "unexpected bytes at the end of the header"},
		{"bad kind", seal(head, []byte{1, 5, 1, 'j', 0, 0, 7}), "invalid kind"},
		{"empty job id", seal(head, []byte{1, 4, 0, 0, 0, 1}), "empty job id"},
		{"job id length past record", seal(head, []byte{1, 5, 9, 'j', 0, 0, 1}), "string length 9 exceeds"},
		{"checkpoint id overflow", seal(head, []byte{1, 14, 1, 'j', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 1}), "checkpoint id 18446744073709551615 exceeds"},
		{"operator without subtask count", seal(head, []byte{1, 5, 1, 'j', 0, 0, 1}, []byte{2, 7, 1, 'u', 0, 1, 1, 0, 0}), "unexpected end of record in a varint"},
		{"operator unknown flag", seal(head, []byte{1, 5, 1, 'j', 0, 0, 1}, []byte{2, 8, 1, 'u', 0, 1, 1, 2, 0, 0}), "unknown flag bits"},
		{"operator parallelism zero", seal(head, []byte{1, 5, 1, 'j', 0, 0, 1}, []byte{2, 8, 1, 'u', 0, 0, 1, 0, 0, 0}), "parallelism 0 outside"},
		{"subtask count past record", seal(head, []byte{1, 5, 1, 'j', 0, 0, 1}, []byte{2, 8, 1, 'u', 0, 1, 1, 0, 0, 50}), "subtask count 50 exceeds"},
		{"subtask index out of range", seal(head, []byte{1, 5, 1, 'j', 0, 0, 1},
			[]byte{2, 15, 1, 'u', 0, 1, 1, 0, 0, 1, 6, 7, 0, 0, 0, 0, 0}), "index 7 outside [0, 1)"},
		{"path leaving the directory", reseal(bytes.Replace(valid, []byte("count-2-1-keyed-0011223344556677"),
			[]byte("../../../../../../../etc/passwd0"), 1)), "stream: path: name \"../"},
		{"duplicate master state", seal(body, []byte{3, 12, 10, 'e', 'n', 'u', 'm', 'e', 'r', 'a', 't', 'o', 'r', 0}), "duplicate name \"enumerator\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, err := storage.Decode(tt.file)
			if !isCorrupt(err) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Decode: err = %v (metadata %+v), want ErrCorrupt mentioning %q", err, md, tt.reason)
			}
		})
	}
}
