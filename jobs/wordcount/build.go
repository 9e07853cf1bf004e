package wordcount

import (
	"flag"
	"strings"

	"github.com/weir-engine/weir"
)

// Build is the job's builder for weir.RegisterJob. Its flags:
//
//	--input FILE   a text file or directory to count; repeat the flag, or
//	               list more files after it (--input a.txt b.txt)
//	--output DIR   write the counts as files under DIR instead of printing
//	               them
func Build(env *weir.Env, args []string) error {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	var inputs []string
	var output string
	fs.Func("input", "a text `FILE` or directory to count (repeat the flag, or list more files after it)", func(v string) error {
		inputs = append(inputs, v)
		return nil
	})
	fs.StringVar(&output, "output", "", "write the counts as part files under `DIR` (default: print them to stdout)")
	// Go's flag package stops at the first non-flag argument; the files
	// after --input are taken here, and parsing goes on after them.
	for rest := args; len(rest) > 0; {
		if err := weir.ParseJobFlags(fs, rest); err != nil {
			return err
		}
		consumed := rest[:len(rest)-len(fs.Args())]
		rest = fs.Args()
		if len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			inputs = append(inputs, rest...) // after "--" everything is a file
			break
		}
		for len(rest) > 0 && (rest[0] == "-" || !strings.HasPrefix(rest[0], "-")) {
			inputs = append(inputs, rest[0])
			rest = rest[1:]
		}
	}
	return Wordcount(env, inputs, output)
}
