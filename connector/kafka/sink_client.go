package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sinkClient is a Kafka client of the sink with the brokers' last dial
// errors, so that a wait that ran out can say why.
type sinkClient struct {
	*kgo.Client
	dials *dialErrors
}

// newSinkClient makes a client with the sink's options and extra ones. It
// does not connect yet.
func newSinkClient[T any](o *SinkOptions[T], extra ...kgo.Opt) (*sinkClient, error) {
	dials := &dialErrors{}
	opts := []kgo.Opt{
		kgo.SeedBrokers(o.Brokers...),
		kgo.DialTimeout(min(o.Timeout, 10*time.Second)),
		// Not kgo.RecordDeliveryTimeout: it counts from each record's
		// timestamp, which a serializer may set to an event time long
		// past, and every such record would time out at once. A request
		// that gets no answer times out instead, and a record fails after
		// some retries, so that a producer waiting for room in its buffer
		// is not stuck behind brokers that stopped answering; a flush
		// waits at most Timeout.
		kgo.ProduceRequestTimeout(o.Timeout),
		kgo.RecordRetries(10),
		kgo.WithHooks(dials),
		kgo.DisableClientMetrics(),
	}
	opts = append(opts, o.ClientOptions...)
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka: client for brokers %s: %w", strings.Join(o.Brokers, ","), err)
	}
	return &sinkClient{Client: cl, dials: dials}, nil
}

// dialErrors remembers the last failed dial (a kgo hook; called from the
// client's goroutines).
type dialErrors struct {
	mu   sync.Mutex
	last error
}

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (d *dialErrors) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.last = fmt.Errorf("%s:%d: %w", meta.Host, meta.Port, err)
}

func (d *dialErrors) lastErr() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// explain turns a wait that ran out into an error that names the brokers,
// the timeout and the last dial error; other errors (such as a refused
// connection to every broker, which kgo reports at once) get the brokers.
func (c *sinkClient) explain(err error, what string, brokers []string, timeout time.Duration) error {
	if !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("brokers %s: %w", strings.Join(brokers, ","), err)
	}
	msg := fmt.Sprintf("no answer from brokers %s within %v (the sink's timeout) to %s", strings.Join(brokers, ","), timeout, what)
	if d := c.dials.lastErr(); d != nil {
		return fmt.Errorf("%s: %w (last connection attempt: %v)", msg, err, d)
	}
	return fmt.Errorf("%s: %w", msg, err)
}

// checkTopic asks the brokers, within the sink's timeout, for the topic
// (or, with topic "", for any answer): brokers that are not there and a
// topic that does not exist fail the start of a writer with an error that
// says so, instead of records that wait for them. The request allows
// automatic creation, as the producer's own requests do, so brokers with
// auto.create.topics.enable create the topic here.
func checkTopic[T any](ctx context.Context, c *sinkClient, o *SinkOptions[T]) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	req.AllowAutoTopicCreation = true
	if o.Topic != "" {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(o.Topic)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, c.Client)
	if err != nil {
		return fmt.Errorf("kafka: %w", c.explain(err, "a metadata request", o.Brokers, o.Timeout))
	}
	for _, t := range resp.Topics {
		switch err := kerr.ErrorForCode(t.ErrorCode); {
		case errors.Is(err, kerr.UnknownTopicOrPartition):
			return fmt.Errorf("kafka: topic %q does not exist on brokers %s, and they do not create topics automatically: create it first: %w",
				o.Topic, strings.Join(o.Brokers, ","), err)
		case err != nil:
			return fmt.Errorf("kafka: topic %q on brokers %s: %w", o.Topic, strings.Join(o.Brokers, ","), err)
		}
	}
	return nil
}
