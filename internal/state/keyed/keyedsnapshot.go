package keyed

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/state"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/timer"
)

// A keyed operator's snapshot of one key group is its state section (see
// internal/state) followed by its timers, each length-prefixed:
//
//	uvarint len(state), state section
//	uvarint number of timers, then per timer: a domain byte (0 event
//	time, 1 processing time), varint timestamp, key, namespace (codecs)

var errCorruptTimers = errors.New("weir: corrupt timer snapshot")

// SnapshotState implements op.Snapshotter for every keyed operator. On the
// task's goroutine it only captures the backend (copy-on-write on the heap,
// a Pebble checkpoint of hard links) and encodes the timers; the sections
// are serialized and the files uploaded when the runtime calls Write, off
// the task's goroutine.
func (b *keyedBase[K, N]) SnapshotState(id int64) (*op.Snapshot, error) {
	kc, err := codec.For[K]()
	if err != nil {
		return nil, fmt.Errorf("snapshot keys: %w", err)
	}
	nc, err := codec.For[N]()
	if err != nil {
		return nil, fmt.Errorf("snapshot timers: %w", err)
	}
	var dir string
	if b.workDir != nil {
		dir = filepath.Join(b.workDir.path, fmt.Sprintf("chk-%d", id))
	}
	c, err := b.backend.Capture(dir)
	if err != nil {
		return nil, err
	}
	if b.workDir != nil {
		b.workDir.acquire()
	}
	timers := make(map[int][]timerEntry[K, N])
	for t := range b.timers.EventTimeTimers() {
		kg := keygroup.Of(b.hash(t.Key), b.ctx.MaxParallelism)
		timers[kg] = append(timers[kg], timerEntry[K, N]{t, EventTime})
	}
	for t := range b.timers.ProcessingTimeTimers() {
		kg := keygroup.Of(b.hash(t.Key), b.ctx.MaxParallelism)
		timers[kg] = append(timers[kg], timerEntry[K, N]{t, ProcessingTime})
	}
	ks := &keyedSnapshot[K]{capture: c, dir: b.workDir, timers: make(map[int][]byte, len(timers)), id: id, local: b.local, logWarn: b.logWarn}
	for kg, ts := range timers {
		out := binary.AppendUvarint(nil, uint64(len(ts)))
		for _, t := range ts {
			out = append(out, byte(t.domain))
			out = binary.AppendVarint(out, t.Timestamp)
			out = kc.Append(out, t.Key)
			out = nc.Append(out, t.Namespace)
		}
		ks.timers[kg] = out
	}
	if b.backend.IsPebble() {
		if b.ctx.StateBackend.Incremental {
			ks.reuse = b.confirmed
		}
		if b.inflight == nil {
			b.inflight = map[int64]*keyedSnapshot[K]{}
		}
		b.inflight[id] = ks
	}
	return &op.Snapshot{Keyed: ks}, nil
}

// NotifyCheckpointComplete makes the SST files of checkpoint id the ones
// the next incremental checkpoints may reference. A savepoint wrote
// sections, not files, and leaves them as they were.
func (b *keyedBase[K, N]) NotifyCheckpointComplete(id int64) error {
	if ks, ok := b.inflight[id]; ok && ks.written && ks.ssts != nil {
		b.confirmed = ks.ssts
	}
	if b.local != "" {
		if err := promoteLocal(b.local, id); err != nil {
			b.logWarn("keep local state", err)
		}
	}
	for old := range b.inflight {
		if old <= id {
			delete(b.inflight, old)
		}
	}
	return nil
}

// NotifyCheckpointAborted forgets checkpoint id.
func (b *keyedBase[K, N]) NotifyCheckpointAborted(id int64) error {
	delete(b.inflight, id)
	if b.local != "" {
		err := dropLocal(b.local, func(kind string, n int64) bool { return kind == "pending" && n == id })
		if err != nil {
			b.logWarn("remove local state of an aborted checkpoint", err)
		}
	}
	return nil
}

// keyedSnapshot is a keyed operator's op.KeyedSnapshot.
type keyedSnapshot[K comparable] struct {
	capture *state.Capture[K]
	dir     *workDir // nil on the heap
	// timers holds the encoded timers of each key group that has any.
	timers map[int][]byte
	// reuse maps the SST files of the last completed checkpoint to their
	// handles (incremental Pebble checkpoints).
	reuse map[string]storage.SharedFile
	// ssts and written are set by Write: the SST files the checkpoint
	// references. The task reads them when the checkpoint completed,
	// which happens after Write returned.
	ssts    map[string]storage.SharedFile
	written bool
	// id is the checkpoint's id; local the directory of the subtask's
	// local state copies ("" when local recovery is off), where Write
	// keeps a copy of a Pebble checkpoint's files.
	id      int64
	local   string
	logWarn func(msg string, err error)
}

