package typeinfo_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// recorder is an output that notes what it gets, as "value@timestamp".
type recorder struct{ got []string }

func (r *recorder) Collect(ts int64, v string) error {
	r.got = append(r.got, fmt.Sprintf("%s@%d", v, ts))
	return nil
}

func (r *recorder) EmitWatermark(int64) error { return nil }

// scribbler takes batches and, as op.BatchOutput allows, overwrites the
// slices it is given once it has read them (a filter compacts them in
// place).
type scribbler struct{ recorder }

func (s *scribbler) CollectBatch(ts []int64, vs []string) error {
	for i, v := range vs {
		s.Collect(op.TimestampAt(ts, i), v)
	}
	for i := range vs {
		vs[i] = "overwritten"
		if ts != nil {
			ts[i] = -1
		}
	}
	return nil
}

// A fan-out to outputs one of which takes batches hands every output the records of a batch in order, with
// their timestamps, whether the output takes batches or records and
// wherever it stands among the outputs; an output that overwrites its
// batch changes nothing for those after it.
func TestFanOutBatchGivesEveryOutputTheRecords(t *testing.T) {
	type output interface {
		op.Output[string]
		recorded() []string
	}
	kinds := map[string]func() output{
		"batch":   func() output { return &scribblerOut{} },
		"records": func() output { return &recorderOut{} },
	}
	orders := [][]string{
		{"batch", "batch"}, {"batch", "records"}, {"records", "batch"},
		{"batch", "records", "batch"}, {"records", "batch", "records"},
	}
	for _, order := range orders {
		for _, withTS := range []bool{true, false} {
			t.Run(fmt.Sprint(order, withTS), func(t *testing.T) {
				outs := make([]output, len(order))
				anys := make([]any, len(order))
				for i, k := range order {
					outs[i] = kinds[k]()
					anys[i] = outs[i]
				}
				f, err := typeinfo.New[string]().FanOut(anys)
				if err != nil {
					t.Fatal(err)
				}
				vs := []string{"a", "b", "c"}
				var ts []int64
				want := []string{fmt.Sprintf("a@%d", op.NoTimestamp), fmt.Sprintf("b@%d", op.NoTimestamp), fmt.Sprintf("c@%d", op.NoTimestamp)}
				if withTS {
					ts = []int64{10, 20, 30}
					want = []string{"a@10", "b@20", "c@30"}
				}
				b, ok := f.(op.BatchOutput[string])
				if !ok {
					t.Fatalf("a fan-out to %v does not take batches", order)
				}
				if err := b.CollectBatch(ts, vs); err != nil {
					t.Fatal(err)
				}
				for i, o := range outs {
					if got := o.recorded(); !reflect.DeepEqual(got, want) {
						t.Errorf("output %d (%s) got %v, want %v", i, order[i], got, want)
					}
				}
			})
		}
	}
}

// A fan-out to outputs none of which takes batches takes records only.
func TestFanOutOfRecordOutputsTakesNoBatches(t *testing.T) {
	f, err := typeinfo.New[string]().FanOut([]any{&recorderOut{}, &recorderOut{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.(op.BatchOutput[string]); ok {
		t.Fatal("the fan-out takes batches though none of its outputs does")
	}
}

type scribblerOut struct{ scribbler }

func (s *scribblerOut) recorded() []string { return s.got }

type recorderOut struct{ recorder }

func (r *recorderOut) recorded() []string { return r.got }
