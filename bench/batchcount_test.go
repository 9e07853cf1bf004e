package main_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/cputime"
)

// groupByInputMB is the size of BenchmarkGroupByKeyCount's input
// (WEIR_BENCH_GROUPBY_MB, default 100; the full figure is 1024).
func groupByInputMB() int {
	if n, err := strconv.Atoi(os.Getenv("WEIR_BENCH_GROUPBY_MB")); err == nil && n > 0 {
		return n
	}
	return 100
}

// groupByFile writes size bytes (whole lines) of keys, one per line,
// drawn Zipf-like from 100,000 keys with a fixed seed, into dir.
func groupByFile(tb testing.TB, dir string, size int) string {
	path := filepath.Join(dir, "keys.txt")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(7, 7))
	zipf := rand.NewZipf(r, 1.1, 1, 99_999)
	for written := 0; written < size; {
		n, _ := fmt.Fprintf(w, "key%06d\n", zipf.Uint64())
		written += n
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		tb.Fatal(err)
	}
	return path
}

type keyCount struct {
	Key   string
	Count int64
}

// finalCounts gathers the final count of every key from the subtasks of
// a finalCountSink.
type finalCounts struct {
	sync.Mutex
	m map[string]int64
}

// finalCountSink keeps its subtask's largest count per key (a running
// count's last, in streaming; the only one, in batch) and hands them to
// the job's finalCounts when its input ends.
type finalCountSink struct {
	counts map[string]int64
	into   *finalCounts
}

func (s *finalCountSink) Open(*weir.RuntimeContext) error {
	s.counts = map[string]int64{}
	return nil
}

func (s *finalCountSink) Invoke(c keyCount) error {
	s.counts[c.Key] = max(s.counts[c.Key], c.Count)
	return nil
}

func (s *finalCountSink) Finish() error {
	s.into.Lock()
	defer s.into.Unlock()
	for k, n := range s.counts {
		s.into.m[k] += n // the subtasks' keys are disjoint
	}
	return nil
}

// groupByCount runs the keyed count of path's lines in mode, at
// parallelism 2, and returns each key's final count.
func groupByCount(tb testing.TB, path string, mode weir.RuntimeMode) map[string]int64 {
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithMode(mode), weir.WithStateBackend(weir.StateBackend{LocalDir: tb.TempDir()}))
	pairs := weir.Map(weir.ReadTextFile(env, path), func(line string) (keyCount, error) { return keyCount{line, 1}, nil })
	counts := weir.Reduce(weir.KeyBy(pairs, func(c keyCount) string { return c.Key }),
		func(a, c keyCount) (keyCount, error) { return keyCount{a.Key, a.Count + c.Count}, nil })
	out := &finalCounts{m: map[string]int64{}}
	weir.AddSinkWith(counts, weir.SinkFunction[keyCount](&finalCountSink{into: out}))
	if _, err := env.Execute(context.Background(), "group-by-key count"); err != nil {
		tb.Fatal(err)
	}
	return out.m
}

// sortUniqCount counts path's lines with `LC_ALL=C sort | uniq -c`,
// sorting in tmp, and returns the counts and the CPU time of the
// pipeline's processes.
func sortUniqCount(tb testing.TB, path, tmp string) (map[string]int64, time.Duration) {
	cmd := exec.Command("sh", "-c", `LC_ALL=C sort -S 256M -T "$2" "$1" | LC_ALL=C uniq -c`, "sh", path, tmp)
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("sort | uniq -c: %v", err)
	}
	counts := map[string]int64{}
	for line := range bytes.Lines(out) {
		f := bytes.Fields(line)
		if len(f) != 2 {
			tb.Fatalf("sort | uniq -c: line %q", line)
		}
		n, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			tb.Fatalf("sort | uniq -c: line %q: %v", line, err)
		}
		counts[string(f[1])] = n
	}
	return counts, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// lineCounts is the reference: a map of the file's lines.
func lineCounts(tb testing.TB, path string) map[string]int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	counts := map[string]int64{}
	for line := range bytes.Lines(data) {
		counts[string(bytes.TrimSuffix(line, []byte("\n")))]++
	}
	return counts
}

// The three ways of BenchmarkGroupByKeyCount agree with each other and
// with a plain count, on a small input.
func TestGroupByKeyCountAgrees(t *testing.T) {
	if _, err := exec.LookPath("sort"); err != nil {
		t.Skip("no sort")
	}
	path := groupByFile(t, t.TempDir(), 256<<10)
	want := lineCounts(t, path)
	if len(want) < 1000 {
		t.Fatalf("the input has %d keys; the test wants many", len(want))
	}
	for _, mode := range []weir.RuntimeMode{weir.Batch, weir.Streaming} {
		if got := groupByCount(t, path, mode); !maps.Equal(got, want) {
			t.Errorf("%v: %d keys, want %d; counts differ", mode, len(got), len(want))
		}
	}
	if got, _ := sortUniqCount(t, path, t.TempDir()); !maps.Equal(got, want) {
		t.Errorf("sort | uniq -c: %d keys, want %d; counts differ", len(got), len(want))
	}
}

// BenchmarkGroupByKeyCount counts the lines of each key of the same file
// in batch mode, in streaming mode, and with coreutils' sort | uniq -c,
// and checks that the three agree. Each reports its CPU seconds per run
// (cpu-s: the process's, or the pipeline's), steadier on the shared
// machine than the wall time; the input and sort files live in the
// benchmark's temporary directory and are removed with it.
//
//	WEIR_BENCH_GROUPBY_MB=1024 go test ./bench -run xxx -bench GroupByKeyCount -benchtime 1x
func BenchmarkGroupByKeyCount(b *testing.B) {
	mb := groupByInputMB()
	path := groupByFile(b, b.TempDir(), mb<<20)
	var reference map[string]int64
	agree := func(b *testing.B, name string, got map[string]int64) {
		b.Helper()
		if reference == nil {
			reference = got
		} else if !maps.Equal(got, reference) {
			b.Fatalf("%s: %d keys, differs from the first result (%d keys)", name, len(got), len(reference))
		}
	}
	for _, mode := range []weir.RuntimeMode{weir.Batch, weir.Streaming} {
		b.Run(mode.String(), func(b *testing.B) {
			b.SetBytes(int64(mb) << 20)
			cpu0, err := cputime.Process()
			if err != nil {
				b.Fatal(err)
			}
			var got map[string]int64
			for range b.N {
				got = groupByCount(b, path, mode)
			}
			cpu, err := cputime.Process()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric((cpu-cpu0).Seconds()/float64(b.N), "cpu-s")
			b.ReportMetric(float64(len(got)), "keys")
			agree(b, mode.String(), got)
		})
	}
	b.Run("sort-uniq", func(b *testing.B) {
		if _, err := exec.LookPath("sort"); err != nil {
			b.Skip("no sort")
		}
		b.SetBytes(int64(mb) << 20)
		var got map[string]int64
		var cpu time.Duration
		for range b.N {
			var c time.Duration
			got, c = sortUniqCount(b, path, b.TempDir())
			cpu += c
		}
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s")
		b.ReportMetric(float64(len(got)), "keys")
		agree(b, "sort | uniq -c", got)
	})
}
