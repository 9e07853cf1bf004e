package nexmark

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/weir-engine/weir"
)

// flags are the job's arguments.
type flags struct {
	query, source, produceTo string
	events                   int64
	rate                     float64
	seed                     uint64
	brokers                  []string
	topic                    string
	partitions               int
}

// parse parses and checks args.
func (f *flags) parse(args []string) error {
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.StringVar(&f.query, "query", "", "the query to run: "+fmt.Sprint(Queries()))
	fs.Int64Var(&f.events, "events", 0, "the number of events to generate")
	fs.Float64Var(&f.rate, "rate", 0, "limit the generator to this many events/s in all (0: no limit)")
	fs.Uint64Var(&f.seed, "seed", 0, "the generator's seed")
	fs.StringVar(&f.source, "source", "generator", "where the events come from: generator or kafka (--kafka-brokers, --topic)")
	fs.StringVar(&f.produceTo, "produce-to", "", "kafka: write the generated events to --topic and run no query")
	brokers := fs.String("kafka-brokers", "", "Kafka brokers `HOST:PORT,...` of --source kafka and --produce-to kafka")
	fs.StringVar(&f.topic, "topic", "", "the Kafka `topic` of the events")
	fs.IntVar(&f.partitions, "partitions", 4, "partitions of the topic --produce-to kafka creates if it does not exist")
	if err := weir.ParseJobFlags(fs, args); err != nil {
		return err
	}
	set := make(map[string]bool)
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if *brokers != "" {
		f.brokers = strings.Split(*brokers, ",")
	}
	_, known := builders[f.query]
	kafka := f.source == "kafka" || f.produceTo != ""
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	case f.source != "generator" && f.source != "kafka":
		return fmt.Errorf("--source %q: want generator or kafka", f.source)
	case f.produceTo != "" && f.produceTo != "kafka":
		return fmt.Errorf("--produce-to %q: want kafka", f.produceTo)
	case f.produceTo != "" && f.source != "generator":
		return errors.New("--produce-to writes generated events: it does not go with --source")
	case f.produceTo != "" && set["query"]:
		return errors.New("--produce-to runs no query: leave out --query")
	case f.produceTo == "" && !known:
		return fmt.Errorf("--query %q: want one of %v", f.query, Queries())
	case kafka && (len(f.brokers) == 0 || f.topic == ""):
		return errors.New("--kafka-brokers and --topic are required with kafka")
	case !kafka && (set["kafka-brokers"] || set["topic"] || set["partitions"]):
		return errors.New("--kafka-brokers, --topic and --partitions go with --source kafka or --produce-to kafka")
	case f.source == "kafka" && (set["events"] || set["rate"] || set["seed"]):
		return errors.New("--source kafka reads the events the topic holds: --events, --rate and --seed go with the generator")
	case f.source != "kafka" && f.events < 1:
		return errors.New("--events must be at least 1")
	case f.rate < 0:
		return errors.New("--rate must not be negative")
	case f.partitions < 1:
		return errors.New("--partitions must be at least 1")
	}
	return nil
}
