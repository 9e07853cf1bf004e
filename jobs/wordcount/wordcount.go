// Package wordcount is Weir's built-in word count job, `weir run
// wordcount`: one line "word<TAB>count" per distinct word of the input
// files with its final count. A word is a maximal run of Unicode letters and
// digits, lower cased, as Flink's example splits on \W+.
//
// It is public so that a program can reuse it: as a smoke test of a
// deployment, as a benchmark of the engine against a hand-written loop, or
// as a piece of a larger program (Counts).
//
// The counts are final in streaming mode too, not rolling updates: a keyed
// process function counts each word in keyed ValueState and registers an
// event-time timer at the end of time (math.MaxInt64) on the word's first
// occurrence. A bounded source ends with the maximum watermark, which fires
// the timer once every occurrence has been counted, and the timer emits the
// count. An unbounded input never emits.
package wordcount

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/weir-engine/weir"
)

// Name is the name the job is registered under in the weir binary.
const Name = "wordcount"

// Description is the job's line in `weir jobs`.
const Description = "count the words of text files or Kafka topics: --input FILE... | --kafka-brokers B --topic T [--kafka-unbounded]; [--output DIR]"

// WordCount is a word and the number of times it occurred.
type WordCount struct {
	Word  string
	Count int64
}

// String formats wc as the job's output line, "word<TAB>count".
func (wc WordCount) String() string {
	return wc.Word + "\t" + strconv.FormatInt(wc.Count, 10)
}

// Wordcount adds the whole job to env: read the text files inputs (a
// directory stands for its files), count the words, and write the counts
// as text files under the directory output (one part file per sink
// subtask) or, when output is "", print them to env's standard output on
// one subtask, sorted by word once the input ended (so that two runs
// compare equal). It checks that the
// inputs exist, so that a mistyped name is an error before the job runs.
func Wordcount(env *weir.Env, inputs []string, output string) error {
	return wordcount(env, inputs, output, cacheFlags{})
}

// cacheFlags say what the job does with the cache of its lines.
type cacheFlags struct{ cache, invalidate bool }

// wordcount is Wordcount, whose lines read are cached as c says.
func wordcount(env *weir.Env, inputs []string, output string, c cacheFlags) error {
	if len(inputs) == 0 {
		return errors.New("no input: give --input FILE")
	}
	for _, in := range inputs {
		if _, err := os.Stat(in); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("input %s: %w", in, err)
		}
	}
	warnInputs(env.Options().Logger, inputs)
	lines := weir.ReadTextFile(env, inputs...).Name("read")
	if c.cache {
		cl := weir.Cache(lines)
		if c.invalidate {
			if err := cl.Invalidate(context.Background()); err != nil {
				return err
			}
		}
		if cl.IsCached() {
			env.Options().Logger.Info("wordcount: reading the lines from the cache")
		}
		lines = cl.DataStream
	}
	return writeCounts(env, Counts(lines), output)
}

// writeCounts prints counts, or writes them under the directory output.
func writeCounts(env *weir.Env, counts weir.DataStream[WordCount], output string) error {
	if output != "" {
		if fi, err := os.Stat(output); err == nil && !fi.IsDir() {
			return fmt.Errorf("output %s: exists and is not a directory", output)
		}
	}
	if output == "" {
		printSorted(env, counts)
	} else {
		weir.WriteText(counts, output, WordCount.String).Name("write")
	}
	return env.Err()
}

// Counts splits lines into words and returns the final count of every
// word, emitted when the input ends.
func Counts(lines weir.DataStream[string]) weir.DataStream[WordCount] {
	words := weir.FlatMap(lines, tokenize).Name("tokenize")
	byWord := weir.KeyBy(words, func(w string) string { return w })
	return weir.Process(byWord, weir.KeyedProcessFunction[string, string, WordCount](&finalCount{})).
		Name("count").UID("wordcount-count")
}

// tokenize emits the words of a line.
func tokenize(line string, out weir.Collector[string]) error {
	for i := 0; ; {
		w, next, ok := NextWord(line, i)
		if !ok {
			return nil
		}
		out.Collect(w)
		i = next
	}
}

// finalCount counts each word in keyed state and emits the count when the
// event-time timer at the end of time fires. Each subtask works on its own
// copy (the engine copies a pointer-to-struct function per subtask), so
// the state handle set in Open is the subtask's.
type finalCount struct {
	count weir.ValueState[int64]
}

// Open registers the count state.
func (f *finalCount) Open(rc *weir.KeyedRuntimeContext[string]) (err error) {
	f.count, err = weir.GetValueState[int64](rc, "count")
	return err
}

// ProcessElement counts one occurrence of the current word.
func (f *finalCount) ProcessElement(ctx *weir.KeyedContext[string, WordCount], _ string) error {
	n, ok := f.count.Value()
	if !ok {
		ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	}
	f.count.Update(n + 1)
	return nil
}

// OnTimer emits the final count of the current word.
func (f *finalCount) OnTimer(ctx *weir.KeyedContext[string, WordCount], _ int64) error {
	n, _ := f.count.Value()
	f.count.Clear()
	ctx.Collect(WordCount{Word: ctx.Key(), Count: n})
	return nil
}
