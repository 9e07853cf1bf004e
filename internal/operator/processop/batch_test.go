package processop_test

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/operator/processop"
)

// emitted is what the operator's output saw: a record with its timestamp.
type emitted struct{ ts, v int64 }

type recorder struct{ out []emitted }

func (r *recorder) Collect(ts int64, v int64) error {
	r.out = append(r.out, emitted{ts, v})
	return nil
}
func (r *recorder) EmitWatermark(int64) error { return nil }

// twice emits each element, and its negation one unit of time later for
// multiples of 4, and fails on failOn.
type twice struct{ failOn int64 }

var errFail = errors.New("fail")

func (f twice) ProcessElement(ctx *processop.Context[int64], v int64) error {
	if v == f.failOn {
		return errFail
	}
	ctx.Collect(v)
	if ts, ok := ctx.Timestamp(); ok && v%4 == 0 {
		ctx.CollectWithTimestamp(-v, ts+1)
	}
	return nil
}

// A batch gives the output what the same elements give one at a time, with
// their timestamps (or none), and stops at the same element when the
// function fails.
func TestBatchSameAsRecords(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		vs := rapid.SliceOfN(rapid.Int64Range(0, 50), 0, 40).Draw(t, "values")
		var ts []int64
		if rapid.Bool().Draw(t, "timestamps") {
			ts = rapid.SliceOfN(rapid.Int64Range(0, 1000), len(vs), len(vs)).Draw(t, "ts")
		}
		fn := twice{failOn: rapid.Int64Range(-1, 50).Draw(t, "failOn")}

		one := &recorder{}
		records := processop.New[int64, int64](fn, nil, one)
		var oneErr error
		for i, v := range vs {
			at := op.NoTimestamp
			if ts != nil {
				at = ts[i]
			}
			if oneErr = records.ProcessElement(at, v); oneErr != nil {
				break
			}
		}
		all := &recorder{}
		batch := processop.New[int64, int64](fn, nil, all)
		batchErr := batch.CollectBatch(ts, vs)
		if !errors.Is(batchErr, oneErr) || (batchErr == nil) != (oneErr == nil) {
			t.Fatalf("batch error %v, records error %v", batchErr, oneErr)
		}
		if !slices.Equal(all.out, one.out) {
			t.Fatalf("batch emitted %v, records %v", all.out, one.out)
		}
	})
}
