// Command wordcountloop writes the word-count benchmarks' input or counts
// a file's words with the hand-written single-goroutine loop, the baseline
// of `weir run wordcount` in whole-process comparisons:
//
//	go run ./bench/wordcountloop/cmd -write IN -mb 100
//	go build -o /tmp/wcloop ./bench/wordcountloop/cmd && /tmp/wcloop IN
//
// Counting prints the number of distinct words.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/weir-engine/weir/bench/wordcountloop"
)

func main() {
	write := flag.String("write", "", "write the input to `FILE` instead of counting")
	mb := flag.Int("mb", 100, "size of the input written, in MB")
	flag.Parse()
	if err := run(*write, *mb, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "wordcountloop:", err)
		os.Exit(1)
	}
}

func run(write string, mb int, args []string) error {
	if write != "" {
		if mb < 1 {
			return fmt.Errorf("-mb %d: want at least 1", mb)
		}
		f, err := os.Create(write)
		if err != nil {
			return err
		}
		if err := wordcountloop.WriteInput(f, mb); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if len(args) != 1 {
		return fmt.Errorf("want one input file to count, or -write FILE")
	}
	counts, err := wordcountloop.Count(args[0])
	if err != nil {
		return err
	}
	fmt.Println(len(counts))
	return nil
}
