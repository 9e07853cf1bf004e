package wordcount

import (
	"errors"
	"fmt"
	"strings"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/kafka"
)

// KafkaInput says which Kafka topics to count the words of: each record's
// value is a line of text.
type KafkaInput struct {
	// Brokers are the bootstrap brokers, host:port.
	Brokers []string
	// Topics are the topics to read.
	Topics []string
	// Unbounded keeps reading new records; by default the job counts what
	// the topics held when it started and ends (a batch job), since the
	// counts are emitted only when the input ends.
	Unbounded bool
}

// WordcountKafka adds the whole job to env, reading lines from Kafka; the
// output is as Wordcount's.
func WordcountKafka(env *weir.Env, in KafkaInput, output string) error {
	if len(in.Brokers) == 0 || len(in.Topics) == 0 {
		return errors.New("kafka input: give --kafka-brokers HOST:PORT,... and --topic T")
	}
	lines, err := kafka.Source(env, kafka.SourceOptions[string]{
		Name: "read", Brokers: in.Brokers, Topics: in.Topics, Bounded: !in.Unbounded,
		Deserializer: func(r *kafka.Record) (string, error) { return string(r.Value), nil },
	})
	if err != nil {
		return fmt.Errorf("kafka input: %w", err)
	}
	return writeCounts(env, Counts(lines), output)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
