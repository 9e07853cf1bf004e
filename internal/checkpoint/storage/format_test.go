package storage_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

func TestRoundTrip(t *testing.T) {
	savepoint := sampleMetadata()
	savepoint.Kind = storage.KindSavepoint
	savepoint.Operators = savepoint.Operators[:1]
	tests := []struct {
		name string
		md   *storage.Metadata
	}{
		{"minimal", &storage.Metadata{JobID: "j", Kind: storage.KindCheckpoint}},
		{"sample", sampleMetadata()},
		{"savepoint", savepoint},
		{"negative timestamp", &storage.Metadata{JobID: "j", CheckpointID: 1<<62 + 5, Timestamp: -1, Kind: storage.KindCheckpoint}},
		{"max parallelism", &storage.Metadata{JobID: "j", Kind: storage.KindCheckpoint, Operators: []storage.OperatorState{{
			UID: "u", Parallelism: 1 << 15, MaxParallelism: 1 << 15,
			Subtasks: []storage.SubtaskState{{Index: 1<<15 - 1, Keyed: []storage.KeyedStateHandle{{
				KeyGroupStart: 1<<15 - 1, KeyGroupEnd: 1<<15 - 1, Offsets: []int64{1 << 40},
				Stream: storage.StreamHandle{Path: "big", Size: 1 << 41, CRC: 1<<32 - 1}}}}},
		}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := mustEncode(t, tt.md)
			got, err := storage.Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := *tt.md
			want.Version = storage.FormatVersion
			if !reflect.DeepEqual(got, &want) {
				t.Fatalf("round trip:\n got %+v\nwant %+v", got, &want)
			}
			// Encoding is a function of the value.
			if again := mustEncode(t, got); !bytes.Equal(again, b) {
				t.Fatalf("re-encoding differs")
			}
		})
	}
}

func TestEncodeRejectsInvalid(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(md *storage.Metadata)
		reason string
	}{
		{"no job id", func(md *storage.Metadata) { md.JobID = "" }, "empty job id"},
		{"negative id", func(md *storage.Metadata) { md.CheckpointID = -1 }, "negative checkpoint id"},
		{"no kind", func(md *storage.Metadata) { md.Kind = 0 }, "invalid kind"},
		{"duplicate uid", func(md *storage.Metadata) { md.Operators[1].UID = md.Operators[0].UID }, "duplicate uid"},
		{"empty uid", func(md *storage.Metadata) { md.Operators[0].UID = "" }, "empty uid"},
		{"zero parallelism", func(md *storage.Metadata) { md.Operators[0].Parallelism = 0 }, "parallelism 0"},
		{"max below parallelism", func(md *storage.Metadata) { md.Operators[0].MaxParallelism = 1 }, "max parallelism 1"},
		{"max too large", func(md *storage.Metadata) { md.Operators[0].MaxParallelism = 1<<15 + 1 }, "max parallelism"},
		{"subtask index", func(md *storage.Metadata) { md.Operators[0].Subtasks[0].Index = 2 }, "index 2 outside"},
		{"duplicate subtask", func(md *storage.Metadata) { md.Operators[0].Subtasks[1].Index = 0 }, "duplicate index"},
		{"key group range", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].KeyGroupEnd = 128 }, "key groups"},
		{"reversed range", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].KeyGroupStart = 67 }, "key groups"},
		{"offset count", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].Offsets = []int64{0} }, "1 offsets for 3"},
		{"offset past stream", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].Offsets[2] = 5001 }, "outside the stream"},
		{"path with dotdot", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].Stream.Path = "../x" }, "path"},
		{"path absolute", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].Stream.Path = "/etc/passwd" }, "path"},
		{"path dot file", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].Stream.Path = ".tmp" }, "starts with a dot"},
		{"stream in shared", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].Keyed[0].Stream.Path = "shared/x" }, "path"},
		{"path and inline", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].ChannelState[0].Path = "x" }, "both inline"},
		{"inline size", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].ChannelState[0].Size++ }, "inline bytes"},
		{"inline crc", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].ChannelState[0].CRC++ }, "crc"},
		{"empty handle with size", func(md *storage.Metadata) {
			md.Operators[1].Subtasks[0].ChannelState[0] = storage.StreamHandle{Size: 1}
		}, "no path and no inline"},
		{"negative size", func(md *storage.Metadata) { md.Operators[1].Subtasks[0].ChannelState[1].Size = -1 }, "negative size"},
		{"shared key", func(md *storage.Metadata) { md.Operators[1].Subtasks[1].Keyed[0].Shared[0].Key = "" }, "empty key"},
		{"shared path", func(md *storage.Metadata) { md.Operators[1].Subtasks[1].Keyed[0].Shared[0].Path = "shared/a/b" }, "path"},
		{"list mode", func(md *storage.Metadata) { md.Operators[0].Subtasks[0].OperatorLists[0].Mode = 9 }, "invalid mode"},
		{"list name", func(md *storage.Metadata) { md.Operators[0].Subtasks[0].OperatorLists[1].Name = "offsets" }, "duplicate name"},
		{"master name", func(md *storage.Metadata) { md.MasterStates[1].Name = "enumerator" }, "duplicate name"},
		{"savepoint with shared file", func(md *storage.Metadata) { md.Kind = storage.KindSavepoint }, "outside its directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := sampleMetadata()
			tt.edit(md)
			_, err := storage.Encode(md)
			if !errors.Is(err, storage.ErrInvalid) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Encode: err = %v, want ErrInvalid mentioning %q", err, tt.reason)
			}
		})
	}
}

