package keyedop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/keygroup"
	"github.com/weir-engine/weir/internal/op"
)

// timed records what an operator emits with its timestamps.
type timed struct{ out []string }

func (c *timed) Collect(ts int64, v kv) error {
	c.out = append(c.out, fmt.Sprintf("%s=%d@%d", v.K, v.V, ts))
	return nil
}
func (c *timed) EmitWatermark(int64) error { return nil }

// runFiles counts the sort's run files in dir (they are removed at
// Close).
func runFiles(t *testing.T, dir string) int {
	t.Helper()
	runs, err := filepath.Glob(filepath.Join(dir, "weir-sort-run-*"))
	if err != nil {
		t.Fatal(err)
	}
	return len(runs)
}

// A batch Reduce behind Sorted combines each key's records before the
// sort. Whether the partial results fit in memory (one per key) or are
// flushed to the sort and spilled (several per key, combined again), the
// output is each key's sum, once, in key order, with the timestamp of
// the key's last record.
func TestSortedReduceCombines(t *testing.T) {
	for _, tc := range []struct {
		name       string
		keys, n    int
		memory     int
		wantSpills bool
	}{
		{"fits in memory", 50, 5000, 1 << 20, false},
		{"partials flushed and spilled", 2000, 20000, 8 << 10, true},
		{"one key", 1, 3000, 4 << 10, false},
		{"memory below one record", 3, 300, 16, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := &timed{}
			calls := 0
			sum := func(a, b kv) (kv, error) { calls++; a.V += b.V; return a, nil }
			key := func(v kv) string { return v.K }
			r := NewReduce(sum, key, func(k string) uint32 { return uint32(len(k)) }, nil, op.Output[kv](out))
			kc, _ := codec.For[string]()
			vc, _ := codec.For[kv]()
			s, err := Sorted(r, SortSpec[string, kv]{Key: key, KeyCodec: kc, Codec: vc, Memory: tc.memory, Out: out})
			if err != nil {
				t.Fatal(err)
			}
			ctx := &op.Context{MaxParallelism: 128, KeyGroups: keygroup.RangeFor(128, 1, 0), StateBackend: op.StateBackend{LocalDir: dir}}
			if err := s.(op.Operator).Open(ctx); err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			last := map[string]int64{}
			for i := range tc.n {
				v := kv{fmt.Sprintf("k%05d", (i*7919)%tc.keys), i % 13}
				want[v.K] += v.V
				last[v.K] = int64(i)
				if err := s.(op.Input[kv]).ProcessElement(int64(i), v); err != nil {
					t.Fatal(err)
				}
			}
			spilled := runFiles(t, dir)
			if err := s.(op.BoundedInput).EndInput(0); err != nil {
				t.Fatal(err)
			}
			var wantOut []string
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range want {
					if !yield(k) {
						return
					}
				}
			}) {
				wantOut = append(wantOut, fmt.Sprintf("%s=%d@%d", k, want[k], last[k]))
			}
			if !slices.Equal(out.out, wantOut) {
				t.Fatalf("emitted %d results (first %v), want %d (first %v)", len(out.out), out.out[:min(3, len(out.out))], len(wantOut), wantOut[:3])
			}
			if (spilled > 0) != tc.wantSpills {
				t.Fatalf("%d sorted runs spilled, want spills: %v", spilled, tc.wantSpills)
			}
			// Every record but a key's first is folded in once, into a
			// partial or (a partial) by the Reduce after the sort.
			if calls != tc.n-tc.keys {
				t.Fatalf("reduce called %d times, want %d", calls, tc.n-tc.keys)
			}
			if err := s.(op.Operator).Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("Close left %d files", len(left))
			}
		})
	}
}
