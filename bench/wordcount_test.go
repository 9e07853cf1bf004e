package main_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/bench/wordcountloop"
	"github.com/weir-engine/weir/internal/gctune"
	"github.com/weir-engine/weir/jobs/wordcount"
)

// wordcountInput is the 100 MB input of BenchmarkWordcount100MB.
func wordcountInput() (string, error) { return wordcountFile(100) }

// wordcountFiles holds the inputs written so far, by size in MB.
var wordcountFiles = struct {
	sync.Mutex
	paths map[int]string
}{paths: map[int]string{}}

// TestMain removes the word-count inputs the benchmarks wrote (hundreds
// of MB each) when the binary ends.
func TestMain(m *testing.M) {
	code := m.Run()
	wordcountFiles.Lock()
	for _, p := range wordcountFiles.paths {
		os.RemoveAll(filepath.Dir(p))
	}
	wordcountFiles.Unlock()
	os.Exit(code)
}

// wordcountFile writes (once per process and size) a text file of mb MB of
// words (wordcountloop.WriteInput).
func wordcountFile(mb int) (string, error) {
	wordcountFiles.Lock()
	defer wordcountFiles.Unlock()
	if p, ok := wordcountFiles.paths[mb]; ok {
		return p, nil
	}
	dir, err := os.MkdirTemp("", "weir-bench-wordcount")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "input.txt")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if err := wordcountloop.WriteInput(f, mb); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	wordcountFiles.paths[mb] = path
	return path, nil
}

// countLoop is the hand-written single-goroutine program.
func countLoop(path string) (map[string]int64, error) { return wordcountloop.Count(path) }

// BenchmarkWordcount100MB runs the wordcount job on 100 MB beside the
// hand-written loop. Target (issue 14): the job at parallelism 2 in at
// most 0.6x the loop's time on two cores. engine-p2-gctuned runs with the
// Go runtime settings the weir binary's task processes take (GOGC 200
// under a memory limit; package gctune), the others with the process's
// (Go's defaults unless GOGC or GOMEMLIMIT is set). cpu-s/op is the CPU
// time of one run, the comparable figure when other processes load the
// machine. paired-p2 runs the loop and engine-p2-gctuned in turn and
// reports the median of each pair's time ratio (p2/loop), the figure that
// holds when the machine's speed drifts between sub-benchmarks.
func BenchmarkWordcount100MB(b *testing.B) {
	path, err := wordcountInput()
	if err != nil {
		b.Fatal(err)
	}
	want, err := countLoop(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("loop", func(b *testing.B) {
		start, cpu := time.Now(), processCPU()
		for range b.N {
			if _, err := countLoop(path); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(100*float64(b.N)/time.Since(start).Seconds(), "MB/s")
		b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	for _, c := range []struct {
		p     int
		tuned bool
	}{{1, false}, {2, false}, {2, true}} {
		name := fmt.Sprintf("engine-p%d", c.p)
		if c.tuned {
			name += "-gctuned"
		}
		b.Run(name, func(b *testing.B) {
			start, cpu, checking := time.Now(), processCPU(), time.Duration(0)
			for range b.N {
				out := runWordcount(b, path, c.p, c.tuned)
				b.StopTimer()
				c := processCPU()
				checkWordcount(b, out, want)
				checking += processCPU() - c
				b.StartTimer()
			}
			b.ReportMetric(100*float64(b.N)/time.Since(start).Seconds(), "MB/s")
			b.ReportMetric((processCPU()-cpu-checking).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
	b.Run("paired-p2", func(b *testing.B) {
		ratios := make([]float64, 0, b.N)
		for range b.N {
			start := time.Now()
			if _, err := countLoop(path); err != nil {
				b.Fatal(err)
			}
			loop := time.Since(start)
			start = time.Now()
			out := runWordcount(b, path, 2, true)
			ratios = append(ratios, time.Since(start).Seconds()/loop.Seconds())
			b.StopTimer()
			checkWordcount(b, out, want)
			b.StartTimer()
		}
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], "p2/loop")
	})
}

// runWordcount runs the wordcount job on path at parallelism p, with the
// task processes' Go runtime settings if tuned, and returns its output
// directory.
func runWordcount(b *testing.B, path string, p int, tuned bool) string {
	if tuned {
		// As `weir run` and `weir taskmanager` do (package gctune); the
		// process's settings are back when the job is done.
		defer gctune.Configure(0, slog.New(slog.DiscardHandler))()
	}
	out := b.TempDir()
	env := weir.NewEnv(weir.WithParallelism(p))
	if err := wordcount.Wordcount(env, []string{path}, out); err != nil {
		b.Fatal(err)
	}
	if _, err := env.Execute(context.Background(), "wordcount"); err != nil {
		b.Fatal(err)
	}
	return out
}

// processCPU is the CPU time (user and system) the process used so far,
// over all its threads. Beside the wall time it shows the work a run did
// on a machine whose other load steals cores.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func checkWordcount(b *testing.B, dir string, want map[string]int64) {
	files, _ := filepath.Glob(filepath.Join(dir, "part-*"))
	got := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			word, count, _ := strings.Cut(line, "\t")
			if fmt.Sprint(want[word]) != count {
				b.Fatalf("count(%q) = %s, want %d", word, count, want[word])
			}
			got++
		}
	}
	if got != len(want) {
		b.Fatalf("%d words in the output, want %d", got, len(want))
	}
}
