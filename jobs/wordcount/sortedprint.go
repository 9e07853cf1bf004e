package wordcount

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/weir-engine/weir"
)

// printSorted ends counts in a sink of one subtask that prints the counts
// to env's standard output sorted by word once the input ended, so that
// two runs over the same input print the same bytes (the keyed count
// subtasks fire their timers in no fixed order). The counts of a bounded
// input are final only at its end anyway; holding them costs memory for
// the distinct words, which the keyed state held until then too.
func printSorted(env *weir.Env, counts weir.DataStream[WordCount]) {
	weir.AddSinkWith[WordCount](counts, &sortedPrinter{out: env.Options().Stdout}).
		Name("print sorted").SetParallelism(1)
}

// sortedPrinter buffers the counts and prints them at Finish. The engine
// copies it per subtask; with one subtask there is one buffer.
type sortedPrinter struct {
	out    io.Writer
	counts []WordCount
}

// Invoke holds one count until the input ends.
func (p *sortedPrinter) Invoke(wc WordCount) error {
	p.counts = append(p.counts, wc)
	return nil
}

// Finish prints the counts sorted by word, one "word<TAB>count" line each.
func (p *sortedPrinter) Finish() error {
	slices.SortFunc(p.counts, func(a, b WordCount) int { return cmp.Compare(a.Word, b.Word) })
	w := bufio.NewWriter(p.out)
	for _, wc := range p.counts {
		if _, err := fmt.Fprintln(w, wc.String()); err != nil {
			return fmt.Errorf("print counts: %w", err)
		}
	}
	p.counts = nil
	if err := w.Flush(); err != nil {
		return fmt.Errorf("print counts: %w", err)
	}
	return nil
}
