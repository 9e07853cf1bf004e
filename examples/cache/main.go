// Command cache runs the example of FLIP-205 (cache in DataStream for
// batch processing) on Weir: interactive exploration of a text file, where
// every step is an execution of the same Env, and the cached streams let
// later steps skip what is upstream of them.
//
//	sample = read the text file, cached
//	collect 10 lines of sample                      (computes and caches sample)
//	preprocessed = flat-map sample (expensive), cached
//	count preprocessed                              (reads sample, caches preprocessed)
//	count the positive ones of preprocessed         (reads preprocessed)
//	keyBy(word) reduce preprocessed, collect        (reads preprocessed)
//
// Each step prints how long it took and whether it read a cache:
//
//	go run ./examples/cache
//	go run ./examples/cache -no-cache        # the same steps, recomputing
//	go run ./examples/cache -lines 20000 -work 200
//
// With -cache-dir the caches outlive the program (weir.WithCacheDir): run
// it twice on the same -input and the second run reads every step from the
// first run's caches; it prints how often the expensive step ran (0 then).
// Touching the input file makes the next run compute again.
//
//	go run ./examples/cache -input words.txt -cache-dir /tmp/weir-caches
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/weir-engine/weir"
)

// Config is what one run does.
type Config struct {
	// Input is the text file; empty: one of Lines generated lines in a
	// temporary directory.
	Input string
	Lines int
	// Work is the rounds of SHA-256 of the expensive step, per word.
	Work int
	// NoCache runs the same steps without Cache.
	NoCache     bool
	Parallelism int
	// CacheDir keeps the caches beyond the run (weir.WithCacheDir).
	CacheDir string
}

// Step is what one step did.
type Step struct {
	Name      string
	Result    string
	Took      time.Duration
	ReadCache bool
}

func main() {
	var c Config
	flag.StringVar(&c.Input, "input", "", "text file to explore (default: a generated one)")
	flag.IntVar(&c.Lines, "lines", 10000, "lines of the generated file")
	flag.IntVar(&c.Work, "work", 100, "rounds of SHA-256 per word in the expensive step")
	flag.BoolVar(&c.NoCache, "no-cache", false, "run the steps without caching")
	flag.IntVar(&c.Parallelism, "parallelism", 2, "parallelism")
	flag.StringVar(&c.CacheDir, "cache-dir", "", "keep the caches in this directory for later runs")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := Run(ctx, os.Stdout, c); err != nil {
		fmt.Fprintln(os.Stderr, "cache:", err)
		os.Exit(1)
	}
	fmt.Printf("expensive step ran %d times\n", expensiveCalls.Load())
}

// expensiveCalls counts the runs of the expensive step in this process.
var expensiveCalls atomic.Int64

// Token is a word of a line with the result of the expensive step.
type Token struct {
	Word     string
	Score    int
	Positive bool
}

// WordCount is a word and how often it occurs.
type WordCount struct {
	Word  string
	Count int
}

// Run runs the steps, printing one line per step to out.
func Run(ctx context.Context, out io.Writer, c Config) ([]Step, error) {
	if c.Input == "" {
		dir, err := os.MkdirTemp("", "weir-cache-example-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		c.Input = filepath.Join(dir, "sample.txt")
		if err := writeSample(c.Input, c.Lines); err != nil {
			return nil, err
		}
	}
	env := weir.NewEnv(weir.WithMode(weir.Batch), weir.WithParallelism(max(c.Parallelism, 1)), weir.WithCacheDir(c.CacheDir))
	defer env.Close()

	cached := func(s weir.DataStream[string]) (weir.DataStream[string], func() bool) {
		if c.NoCache {
			return s, func() bool { return false }
		}
		cs := weir.Cache(s)
		return cs.DataStream, cs.IsCached
	}
	sample, sampleCached := cached(weir.ReadTextFile(env, c.Input))
	var steps []Step
	step := func(name string, readsCache func() bool, f func() (string, error)) error {
		read := readsCache()
		start := time.Now()
		res, err := f()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		s := Step{Name: name, Result: res, Took: time.Since(start), ReadCache: read}
		steps = append(steps, s)
		fmt.Fprintf(out, "%-44s %-28s %10v  read cache: %v\n", s.Name, s.Result, s.Took.Round(time.Microsecond), s.ReadCache)
		return nil
	}
	if err := step("collect 10 lines of sample", sampleCached, func() (string, error) {
		lines, err := weir.CollectN(ctx, sample, 10)
		return fmt.Sprintf("%d lines", len(lines)), err
	}); err != nil {
		return steps, err
	}

	tokens := weir.FlatMap(sample, func(line string, out weir.Collector[Token]) error {
		for _, w := range strings.Fields(line) {
			out.Collect(expensive(w, c.Work))
		}
		return nil
	})
	var preprocessed weir.DataStream[Token]
	preCached := func() bool { return false }
	if c.NoCache {
		preprocessed = tokens
	} else {
		cs := weir.Cache(tokens)
		preprocessed, preCached = cs.DataStream, cs.IsCached
	}
	either := func(a, b func() bool) func() bool { return func() bool { return a() || b() } }
	steps0 := []struct {
		name  string
		reads func() bool
		f     func() (string, error)
	}{
		{"count preprocessed", either(preCached, sampleCached), func() (string, error) {
			n, err := weir.Count(ctx, preprocessed)
			return fmt.Sprintf("%d tokens", n), err
		}},
		{"count positive ones of preprocessed", preCached, func() (string, error) {
			n, err := weir.Count(ctx, weir.Filter(preprocessed, func(t Token) (bool, error) { return t.Positive, nil }))
			return fmt.Sprintf("%d positive", n), err
		}},
		{"keyBy(word) reduce preprocessed, collect", preCached, func() (string, error) {
			counts := weir.Map(preprocessed, func(t Token) (WordCount, error) { return WordCount{t.Word, 1}, nil })
			words, err := weir.Collect(ctx, weir.Reduce(weir.KeyBy(counts, func(w WordCount) string { return w.Word }),
				func(a, b WordCount) (WordCount, error) { return WordCount{a.Word, a.Count + b.Count}, nil }))
			return fmt.Sprintf("%d distinct words", len(words)), err
		}},
	}
	for _, s := range steps0 {
		if err := step(s.name, s.reads, s.f); err != nil {
			return steps, err
		}
	}
	return steps, nil
}

// expensive stands for the costly preprocessing of the FLIP's example:
// rounds of SHA-256 over the word.
func expensive(word string, rounds int) Token {
	expensiveCalls.Add(1)
	sum := sha256.Sum256([]byte(word))
	for range rounds {
		sum = sha256.Sum256(sum[:])
	}
	score := int(sum[0])
	return Token{Word: word, Score: score, Positive: score%2 == 0}
}

var vocabulary = strings.Fields("stream batch cache window state key reduce join source sink " +
	"checkpoint barrier watermark partition region task slot operator chain record")

// writeSample writes lines lines of eight words of the vocabulary.
func writeSample(path string, lines int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i := range lines {
		for j := range 8 {
			if j > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(vocabulary[(i*7+j*13+i/3)%len(vocabulary)])
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
