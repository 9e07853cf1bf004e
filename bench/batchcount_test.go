package main_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir"
)

// groupByInputMB is the size of BenchmarkGroupByKeyCount's input
// (WEIR_BENCH_GROUPBY_MB, default 100; the full figure is 1024).
func groupByInputMB() int {
	if n, err := strconv.Atoi(os.Getenv("WEIR_BENCH_GROUPBY_MB")); err == nil && n > 0 {
		return n
	}
	return 100
}

// groupByFile writes mb MB of keys, one per line, drawn Zipf-like from
// 100,000 keys.
func groupByFile(b *testing.B, mb int) string {
	path := filepath.Join(b.TempDir(), "keys.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(7, 7))
	zipf := rand.NewZipf(r, 1.1, 1, 99_999)
	for written := 0; written < mb<<20; {
		n, _ := fmt.Fprintf(w, "key%06d\n", zipf.Uint64())
		written += n
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

type keyCount struct {
	Key   string
	Count int64
}

// groupByCount runs the keyed count of path's lines in mode and returns
// the records its sink received.
func groupByCount(b *testing.B, path string, mode weir.RuntimeMode) int64 {
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMode(mode), weir.WithStateBackend(weir.StateBackend{LocalDir: b.TempDir()}))
	pairs := weir.Map(weir.ReadTextFile(env, path), func(line string) (keyCount, error) { return keyCount{line, 1}, nil })
	counts := weir.Reduce(weir.KeyBy(pairs, func(c keyCount) string { return c.Key }),
		func(a, c keyCount) (keyCount, error) { return keyCount{a.Key, a.Count + c.Count}, nil })
	var out atomic.Int64
	weir.AddSink(counts, func(keyCount) error { out.Add(1); return nil })
	if _, err := env.Execute(context.Background(), "group-by-key count"); err != nil {
		b.Fatal(err)
	}
	return out.Load()
}

// BenchmarkGroupByKeyCount counts the lines of each key of the same file
// in batch mode, in streaming mode, and with coreutils' sort | uniq -c.
//
//	WEIR_BENCH_GROUPBY_MB=100 go test ./bench -run xxx -bench GroupByKeyCount -benchtime 1x
func BenchmarkGroupByKeyCount(b *testing.B) {
	mb := groupByInputMB()
	path := groupByFile(b, mb)
	for _, mode := range []weir.RuntimeMode{weir.Batch, weir.Streaming} {
		b.Run(mode.String(), func(b *testing.B) {
			b.SetBytes(int64(mb) << 20)
			var emitted int64
			for range b.N {
				emitted = groupByCount(b, path, mode)
			}
			b.ReportMetric(float64(emitted), "records-out")
		})
	}
	b.Run("sort-uniq", func(b *testing.B) {
		if _, err := exec.LookPath("sort"); err != nil {
			b.Skip("no sort")
		}
		b.SetBytes(int64(mb) << 20)
		for range b.N {
			cmd := exec.Command("sh", "-c", `LC_ALL=C sort -S 256M -T "$TMPDIR" "$1" | uniq -c | wc -l`, "sh", path)
			cmd.Env = append(os.Environ(), "TMPDIR="+b.TempDir())
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			n, _ := strconv.Atoi(string(out[:len(out)-1]))
			b.ReportMetric(float64(n), "records-out")
		}
	})
}
