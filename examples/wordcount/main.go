// Command wordcount is the first stop of a tour of Weir: it counts the
// words of a text file and prints one line "word<TAB>count" per word.
//
//	go run ./examples/wordcount                    # counts testdata/words.txt
//	go run ./examples/wordcount -input FILE -parallelism 4
//
// The same job is built into the weir binary (`weir run wordcount`, from
// package jobs/wordcount); this one is written out in full to show the
// pieces of a program: an Env, a source, transformations, a keyed process
// function with state and a timer, a sink, and Execute.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"unicode"

	"github.com/weir-engine/weir"
)

func main() {
	input := flag.String("input", "testdata/words.txt", "the text `FILE` to count")
	parallelism := flag.Int("parallelism", 2, "parallelism of the operators")
	flag.Parse()
	// Ctrl-C cancels the context, which cancels the job.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, *input, *parallelism); err != nil {
		fmt.Fprintln(os.Stderr, "wordcount:", err)
		os.Exit(1)
	}
}

// run builds the program and executes it, printing the counts to stdout.
func run(ctx context.Context, stdout io.Writer, input string, parallelism int) error {
	// An Env is a program under construction. Options set the defaults of
	// every operator; Print writes to the Env's stdout.
	env := weir.NewEnv(weir.WithParallelism(parallelism), weir.WithStdout(stdout))

	// A bounded source: the lines of the file, read by parallel subtasks.
	lines := weir.ReadTextFile(env, input)

	// FlatMap turns one line into any number of words. A word is a run of
	// letters and digits, lower cased.
	words := weir.FlatMap(lines, func(line string, out weir.Collector[string]) error {
		for _, w := range strings.FieldsFunc(line, notWordRune) {
			out.Collect(strings.ToLower(w))
		}
		return nil
	})

	// KeyBy sends every occurrence of a word to the same subtask, so the
	// next operator can keep state per word.
	byWord := weir.KeyBy(words, func(w string) string { return w })

	// Process runs a keyed process function: here, counting with a timer
	// that fires when the input ends (see counter below).
	counts := weir.Process(byWord, weir.KeyedProcessFunction[string, string, string](&counter{}))

	// Print writes every element on a line. One subtask, so that the lines
	// carry no "N> " subtask prefix.
	weir.Print(counts).SetParallelism(1)

	// Nothing has run yet: Execute starts an embedded mini-cluster, runs
	// the job to its end, and returns.
	_, err := env.Execute(ctx, "wordcount example")
	return err
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// counter counts the occurrences of each word in keyed state. Each subtask
// gets its own copy of the struct, so Open's state handle is its own.
type counter struct {
	count weir.ValueState[int64]
}

// Open registers the state: one int64 per key (per word).
func (c *counter) Open(rc *weir.KeyedRuntimeContext[string]) (err error) {
	c.count, err = weir.GetValueState[int64](rc, "count")
	return err
}

// ProcessElement is called for every occurrence of a word; the state
// accessors see that word's value.
func (c *counter) ProcessElement(ctx *weir.KeyedContext[string, string], _ string) error {
	n, seen := c.count.Value()
	if !seen {
		// An event-time timer at the end of time fires only when the
		// watermark reaches it: a bounded source ends with the maximum
		// watermark, after its last line, so the count is final then.
		ctx.TimerService().RegisterEventTimeTimer(math.MaxInt64)
	}
	c.count.Update(n + 1)
	return nil
}

// OnTimer emits the final count of the timer's word.
func (c *counter) OnTimer(ctx *weir.KeyedContext[string, string], _ int64) error {
	n, _ := c.count.Value()
	ctx.Collect(fmt.Sprintf("%s\t%d", ctx.Key(), n))
	return nil
}
