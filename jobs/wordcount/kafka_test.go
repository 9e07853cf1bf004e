package wordcount

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/kafkatest"
)

// wordcount reads a Kafka topic whose records are the lines of the sample
// (spread over three partitions) and, bounded by default, ends with the
// same counts as from the file.
func TestWordcountReadsKafka(t *testing.T) {
	c := kafkatest.Start(t, kfake.SeedTopics(3, "lines"))
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.DefaultProduceTopic("lines"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for _, line := range strings.Split(string(b), "\n") {
		recs = append(recs, kgo.StringRecord(line))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithStdout(&out))
	if err := Build(env, []string{"--kafka-brokers", c.BrokerList(), "--topic", "lines"}); err != nil {
		t.Fatal(err)
	}
	execute(t, env)
	if got, want := sortedLines(out.String()), expectedLines(t); !slices.Equal(got, want) {
		t.Errorf("got %d lines, want %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}

func TestBuildRejectsBadKafkaArguments(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--kafka-brokers", "127.0.0.1:9092"}, "give --kafka-brokers HOST:PORT,... and --topic T"},
		{[]string{"--topic", "t"}, "give --kafka-brokers"},
		{[]string{"--topic", "t", "--kafka-brokers", "127.0.0.1:9092", "--input", sample}, "not both"},
	} {
		err := Build(weir.NewEnv(), tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Build(%q) = %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
}
