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
	"time"

	"github.com/weir-engine/weir/internal/cputime"
)

type kv struct{ k, v string }

func TestSorterStableOrder(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n, budget  int
		keys       int // distinct keys drawn from
		wantSpills bool
	}{
		{"empty", 0, 1 << 20, 97, false},
		{"in memory", 1000, 1 << 20, 97, false},
		{"spills", 5000, 4 << 10, 97, true},
		{"every record spills", 50, 1, 97, true},
		{"one key", 3000, 16 << 10, 1, true},
		{"mostly distinct keys", 5000, 32 << 10, 1 << 30, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rng := rand.New(rand.NewPCG(1, uint64(tc.n)))
			s := New(dir, tc.budget)
			var in []kv
			for i := range tc.n {
				r := kv{fmt.Sprintf("key-%d", rng.IntN(tc.keys)), fmt.Sprintf("value-%d", i)}
				if i%7 == 0 {
					r.v = "" // empty values are records too
				}
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

// TestSorterEmptyKey sorts records whose key is empty (the encoding of a
// zero-length key) before all others, in memory and through a spill.
func TestSorterEmptyKey(t *testing.T) {
	for _, budget := range []int{1 << 20, 100} {
		s := New(t.TempDir(), budget)
		in := []kv{{"b", "1"}, {"", "2"}, {"a", "3"}, {"", "4"}, {"b", "5"}}
		for _, r := range in {
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
		it.Close()
		want := []kv{{"", "2"}, {"", "4"}, {"a", "3"}, {"b", "1"}, {"b", "5"}}
		if err := errors.Join(it.Err(), s.Close()); err != nil || !slices.Equal(got, want) {
			t.Fatalf("budget %d: got %v, %v; want %v", budget, got, err, want)
		}
	}
}

// BenchmarkSorter sorts a million records whose keys are drawn Zipf-like
// from 100,000 (a group-by count's input) or are all distinct, in memory
// and spilling to runs of 8 MB.
//
//	go test ./internal/extsort -run xxx -bench Sorter -benchtime 3x
func BenchmarkSorter(b *testing.B) {
	const n = 1 << 20
	zipf := make([][]byte, n)
	distinct := make([][]byte, n)
	rng := rand.New(rand.NewPCG(7, 7))
	z := rand.NewZipf(rng, 1.1, 1, 99_999)
	for i := range n {
		zipf[i] = fmt.Appendf(nil, "key%06d", z.Uint64())
		distinct[i] = fmt.Appendf(nil, "key%09d", rng.Uint32())
	}
	value := bytes.Repeat([]byte{'v'}, 20)
	for _, keys := range []struct {
		name string
		keys [][]byte
	}{{"zipf", zipf}, {"distinct", distinct}} {
		for _, budget := range []int{1 << 30, 8 << 20} {
			b.Run(fmt.Sprintf("%s/budget=%dMB", keys.name, budget>>20), func(b *testing.B) {
				cpu0 := cpuTime(b)
				for b.Loop() {
					s := New(b.TempDir(), budget)
					for _, k := range keys.keys {
						if err := s.Add(k, value); err != nil {
							b.Fatal(err)
						}
					}
					it, err := s.Sorted()
					if err != nil {
						b.Fatal(err)
					}
					got := 0
					for it.Next() {
						got++
					}
					it.Close()
					if err := errors.Join(it.Err(), s.Close()); err != nil || got != n {
						b.Fatalf("%d records, %v", got, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
				b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N*n), "cpu-ns/record")
			})
		}
	}
}

// cpuTime is the process's CPU time (see package cputime).
func cpuTime(b *testing.B) time.Duration {
	d, err := cputime.Process()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
