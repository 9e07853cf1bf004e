package wordcount

import (
	"errors"
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
//	--kafka-brokers HOST:PORT,...  read the lines from Kafka instead: the
//	               values of the records of the --topic (repeat the flag or
//	               list topics with commas)
//	--kafka-unbounded  keep reading new records (the counts come only when
//	               the job is stopped with --drain); by default the job
//	               reads what the topics held at its start and ends
//	--cache        cache the lines read (weir.Cache, batch mode): a later
//	               wordcount of the same unchanged inputs with --cache
//	               reads them from the cache instead of the files (on a
//	               session cluster: from the TaskManagers that keep them);
//	               it logs "wordcount: reading the lines from the cache"
//	               when it does
//	--invalidate-cache  with --cache: release the cached lines first
//	               (CachedStream.Invalidate): the job reads the inputs
//	               again and caches them anew
func Build(env *weir.Env, args []string) error {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	var inputs []string
	var output string
	var k KafkaInput
	fs.Func("kafka-brokers", "read from the Kafka brokers `HOST:PORT,...` instead of files", func(v string) error {
		k.Brokers = append(k.Brokers, splitList(v)...)
		return nil
	})
	fs.Func("topic", "the Kafka `TOPIC` to read (with --kafka-brokers; repeat the flag or list topics with commas)", func(v string) error {
		k.Topics = append(k.Topics, splitList(v)...)
		return nil
	})
	fs.BoolVar(&k.Unbounded, "kafka-unbounded", false, "keep reading new Kafka records instead of ending at those the topics held at the start")
	fs.Func("input", "a text `FILE` or directory to count (repeat the flag, or list more files after it)", func(v string) error {
		inputs = append(inputs, v)
		return nil
	})
	fs.StringVar(&output, "output", "", "write the counts as part files under `DIR` (default: print them to stdout)")
	var c cacheFlags
	fs.BoolVar(&c.cache, "cache", false, "cache the lines read, for later runs of the same inputs (needs --mode batch)")
	fs.BoolVar(&c.invalidate, "invalidate-cache", false, "with --cache: release the cached lines first, so that they are read and cached again")
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
	if len(k.Brokers) > 0 || len(k.Topics) > 0 {
		if len(inputs) > 0 {
			return errors.New("give --input or --kafka-brokers with --topic, not both")
		}
		return WordcountKafka(env, k, output)
	}
	if c.invalidate && !c.cache {
		return errors.New("--invalidate-cache needs --cache")
	}
	return wordcount(env, inputs, output, c)
}
