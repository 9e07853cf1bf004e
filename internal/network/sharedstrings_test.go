package network_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// row is a record with strings, the shape the shared allocation is for.
type row struct {
	ID         int64
	Name, City string
	Extra      []byte
}

// rowInput keeps every row it is handed (as a sink that buffers would).
type rowInput struct{ rows []row }

func (r *rowInput) ProcessElement(_ int64, v row) error {
	r.rows = append(r.rows, v)
	return nil
}

func (r *rowInput) CollectBatch(_ []int64, vs []row) error {
	r.rows = append(r.rows, vs...)
	return nil
}

// keyedRowInput also takes key groups: a keyed operator's input.
type keyedRowInput struct{ rowInput }

func (k *keyedRowInput) CollectKeyedBatch(ts []int64, _ []uint16, vs []row) error {
	return k.CollectBatch(ts, vs)
}

func rowCodec(t testing.TB) codec.Codec[row] {
	t.Helper()
	c, err := codec.For[row]()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rowBuffer is a data buffer of n rows with keyed frames (key group 3).
func rowBuffer(t testing.TB, n int) ([]byte, []row) {
	c := rowCodec(t)
	var buf []byte
	var want []row
	for i := range n {
		r := row{ID: int64(i), Name: fmt.Sprintf("name-%d", i), City: "city", Extra: []byte{byte(i), 1, 2}}
		want = append(want, r)
		buf = append(buf, network.TagKeyedRecord, 3, 0)
		buf = c.Append(buf, r)
	}
	return buf, want
}

// The rows an unkeyed batch input gets are those sent, also after the
// network buffer is overwritten (it is recycled), and appending to one's
// byte slice leaves its neighbours as they were; a keyed input gets the
// same rows.
func TestSharedStringsSurviveTheBuffer(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		t.Run(fmt.Sprintf("keyed=%v", keyed), func(t *testing.T) {
			buf, want := rowBuffer(t, 200)
			var in op.Input[row]
			var got *rowInput
			if keyed {
				k := &keyedRowInput{}
				in, got = k, &k.rowInput
			} else {
				r := &rowInput{}
				in, got = r, r
			}
			if _, err := network.NewBatchReader(rowCodec(t), in).Deliver(buf, nil, nil); err != nil {
				t.Fatal(err)
			}
			for i := range buf {
				buf[i] = 0xEE
			}
			_ = append(got.rows[0].Extra, 0xFF, 0xFF, 0xFF, 0xFF)
			if !slices.EqualFunc(got.rows, want, func(a, b row) bool {
				return a.ID == b.ID && a.Name == b.Name && a.City == b.City && string(a.Extra) == string(b.Extra)
			}) {
				t.Fatalf("got %d rows, first %+v; want %d, first %+v", len(got.rows), got.rows[0], len(want), want[0])
			}
		})
	}
}

// Decoding a buffer of rows for an unkeyed batch input costs a few
// allocations for all its strings and byte slices, not one per field; a
// keyed input, whose state may keep any one of them, still pays one per
// field. Records without strings allocate nothing either way.
func TestSharedStringsAllocations(t *testing.T) {
	skipUnderRace(t)
	buf, _ := rowBuffer(t, 200)
	allocs := func(in interface {
		op.Input[row]
		reset()
	}) float64 {
		r := network.NewBatchReader(rowCodec(t), op.Input[row](in))
		return testing.AllocsPerRun(20, func() {
			in.reset()
			if _, err := r.Deliver(buf, nil, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	unkeyed := allocs(&discardRows{})
	keyed := allocs(&discardKeyedRows{})
	if unkeyed > 4 {
		t.Errorf("unkeyed input: %v allocations for 200 rows, want at most 4 (one shared allocation)", unkeyed)
	}
	if keyed < 600 {
		t.Errorf("keyed input: %v allocations for 200 rows, want at least 600 (one per string and byte slice)", keyed)
	}
	ints := elements(t)
	r := network.NewBatchReader[int](intCodec(t), discardInts{})
	noop := func(int64) error { return nil }
	if n := testing.AllocsPerRun(20, func() {
		if _, err := r.Deliver(ints, noop, func(bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("ints: %v allocations per buffer, want none", n)
	}
}

type discardInts struct{}

func (discardInts) ProcessElement(int64, int) error       { return nil }
func (discardInts) CollectBatch(_ []int64, _ []int) error { return nil }

// discardRows takes batches and keeps nothing.
type discardRows struct{ n int }

func (d *discardRows) ProcessElement(int64, row) error        { d.n++; return nil }
func (d *discardRows) CollectBatch(_ []int64, vs []row) error { d.n += len(vs); return nil }
func (d *discardRows) reset()                                 { d.n = 0 }

type discardKeyedRows struct{ discardRows }

func (d *discardKeyedRows) CollectKeyedBatch(ts []int64, _ []uint16, vs []row) error {
	return d.CollectBatch(ts, vs)
}

// skipUnderRace skips an allocation budget under the race detector.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceEnabled {
		t.Skip("allocation budgets are checked without -race")
	}
}

// BenchmarkReaderStrings decodes buffers of 200 rows with two strings and
// a byte slice each for an unkeyed batch input (the strings of a buffer in
// one allocation) and, as the baseline in the same run, for a keyed one
// (one allocation per field).
//
//	go test ./internal/network -run xxx -bench ReaderStrings -count 6
func BenchmarkReaderStrings(b *testing.B) {
	buf, _ := rowBuffer(b, 200)
	for _, bc := range []struct {
		name string
		in   op.Input[row]
	}{
		{"shared", &discardRows{}},
		{"per-field", &discardKeyedRows{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			r := network.NewBatchReader(rowCodec(b), bc.in)
			b.ReportAllocs()
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				if _, err := r.Deliver(buf, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*200), "ns/record")
		})
	}
}
