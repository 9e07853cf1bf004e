package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrUnknownTopic is matched (errors.Is) by the error of a source whose
// topic does not exist.
var ErrUnknownTopic = errors.New("kafka: unknown topic")

// newClient creates a Kafka client for cfg's brokers.
//
// franz-go refreshes its metadata at most every 5 s by default, and a
// partition just discovered waits for a refresh to learn its leader (the
// enumerator to list its offsets, a reader to fetch it): the refresh may
// come as often as discovery does.
func newClient(cfg config, opts ...kgo.Opt) (*kgo.Client, error) {
	minAge := min(max(cfg.discovery, 100*time.Millisecond), 5*time.Second)
	all := append([]kgo.Opt{kgo.SeedBrokers(cfg.brokers...), kgo.ClientID(cfg.clientID),
		kgo.DialTimeout(cfg.timeout), kgo.RetryTimeout(cfg.timeout), kgo.MetadataMinAge(minAge)}, opts...)
	cl, err := kgo.NewClient(all...)
	if err != nil {
		return nil, fmt.Errorf("kafka source: create a client: %w", err)
	}
	return cl, nil
}

// brokerError explains a failed request to the brokers.
func (c config) brokerError(what string, ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("kafka source: %s: the brokers %s did not answer within %v: %w",
			what, strings.Join(c.brokers, ","), c.timeout, err)
	}
	return fmt.Errorf("kafka source: %s on the brokers %s: %w", what, strings.Join(c.brokers, ","), err)
}

// discover returns the splits of the partitions it does not know yet,
// with their offsets resolved. The first discovery of a fresh start
// (initial) starts them per the options, fails on a topic that does not
// exist and, bounded, sets their stop offsets; later ones start new
// partitions at their first offset.
func (e *enumerator) discover(ctx context.Context, initial bool) ([]split, error) {
	parts, err := e.partitions(ctx, initial)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	var fresh []topicPartition
	for _, tp := range parts {
		if !e.known[tp] {
			fresh = append(fresh, tp)
		}
	}
	e.mu.Unlock()
	if len(fresh) == 0 {
		return nil, nil
	}
	mode := Earliest
	if initial {
		mode = e.cfg.starting
	}
	starts, err := e.offsets(ctx, mode, fresh)
	if err != nil {
		return nil, err
	}
	var stops map[topicPartition]int64
	if initial && e.cfg.bounded {
		if stops, err = e.offsets(ctx, stopOffsets, fresh); err != nil {
			return nil, err
		}
	}
	splits := make([]split, 0, len(fresh))
	for _, tp := range fresh {
		start, ok := starts[tp]
		if !ok {
			if initial {
				return nil, fmt.Errorf("kafka source: no starting offset for %s-%d", tp.Topic, tp.Partition)
			}
			continue // not ready yet (a partition just created): next time
		}
		s := split{Topic: tp.Topic, Partition: tp.Partition, Offset: start, Stop: noStop}
		if stops != nil {
			s.Stop = stops[tp]
		}
		splits = append(splits, s)
	}
	return splits, nil
}

// partitions lists the partitions of the topics the source reads.
func (e *enumerator) partitions(ctx context.Context, initial bool) ([]topicPartition, error) {
	details, err := e.adm.ListTopics(ctx, e.cfg.topics...)
	if err != nil {
		return nil, e.cfg.brokerError("list the topics", ctx, err)
	}
	var out []topicPartition
	for _, name := range details.Names() {
		d := details[name]
		if e.cfg.pattern != nil && !e.cfg.pattern.MatchString(name) {
			continue
		}
		if d.Err != nil {
			if errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
				if initial {
					return nil, fmt.Errorf("%w %q on the brokers %s", ErrUnknownTopic, name, strings.Join(e.cfg.brokers, ","))
				}
				continue
			}
			return nil, fmt.Errorf("kafka source: topic %q: %w", name, d.Err)
		}
		for _, p := range d.Partitions.Numbers() {
			out = append(out, topicPartition{name, p})
		}
	}
	return out, nil
}

// stopOffsets asks offsets for the stop of a bounded source: the end
// offsets, or the last stable offsets when reading committed records.
const stopOffsets StartingOffsets = -1

// offsets resolves mode to an offset for each partition in tps.
func (e *enumerator) offsets(ctx context.Context, mode StartingOffsets, tps []topicPartition) (map[topicPartition]int64, error) {
	topics := topicsOf(tps)
	var listed kadm.ListedOffsets
	var err error
	switch mode {
	case Earliest:
		listed, err = e.adm.ListStartOffsets(ctx, topics...)
	case Latest:
		listed, err = e.adm.ListEndOffsets(ctx, topics...)
	case Timestamp:
		listed, err = e.adm.ListOffsetsAfterMilli(ctx, e.cfg.startMillis, topics...)
	case stopOffsets:
		if e.cfg.readCommitted {
			listed, err = e.adm.ListCommittedOffsets(ctx, topics...)
		} else {
			listed, err = e.adm.ListEndOffsets(ctx, topics...)
		}
	case Committed:
		return e.committedOffsets(ctx, tps)
	}
	if err != nil {
		return nil, e.cfg.brokerError(fmt.Sprintf("list the %v offsets", mode), ctx, err)
	}
	out := make(map[topicPartition]int64, len(tps))
	for _, tp := range tps {
		o, ok := listed.Lookup(tp.Topic, tp.Partition)
		if !ok || o.Err != nil || o.Offset < 0 {
			continue
		}
		out[tp] = o.Offset
	}
	return out, nil
}

// committedOffsets resolves the group's committed offsets, falling back to
// ResetTo for partitions without one.
func (e *enumerator) committedOffsets(ctx context.Context, tps []topicPartition) (map[topicPartition]int64, error) {
	committed, err := e.adm.FetchOffsets(ctx, e.cfg.group)
	if err != nil {
		return nil, e.cfg.brokerError(fmt.Sprintf("fetch the offsets of group %q", e.cfg.group), ctx, err)
	}
	reset, err := e.offsets(ctx, e.cfg.resetTo, tps)
	if err != nil {
		return nil, err
	}
	for _, tp := range tps {
		if o, ok := committed.Lookup(tp.Topic, tp.Partition); ok && o.Err == nil && o.At >= 0 {
			reset[tp] = o.At
		}
	}
	return reset, nil
}

// topicsOf returns the distinct topics of tps, sorted.
func topicsOf(tps []topicPartition) []string {
	var topics []string
	for _, tp := range tps {
		topics = append(topics, tp.Topic)
	}
	slices.Sort(topics)
	return slices.Compact(topics)
}