// Write stores one stream of key-group sections, each the state section
// and the timers. A Pebble capture taken for a checkpoint stores its
// database files as shared files, and the sections hold only what the
// files do not (timers, and restored states no operator registered); a
// heap capture, and any capture for a savepoint, stores the full sections,
// the backend-independent format.
func (k *keyedSnapshot[K]) Write(ctx context.Context, dir *storage.CheckpointDir, name string) (storage.KeyedStateHandle, error) {
	native := k.capture.Dir() != "" && dir.Kind() == storage.KindCheckpoint
	start, end := k.capture.KeyGroupRange()
	h, err := dir.WriteKeyGroups(ctx, name, start, end, func(kg int) ([]byte, error) {
		var sec []byte
		if native {
			sec = k.capture.PendingSection(nil, kg)
		} else {
			var err error
			if sec, err = k.capture.Section(nil, kg); err != nil {
				return nil, err
			}
		}
		tm := k.timers[kg]
		if len(sec) == 1 && sec[0] == 0 && tm == nil {
			return nil, nil // nothing in this key group
		}
		if tm == nil {
			tm = []byte{0}
		}
		out := binary.AppendUvarint(nil, uint64(len(sec)))
		return append(append(out, sec...), tm...), nil
	})
	if err != nil {
		return h, err
	}
	if native {
		// On an error h.Shared holds the files uploaded before it, for
		// the runtime to delete.
		if h.Shared, err = k.upload(ctx, dir); err != nil {
			return h, err
		}
		if k.local != "" {
			if err := keepLocal(k.capture.Dir(), k.local, k.id); err != nil {
				k.logWarn("keep local state", err)
			}
		}
	}
	k.written = true
	return h, nil
}

// upload stores the files of a Pebble capture as shared files: SST files
// the last completed checkpoint already holds are referenced, not sent.
// On an error it returns the files stored so far.
func (k *keyedSnapshot[K]) upload(ctx context.Context, dir *storage.CheckpointDir) ([]storage.SharedFile, error) {
	names, err := k.capture.Files()
	if err != nil {
		return nil, err
	}
	k.ssts = make(map[string]storage.SharedFile)
	out := make([]storage.SharedFile, 0, len(names))
	for _, name := range names {
		sst := strings.HasSuffix(name, ".sst")
		f, ok := k.reuse[name]
		if !ok || !sst {
			if f, err = uploadFile(ctx, dir, filepath.Join(k.capture.Dir(), name), name); err != nil {
				return out, err
			}
		}
		if sst {
			k.ssts[name] = f
		}
		out = append(out, f)
	}
	return out, nil
}

func uploadFile(ctx context.Context, dir *storage.CheckpointDir, path, key string) (storage.SharedFile, error) {
	in, err := os.Open(path)
	if err != nil {
		return storage.SharedFile{}, fmt.Errorf("upload state file: %w", err)
	}
	defer in.Close()
	return dir.WriteShared(ctx, key, in)
}

// Release removes the capture and lets go of the working directory.
func (k *keyedSnapshot[K]) Release() {
	_ = k.capture.Release()
	if k.dir != nil {
		_ = k.dir.release()
	}
}

// restore fills state and timers from ctx.Restored; open calls it.
func (b *keyedBase[K, N]) restore(r *op.Restored) error {
	if r == nil {
		return nil
	}
	kc, err := codec.For[K]()
	if err != nil {
		return err
	}
	nc, err := codec.For[N]()
	if err != nil {
		return err
	}
	for kg, data := range r.KeyGroups {
		if !b.ctx.KeyGroups.Contains(kg) {
			continue
		}
		n, m := binary.Uvarint(data)
		if m <= 0 || uint64(len(data)-m) < n {
			return fmt.Errorf("%w: key group %d", errCorruptTimers, kg)
		}
		if err := b.backend.RestoreKeyGroup(kg, data[m:m+int(n)]); err != nil {
			return err
		}
		rest := data[m+int(n):]
		count, m := binary.Uvarint(rest)
		if m <= 0 {
			return fmt.Errorf("%w: key group %d", errCorruptTimers, kg)
		}
		rest = rest[m:]
		for i := uint64(0); i < count; i++ {
			if len(rest) < 1 {
				return fmt.Errorf("%w: key group %d", errCorruptTimers, kg)
			}
			domain := TimeDomain(rest[0])
			ts, m := binary.Varint(rest[1:])
			if m <= 0 {
				return fmt.Errorf("%w: key group %d", errCorruptTimers, kg)
			}
			rest = rest[1+m:]
			k, m, err := kc.Decode(rest)
			if err != nil {
				return fmt.Errorf("%w: key group %d: %v", errCorruptTimers, kg, err)
			}
			rest = rest[m:]
			ns, m, err := nc.Decode(rest)
			if err != nil {
				return fmt.Errorf("%w: key group %d: %v", errCorruptTimers, kg, err)
			}
			rest = rest[m:]
			if domain == ProcessingTime {
				b.timers.RegisterProcessingTimeTimer(k, ns, ts)
			} else {
				b.timers.RegisterEventTimeTimer(k, ns, ts)
			}
		}
	}
	if _, ok := b.timers.NextProcessingTime(); ok {
		b.scheduleWake()
	}
	return nil
}

type timerEntry[K, N comparable] struct {
	timer.Timer[K, N]
	domain TimeDomain
}
