package cache

import (
	"bufio"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/codec"
	"github.com/weir-engine/weir/internal/cputime"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
)

// collected is an op.Output that keeps what it is given.
type collected[T any] struct{ vs []T }

func (c *collected[T]) Collect(_ int64, v T) error { c.vs = append(c.vs, v); return nil }
func (c *collected[T]) EmitWatermark(int64) error  { return nil }

// write produces a one-partition dataset d1 of vs through a Writer.
func write[T any](t testing.TB, r *Registry, vs []T) (*Dataset, *collected[T]) {
	t.Helper()
	return writeID(t, r, "d1", vs)
}

// writeID produces a one-partition dataset id of vs through a Writer.
func writeID[T any](t testing.TB, r *Registry, id string, vs []T) (*Dataset, *collected[T]) {
	t.Helper()
	prod, out := produce(t, r, id, vs)
	if !r.Commit(prod) {
		t.Fatal("the dataset was not created")
	}
	ds, ok := r.Lookup(id)
	if !ok {
		t.Fatalf("dataset %s not found after it was created", id)
	}
	return ds, out
}

// commitOne produces dataset id of vs and reports whether Commit kept it.
func commitOne[T any](t testing.TB, r *Registry, id string, vs []T) bool {
	t.Helper()
	prod, _ := produce(t, r, id, vs)
	return r.Commit(prod)
}

// produce writes a one-partition production of dataset id.
func produce[T any](t testing.TB, r *Registry, id string, vs []T) (*Production, *collected[T]) {
	t.Helper()
	c, err := codec.For[T]()
	if err != nil {
		t.Fatal(err)
	}
	prod, err := r.Begin(id, "test", 1)
	if err != nil {
		t.Fatal(err)
	}
	out := &collected[T]{}
	w := NewWriter(prod, c, out)
	if err := w.Open(&op.Context{}); err != nil {
		t.Fatal(err)
	}
	for i, v := range vs {
		if err := w.ProcessElement(int64(i), v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	return prod, out
}

func readAll[T any](ds *Dataset) ([]T, []int64, error) {
	c, _ := codec.For[T]()
	var vs []T
	var ts []int64
	rd, err := OpenReader(ds.ID, ds.Partitions[0], c, func(t int64, v T) error { vs = append(vs, v); ts = append(ts, t); return nil })
	if err != nil {
		return nil, nil, err
	}
	defer rd.Close()
	for {
		_, done, err := rd.Read(100)
		if err != nil || done {
			return vs, ts, err
		}
	}
}

// A written dataset reads back whole, with timestamps, across regions;
// damage is a ReadError wrapping the partition's own error.
func TestWriteReadAndDamage(t *testing.T) {
	r := NewRegistry(Options{Dir: t.TempDir(), RegionBytes: 64 << 10})
	defer r.Close()
	var vs []string
	for i := range 20000 {
		vs = append(vs, strings.Repeat("x", i%50))
	}
	ds, fwd := write(t, r, vs)
	if len(fwd.vs) != len(vs) || ds.Records() != int64(len(vs)) {
		t.Fatalf("forwarded %d, recorded %d, want %d", len(fwd.vs), ds.Records(), len(vs))
	}
	got, ts, err := readAll[string](ds)
	if err != nil || !slices.Equal(got, vs) || ts[123] != 123 {
		t.Fatalf("read %d records, %v", len(got), err)
	}
	b, _ := os.ReadFile(ds.Partitions[0].Data)
	b[len(b)-100] ^= 1
	if err := os.WriteFile(ds.Partitions[0].Data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = readAll[string](ds)
	if id, ok := Lost(err); !ok || id != "d1" || !errors.Is(err, network.ErrCorruptPartition) {
		t.Fatalf("damaged partition: %v", err)
	}
	if err := r.Release("d1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ds.Partitions[0].Data); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("released data file: %v", err)
	}
}

// benchRecords is the dataset of the read benchmarks: 100-byte strings.
func benchRecords(n int) []string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = strings.Repeat(string(rune('a'+i%26)), 100)
	}
	return vs
}

// BenchmarkReadPartition reads a cached partition of 64 MiB-ish: raw
// (buffers, CRC-checked) and decoded into records, beside a plain bufio
// loop over the same data file.
func BenchmarkReadPartition(b *testing.B) {
	r := NewRegistry(Options{Dir: b.TempDir()})
	defer r.Close()
	ds, _ := write(b, r, benchRecords(600000))
	p := ds.Partitions[0]
	b.Run("bufio baseline", func(b *testing.B) {
		b.SetBytes(p.Bytes)
		buf := make([]byte, 1<<20)
		for b.Loop() {
			f, err := os.Open(p.Data)
			if err != nil {
				b.Fatal(err)
			}
			br := bufio.NewReaderSize(f, 1<<20)
			for {
				if _, err := br.Read(buf); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
			f.Close()
		}
	})
	b.Run("partition buffers", func(b *testing.B) {
		b.SetBytes(p.Bytes)
		for b.Loop() {
			rd, err := network.OpenPartitionFile(p.Data, p.Index, 0)
			if err != nil {
				b.Fatal(err)
			}
			for {
				_, ok, err := rd.Next()
				if err != nil {
					b.Fatal(err)
				}
				if !ok {
					break
				}
			}
			rd.Close()
		}
	})
	b.Run("records", func(b *testing.B) {
		b.SetBytes(p.Bytes)
		c, _ := codec.For[string]()
		cpu0, err := cputime.Process()
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			n := 0
			rd, err := OpenReader(ds.ID, p, c, func(_ int64, v string) error { n += len(v); return nil })
			if err != nil {
				b.Fatal(err)
			}
			for done := false; !done; {
				if _, done, err = rd.Read(1 << 16); err != nil {
					b.Fatal(err)
				}
			}
			rd.Close()
			if n != 600000*100 {
				b.Fatal(n)
			}
		}
		cpu, err := cputime.Process()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.N)*float64(p.Bytes)/1e6/(cpu-cpu0).Seconds(), "MB/cpu-s")
	})
}
