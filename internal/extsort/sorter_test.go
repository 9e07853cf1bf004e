package extsort

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

type kv struct{ k, v string }

func TestSorterStableOrder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, budget  int
		wantSpills bool
	}{
		{"empty", 0, 1 << 20, false},
		{"in memory", 1000, 1 << 20, false},
		{"spills", 5000, 4 << 10, true},
		{"every record spills", 50, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(1, uint64(tc.n)))
			s := New(dir, tc.budget)
			var in []kv
			for i := range tc.n {
				r := kv{fmt.Sprintf("key-%d", rng.IntN(97)), fmt.Sprintf("value-%d", i)}
				in = append(in, r)
				if err := s.Add([]byte(r.k), []byte(r.v)); err != nil {
					t.Fatal(err)
				}
			}
			it, err := s.Sorted()
			if err != nil {
				t.Fatal(err)
			}
			var got []kv
			for it.Next() {
				got = append(got, kv{string(it.Key()), string(it.Value())})
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
			it.Close()
			want := slices.Clone(in)
			slices.SortStableFunc(want, func(a, b kv) int { return bytes.Compare([]byte(a.k), []byte(b.k)) })
			if !slices.Equal(got, want) {
				t.Fatalf("sorted output differs from a stable sort: %d records, want %d", len(got), len(want))
			}
			if (s.Spills > 0) != tc.wantSpills {
				t.Fatalf("spills = %d, want spills: %v", s.Spills, tc.wantSpills)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Fatalf("Close left %d run files", len(left))
			}
		})
	}
}

func TestSorterTruncatedRun(t *testing.T) {
	dir := t.TempDir()
	s := New(dir, 64)
	defer s.Close()
	for i := range 20 {
		if err := s.Add([]byte(fmt.Sprint(i%3)), bytes.Repeat([]byte{'v'}, 40)); err != nil {
			t.Fatal(err)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "weir-sort-run-*"))
	if len(runs) == 0 {
		t.Fatal("no run was spilled")
	}
	fi, err := os.Stat(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(runs[0], fi.Size()-5); err != nil {
		t.Fatal(err)
	}
	// The damage shows when the merge reaches it: at once, or later.
	it, err := s.Sorted()
	if err == nil {
		for it.Next() {
		}
		err = it.Err()
		it.Close()
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading a truncated run: err = %v, want io.ErrUnexpectedEOF", err)
	}
}
