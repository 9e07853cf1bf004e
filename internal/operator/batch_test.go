package operator

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/op"
)

// event is what the end of a test chain sees: a record with its timestamp,
// or a watermark.
type event struct {
	watermark bool
	ts, v     int64
}

// recorder is the end of a test chain. With batches set it takes batches
// (op.BatchOutput) and counts them; without, it takes records one by one.
type recorder struct {
	events  []event
	batches int
}

func (r *recorder) Collect(ts int64, v int64) error {
	r.events = append(r.events, event{ts: ts, v: v})
	return nil
}

func (r *recorder) EmitWatermark(wm int64) error {
	r.events = append(r.events, event{watermark: true, ts: wm})
	return nil
}

type batchRecorder struct{ recorder }

func (r *batchRecorder) CollectBatch(ts []int64, vs []int64) error {
	r.batches++
	for i, v := range vs {
		r.events = append(r.events, event{ts: op.TimestampAt(ts, i), v: v})
	}
	return nil
}

// testChain is map -> filter -> flatMap -> end, bound as the task binds a
// chain of Chainable operators.
func testChain(end op.Output[int64]) *Map[int64, int64] {
	attr := func(err error) error { return err }
	fm := NewFlatMap(func(v int64, c Collector[int64]) error {
		c.Collect(v)
		if v%5 == 0 {
			c.Collect(-v)
		}
		return nil
	}, nil, end)
	fm.Bind(attr, end.EmitWatermark)
	f := NewFilter(func(v int64) (bool, error) { return v%2 == 0, nil }, nil, op.Output[int64](fm))
	f.Bind(attr, fm.EmitWatermark)
	m := NewMap(func(v int64) (int64, error) { return v * 3, nil }, nil, op.Output[int64](f))
	m.Bind(attr, f.EmitWatermark)
	return m
}

// step is one thing a task does to the head of its chain: a source poll's
// records, a watermark, or a timer that emits a record.
type step struct {
	kind    int // 0: records, 1: watermark, 2: timer
	records []int64
	ts      []int64 // nil: the records have no timestamp
	value   int64
}

// TestBatchPathSameAsRecords checks that a chain fed batches emits what it
// emits when fed the same records one at a time, with watermarks and
// timer output between the batches in the same places, whether its end
// takes batches or not.
func TestBatchPathSameAsRecords(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		steps := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) step {
			s := step{kind: rapid.IntRange(0, 2).Draw(t, "kind"), value: rapid.Int64Range(-50, 50).Draw(t, "value")}
			if s.kind == 0 {
				s.records = rapid.SliceOfN(rapid.Int64Range(-100, 100), 0, 40).Draw(t, "records")
				if rapid.Bool().Draw(t, "timestamps") {
					s.ts = make([]int64, len(s.records))
					for i := range s.ts {
						s.ts[i] = int64(i) * 7
					}
				}
			}
			return s
		}), 0, 30).Draw(t, "steps")

		// One record at a time, as before the batch path.
		want := &recorder{}
		head := testChain(want)
		for _, s := range steps {
			if err := feed(head, s, false); err != nil {
				t.Fatal(err)
			}
		}
		for _, batchEnd := range []bool{false, true} {
			var got *recorder
			var end op.Output[int64]
			if batchEnd {
				b := &batchRecorder{}
				got, end = &b.recorder, b
			} else {
				got = &recorder{}
				end = got
			}
			head := testChain(end)
			for _, s := range steps {
				if err := feed(head, s, true); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got.events, want.events) {
				t.Fatalf("batch end %v: got %v, want %v", batchEnd, got.events, want.events)
			}
			if batchEnd && got.batches == 0 && slices.ContainsFunc(steps, func(s step) bool {
				return slices.ContainsFunc(s.records, func(v int64) bool { return v%2 == 0 })
			}) {
				t.Fatalf("the batch path was not taken")
			}
		}
	})
}

// feed gives one step to the head of a chain, its records as one batch or
// one at a time.
func feed(head *Map[int64, int64], s step, batch bool) error {
	switch s.kind {
	case 1:
		return head.EmitWatermark(s.value)
	case 2:
		return head.Collect(s.value, s.value)
	}
	if batch {
		// The callee may overwrite the batch: give it copies.
		return head.CollectBatch(slices.Clone(s.ts), slices.Clone(s.records))
	}
	for i, v := range s.records {
		if err := head.Collect(op.TimestampAt(s.ts, i), v); err != nil {
			return err
		}
	}
	return nil
}

// TestBatchPathErrors checks that on a user function's error in the middle
// of a batch, what the records before it produced has gone on, as it would
// one record at a time, and the error names the operator.
func TestBatchPathErrors(t *testing.T) {
	for _, failAt := range []int64{0, 3, 9} {
		t.Run(fmt.Sprint(failAt), func(t *testing.T) {
			run := func(batch bool) ([]event, error) {
				end := &batchRecorder{}
				m := NewMap(func(v int64) (int64, error) {
					if v == failAt {
						return 0, fmt.Errorf("bad %d", v)
					}
					return v, nil
				}, nil, op.Output[int64](end))
				m.Bind(func(err error) error { return fmt.Errorf("map: %w", err) }, end.EmitWatermark)
				vs := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
				if batch {
					return end.events, m.CollectBatch(nil, vs)
				}
				for _, v := range vs {
					if err := m.Collect(op.NoTimestamp, v); err != nil {
						return end.events, err
					}
				}
				return end.events, nil
			}
			want, wantErr := run(false)
			got, err := run(true)
			if err == nil || err.Error() != wantErr.Error() {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}