// withVersion returns b with its version field set to v and the CRC
// resealed: a well-formed file of another version.
func withVersion(b []byte, v uint16) []byte {
	b = bytes.Clone(b)
	binary.LittleEndian.PutUint16(b[4:], v)
	return reseal(b)
}

func TestVersions(t *testing.T) {
	b := mustEncode(t, sampleMetadata())
	tests := []struct {
		name    string
		version uint16
		want    error
		message string
	}{
		{"current", storage.FormatVersion, nil, ""},
		{"newer minor", storage.FormatVersion + 1, nil, ""},
		{"newer major", (storage.FormatMajor + 1) << 8, storage.ErrVersion, "format 2.0 was written by a newer Weir; this build reads 1.x"},
		{"much newer major", 0xff00, storage.ErrVersion, "upgrade Weir"},
		{"major zero", 0x0001, storage.ErrVersion, "format 0.1 is older"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, err := storage.Decode(withVersion(b, tt.version))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if md.Version != tt.version {
					t.Fatalf("Version = %x, want %x", md.Version, tt.version)
				}
				return
			}
			if !errors.Is(err, tt.want) || errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("Decode: err = %v, want %v mentioning %q", err, tt.want, tt.message)
			}
		})
	}
	md := sampleMetadata()
	md.Version = storage.FormatVersion + 1
	if _, err := storage.Encode(md); !errors.Is(err, storage.ErrVersion) {
		t.Fatalf("Encode of version %x: err = %v, want ErrVersion", md.Version, err)
	}
}

// headerSection returns the offset of the header record's length, and the
// length, of an encoding whose header is shorter than 128 bytes.
func headerSection(t *testing.T, b []byte) (lenAt, n int) {
	t.Helper()
	if b[6] != 1 || b[7] >= 0x80 {
		t.Fatalf("unexpected start of body % x", b[6:8])
	}
	return 7, int(b[7])
}

// extend returns b with extra bytes at the end of the header record and an
// unknown section (tag 200) before the trailer: what a later minor version
// may add.
func extend(t *testing.T, b []byte) []byte {
	lenAt, n := headerSection(t, b)
	end := lenAt + 1 + n
	var out []byte
	out = append(out, b[:lenAt]...)
	out = append(out, byte(n+2))
	out = append(out, b[lenAt+1:end]...)
	out = append(out, 0xAA, 0xBB)
	out = append(out, b[end:len(b)-4]...)
	out = append(out, 200, 3, 'n', 'e', 'w')
	out = append(out, 0, 0, 0, 0)
	return reseal(out)
}

func TestForwardCompatibility(t *testing.T) {
	want := sampleMetadata()
	b := extend(t, mustEncode(t, want))

	// A file of the same minor version with these additions is corrupt...
	if _, err := storage.Decode(b); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Decode of extended 1.0 file: err = %v, want ErrCorrupt", err)
	}
	// ...while from a newer minor version they are extensions to skip.
	got, err := storage.Decode(withVersion(b, storage.FormatVersion+1))
	if err != nil {
		t.Fatalf("Decode of extended 1.1 file: %v", err)
	}
	want.Version = storage.FormatVersion + 1
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("extended file decodes to\n%+v\nwant\n%+v", got, want)
	}
}
