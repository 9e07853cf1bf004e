package storage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	_ "gocloud.dev/blob/memblob"
)

const testJob = "0123456789abcdef0123456789abcdef"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crcOf(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// inline returns the inline handle of b.
func inline(b []byte) storage.StreamHandle {
	return storage.StreamHandle{Size: int64(len(b)), Inline: b, CRC: crcOf(b)}
}

// sampleMetadata is a checkpoint with one of everything, its handles made
// up (for format tests, which do not look at files). TestGolden pins its
// encoding: a change here needs testdata/metadata-1.1.bin rewritten with
// -update, which is only right if the encoder did not change.
func sampleMetadata() *storage.Metadata {
	return &storage.Metadata{
		JobID:        testJob,
		CheckpointID: 42,
		Timestamp:    1_764_000_000_000,
		Kind:         storage.KindCheckpoint,
		Operators: []storage.OperatorState{
			{
				UID: "source-1", Name: "Source: numbers", Parallelism: 2, MaxParallelism: 128,
				Coordinator: []byte("enumerator"),
				Subtasks: []storage.SubtaskState{
					{Index: 0, OperatorLists: []storage.OperatorListState{
						{Name: "offsets", Mode: storage.ModeSplit, Entries: [][]byte{[]byte("split-0:17")}},
						{Name: "config", Mode: storage.ModeBroadcast, Entries: [][]byte{[]byte("a"), []byte("b")}},
					}},
					{Index: 1, Finished: true, Raw: []byte{1, 2, 3}},
				},
			},
			{
				UID: "count-2", Name: "Count", Parallelism: 2, MaxParallelism: 128,
				Subtasks: []storage.SubtaskState{
					{Index: 1, Keyed: []storage.KeyedStateHandle{{
						KeyGroupStart: 64, KeyGroupEnd: 66, Offsets: []int64{0, 10, 4000},
						Stream: storage.StreamHandle{Path: "count-2-1-keyed-0011223344556677", Size: 5000, CRC: 0xdeadbeef},
					}}, ChannelState: []storage.StreamHandle{
						inline([]byte("in-flight")),
						{Path: "taskowned/channel-0-aabbccddeeff0011", Size: 77, CRC: 7},
					}},
					{Index: 0, Keyed: []storage.KeyedStateHandle{{
						KeyGroupStart: 0, KeyGroupEnd: 63,
						Stream: inline([]byte("incremental backend metadata")),
						Shared: []storage.SharedFile{
							{Key: "count-2/0/000001.sst", Path: "shared/count-2_0_000001.sst-0102030405060708", Size: 1 << 20, CRC: 0x0badf00d, HasCRC: true},
							// A file a format 1.0 checkpoint recorded, without its CRC.
							{Key: "count-2/0/MANIFEST", Path: "MANIFEST-1112131415161718", Size: 300},
						},
					}}},
				},
			},
			{UID: "sink-3", Name: "Sink", Parallelism: 1, MaxParallelism: 1, FullyFinished: true},
		},
		MasterStates: []storage.MasterState{{Name: "enumerator", Data: []byte{0, 1, 2}}, {Name: "empty"}},
	}
}

// reseal recomputes the CRC trailer of a _metadata file after a test
// edited its body, so that the edit reaches the structural checks.
func reseal(b []byte) []byte {
	body := b[:len(b)-4]
	return binary.LittleEndian.AppendUint32(bytes.Clone(body), crcOf(body))
}

func mustEncode(t testing.TB, md *storage.Metadata) []byte {
	t.Helper()
	b, err := storage.Encode(md)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b
}

// logBuffer collects log lines of a test Storage.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

func open(t testing.TB, url string, opts storage.Options) *storage.Storage {
	t.Helper()
	s, err := storage.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatalf("Open(%q): %v", url, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// readAll reads a state stream and returns its bytes and the error that
// ended the read (nil for a verified io.EOF).
func readAll(rc io.ReadCloser, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// checkpointOf writes a checkpoint of one keyed operator whose state is
// payload (as a file when large enough), plus one shared file, and returns
// its metadata and location.
func checkpointOf(t testing.TB, s *storage.Storage, id int64, payload []byte) (*storage.Metadata, string) {
	t.Helper()
	md, loc, err := tryCheckpoint(context.Background(), s, id, payload)
	if err != nil {
		t.Fatalf("checkpoint %d: %v", id, err)
	}
	return md, loc
}

func tryCheckpoint(ctx context.Context, s *storage.Storage, id int64, payload []byte) (*storage.Metadata, string, error) {
	w, err := s.CreateCheckpointWriter(testJob, id)
	if err != nil {
		return nil, "", err
	}
	h, err := w.WriteState(ctx, "op-0-keyed", bytes.NewReader(payload))
	if err != nil {
		return nil, "", err
	}
	sh, err := w.WriteShared(ctx, "op/0/sst-"+strings.Repeat("x", int(id%3)), bytes.NewReader(payload[:len(payload)/2]))
	if err != nil {
		return nil, "", err
	}
	ch, err := w.WriteState(ctx, "op-0-channel", bytes.NewReader(payload[len(payload)/2:]))
	if err != nil {
		return nil, "", err
	}
	md := &storage.Metadata{
		JobID: testJob, CheckpointID: id, Timestamp: 1000 * id, Kind: storage.KindCheckpoint,
		Operators: []storage.OperatorState{{
			UID: "op", Parallelism: 1, MaxParallelism: 4,
			Subtasks: []storage.SubtaskState{{
				Index:        0,
				Keyed:        []storage.KeyedStateHandle{{KeyGroupStart: 0, KeyGroupEnd: 3, Stream: h, Shared: []storage.SharedFile{sh}}},
				ChannelState: []storage.StreamHandle{ch},
			}},
		}},
	}
	loc, err := w.Commit(ctx, md)
	if err != nil {
		return nil, "", err
	}
	return md, loc, nil
}
