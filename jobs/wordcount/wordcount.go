// Package wordcount is Weir's built-in word count job, `weir run
// wordcount`: one line "word<TAB>count" per distinct word of the input
// files with its final count. A word is a maximal run of Unicode letters and
// digits, lower cased, as Flink's example splits on \W+.
//
// It is public so that a program can reuse it: as a smoke test of a
// deployment, as a benchmark of the engine against a hand-written loop, or
// as a piece of a larger program (Counts).
//
// The counts are final in streaming mode too, not rolling updates: each
// subtask reading the input counts its words locally and, at each
// watermark, sends one partial count per distinct word across the keyBy
// (see Counts); a keyed process function adds a word's partial counts in
// keyed ValueState and registers an event-time timer at the end of time
// (math.MaxInt64) on the word's first partial count. A bounded source ends
// with the maximum watermark, which flushes the last partial counts and then
// fires the timer, and the timer emits the count. An unbounded input never
// emits.
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
//
// It counts in two phases, as Flink's local-global aggregation does: each
// subtask of the stage chained to the input splits its lines and counts
// the words in a local table (localCount), and sends one partial count per
// distinct word to the word's keyed subtask when a watermark passes (the
// end of a bounded input is the final one), instead of every word. The
// keyed count adds the partial counts up.
func Counts(lines weir.DataStream[string]) weir.DataStream[WordCount] {
	partial := weir.ProcessStream(lines, weir.ProcessFunction[string, WordCount](&localCount{})).
		Name("local count").UID("wordcount-local-count")
	byWord := weir.KeyBy(partial, func(wc WordCount) string { return wc.Word })
	return weir.Process(byWord, weir.KeyedProcessFunction[string, WordCount, WordCount](&finalCount{})).
		Name("count").UID("wordcount-count")
}

// localCount splits lines into words and counts them in its subtask's table
// until a watermark (or the end of the input) flushes the partial counts
// downstream. The counts not flushed yet are operator state: a checkpoint
// stores them (SnapshotState) and a restore reads them back, so that every
// word is counted exactly once whether its partial count was sent before
// the checkpoint's barrier or is restored after it. The engine copies the
// function per subtask, so each subtask has its own table.
type localCount struct {
	// counts holds the partial counts, each short word in the table's
	// own slot beside its count: counting a word reads one place in
	// memory, and no count keeps the line its word came from alive.
	counts  *countTable
	pending weir.ListState[WordCount]
}

// InitializeState registers the list state of the counts not flushed at a
// checkpoint and reads back those restored to this subtask (on a rescale,
// any subtask may take any word's partial count: the keyBy follows).
func (c *localCount) InitializeState(ctx *weir.StateInitializationContext) (err error) {
	c.counts = newCountTable()
	if c.pending, err = weir.GetOperatorListState[WordCount](ctx, "pending-counts"); err != nil {
		return err
	}
	for _, wc := range c.pending.Get() {
		c.counts.add(wc.Word, wc.Count)
	}
	return nil
}

// SnapshotState stores the counts not flushed yet.
func (c *localCount) SnapshotState(weir.StateSnapshotContext) error {
	held := make([]WordCount, 0, c.counts.len())
	for w, n := range c.counts.all() {
		held = append(held, WordCount{Word: w, Count: n})
	}
	c.pending.Update(held)
	return nil
}

// ProcessElement counts the words of one line.
func (c *localCount) ProcessElement(_ *weir.ProcessContext[WordCount], line string) error {
	for i := 0; ; {
		w, next, ok := NextWord(line, i)
		if !ok {
			return nil
		}
		c.counts.add(w, 1)
		i = next
	}
}

// OnWatermark emits the partial counts ahead of the watermark and starts
// counting afresh.
func (c *localCount) OnWatermark(ctx *weir.ProcessContext[WordCount], _ int64) error {
	if c.counts.len() == 0 {
		return nil
	}
	for w, n := range c.counts.all() {
		ctx.Collect(WordCount{Word: w, Count: n})
	}
	c.counts.reset()
	return nil
}

// finalCount adds up each word's partial counts in keyed state and emits the count when the
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

// ProcessElement adds a partial count of the current word.
func (f *finalCount) ProcessElement(ctx *weir.KeyedContext[string, WordCount], wc WordCount) error {
	n, ok := f.count.Value()
	if !ok {
		ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	}
	f.count.Update(n + wc.Count)
	return nil
}

// OnTimer emits the final count of the current word.
func (f *finalCount) OnTimer(ctx *weir.KeyedContext[string, WordCount], _ int64) error {
	n, _ := f.count.Value()
	f.count.Clear()
	ctx.Collect(WordCount{Word: ctx.Key(), Count: n})
	return nil
}
