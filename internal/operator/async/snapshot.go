package async

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/op"
)

// stateName names the operator list state of the requests in flight.
const stateName = "async-in-flight"

// SnapshotState stores the input of every record whose results were not
// emitted, in input order, each as its timestamp then its encoding.
func (o *Operator[T, R]) SnapshotState(int64) (*op.Snapshot, error) {
	if len(o.live) == 0 {
		return &op.Snapshot{Lists: []op.NamedList{{Name: stateName, Mode: op.SplitList}}}, nil
	}
	if o.cfg.Codec == nil {
		return nil, fmt.Errorf("async: %d requests in flight, but the input type has no codec", len(o.live))
	}
	es := make([]*entry[T, R], 0, len(o.live))
	for e := range o.live {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *entry[T, R]) int { return int(a.seq - b.seq) })
	entries := make([][]byte, len(es))
	for i, e := range es {
		entries[i] = o.cfg.Codec.Append(binary.AppendVarint(nil, e.ts), e.in)
	}
	return &op.Snapshot{Lists: []op.NamedList{{Name: stateName, Mode: op.SplitList, Entries: entries}}}, nil
}

func decodeInput[T any](c codec.Codec[T], b []byte) (int64, T, error) {
	var zero T
	ts, n := binary.Varint(b)
	if n <= 0 {
		return 0, zero, fmt.Errorf("timestamp: %w", codec.ErrCorrupt)
	}
	v, m, err := c.Decode(b[n:])
	if err != nil {
		return 0, zero, err
	}
	if n+m != len(b) {
		return 0, zero, fmt.Errorf("%d bytes after the input: %w", len(b)-n-m, codec.ErrCorrupt)
	}
	return ts, v, nil
}
