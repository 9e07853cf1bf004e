package weir

import (
	"encoding/binary"
	"errors"
	"fmt"

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

// SnapshotState implements op.Snapshotter for every keyed operator.
func (b *keyedBase[K, N]) SnapshotState(int64) (*op.Snapshot, error) {
	kc, err := codec.For[K]()
	if err != nil {
		return nil, fmt.Errorf("snapshot keys: %w", err)
	}
	nc, err := codec.For[N]()
	if err != nil {
		return nil, fmt.Errorf("snapshot timers: %w", err)
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
	snap := &op.Snapshot{KeyGroups: make(map[int][]byte)}
	var section []byte
	for kg := b.ctx.KeyGroups.Start; kg <= b.ctx.KeyGroups.End; kg++ {
		if section, err = b.backend.SnapshotKeyGroup(section[:0], kg); err != nil {
			return nil, err
		}
		ts := timers[kg]
		if len(section) == 1 && section[0] == 0 && len(ts) == 0 {
			continue // nothing in this key group
		}
		out := binary.AppendUvarint(nil, uint64(len(section)))
		out = append(out, section...)
		out = binary.AppendUvarint(out, uint64(len(ts)))
		for _, t := range ts {
			out = append(out, byte(t.domain))
			out = binary.AppendVarint(out, t.Timestamp)
			out = kc.Append(out, t.Key)
			out = nc.Append(out, t.Namespace)
		}
		snap.KeyGroups[kg] = out
	}
	return snap, nil
}

type timerEntry[K, N comparable] struct {
	timer.Timer[K, N]
	domain TimeDomain
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
