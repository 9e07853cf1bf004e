package nexmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	benchnexmark "github.com/weir-engine/weir/bench/nexmark"
	"github.com/weir-engine/weir/bench/nexmark/queries"
	"github.com/weir-engine/weir/connector/kafka"
)

// kafkaTimeout bounds the job builder's requests to the brokers (topic
// creation, offsets) and the Kafka source's and sink's waits for them.
const kafkaTimeout = 30 * time.Second

// Events in Kafka are JSON objects of benchnexmark.Event, one a record.
// The record's timestamp is the time it was produced, not the event time:
// franz-go counts its delivery timeout (the sink's Timeout) from the
// record's timestamp, so the generator's event times, years ago, would
// time out at once. The source takes event time from the event.

// encodeEvent is the Kafka sink's serializer.
func encodeEvent(e benchnexmark.Event) (*kgo.Record, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("nexmark: encode %s event: %w", e.Kind, err)
	}
	return &kgo.Record{Value: b}, nil
}

// decodeEvent is the Kafka source's deserializer.
func decodeEvent(r *kafka.Record) (benchnexmark.Event, error) {
	var e benchnexmark.Event
	if err := json.Unmarshal(r.Value, &e); err != nil {
		return e, fmt.Errorf("nexmark: decode event %.100q: %w", r.Value, err)
	}
	return e, nil
}

// ProduceToKafka adds to env the job of `--produce-to kafka`: cfg's events,
// generated at parallelism 1 so each partition holds them in generation
// order (as out of order as the generator makes them, no more), written to
// topic through an at-least-once Kafka sink, which flushes at the end of
// the input.
func ProduceToKafka(env *weir.Env, cfg benchnexmark.Config, rate float64, brokers []string, topic string) error {
	events := queries.Source(env, cfg, queries.SourceOptions{Rate: rate}).SetParallelism(1)
	sink, err := kafka.SinkTo(events, kafka.SinkOptions[benchnexmark.Event]{
		Brokers: brokers, Topic: topic, Serializer: encodeEvent, DeliveryGuarantee: kafka.AtLeastOnce,
		Timeout: kafkaTimeout, Logger: env.Options().Logger,
	})
	if err != nil {
		return err
	}
	sink.Name("nexmark-to-kafka").SetParallelism(1)
	return env.Err()
}

// KafkaSource reads the events a `--produce-to kafka` run wrote to topic,
// bounded (up to the offsets that are the latest when the job starts),
// with per-partition watermarks of cfg's out-of-orderness bound.
func KafkaSource(env *weir.Env, cfg benchnexmark.Config, brokers []string, topic string) (weir.DataStream[benchnexmark.Event], error) {
	w := weir.BoundedOutOfOrderness(queries.OutOfOrderness(cfg), queries.EventTime)
	s, err := kafka.Source(env, kafka.SourceOptions[benchnexmark.Event]{
		Name: "nexmark-from-kafka", Brokers: brokers, Topics: []string{topic}, Bounded: true,
		RequestTimeout: kafkaTimeout, Deserializer: decodeEvent, Watermarks: &w,
	})
	if err != nil {
		return s, err
	}
	return s.UID("nexmark-from-kafka"), nil
}

// ensureTopic creates topic with partitions partitions unless it exists.
func ensureTopic(brokers []string, topic string, partitions int) error {
	adm, err := admin(brokers)
	if err != nil {
		return err
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), kafkaTimeout)
	defer cancel()
	resp, err := adm.CreateTopic(ctx, int32(partitions), -1, nil, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("nexmark: create topic %q on %v: %w", topic, brokers, err)
	}
	return nil
}

// topicRecords is the number of records in topic now: the sum over its
// partitions of end minus start offsets (a produced topic has no
// transaction markers, so each offset is an event).
func topicRecords(brokers []string, topic string) (int64, error) {
	adm, err := admin(brokers)
	if err != nil {
		return 0, err
	}
	defer adm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), kafkaTimeout)
	defer cancel()
	start, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = start.Error()
	}
	if err != nil {
		return 0, fmt.Errorf("nexmark: offsets of topic %q on %v: %w", topic, brokers, err)
	}
	end, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = end.Error()
	}
	if err != nil {
		return 0, fmt.Errorf("nexmark: offsets of topic %q on %v: %w", topic, brokers, err)
	}
	var n int64
	end.Each(func(o kadm.ListedOffset) {
		if s, ok := start.Lookup(o.Topic, o.Partition); ok {
			n += o.Offset - s.Offset
		}
	})
	return n, nil
}

// admin is an admin client of the brokers.
func admin(brokers []string) (*kadm.Client, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RequestTimeoutOverhead(kafkaTimeout))
	if err != nil {
		return nil, fmt.Errorf("nexmark: kafka client for %v: %w", brokers, err)
	}
	return kadm.NewClient(cl), nil
}
