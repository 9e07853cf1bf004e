package kafka

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	weir "github.com/weir-engine/weir"
	"go.uber.org/goleak"
)

// refusedAddress is a loopback address where nothing listens.
func refusedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// silentAddress is a loopback address that accepts connections and never
// answers, as a hung broker or a black-holing firewall.
func silentAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var conns []net.Conn
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range conns {
					c.Close()
				}
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return l.Addr().String()
}

// Brokers that are not there: a writer's start and a commit fail with an
// error that names the brokers, at once when the connections are refused,
// and within the sink's timeout when nothing answers (the caller's context
// has no deadline, so only that timeout can end the wait; the error names
// it).
func TestBrokersNotThere(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	refused, silent := refusedAddress(t), silentAddress(t)
	for _, tt := range []struct {
		name, broker string
		want         []string
	}{
		{"refused", refused, []string{"brokers " + refused, "connection refused"}},
		{"silent", silent, []string{"no answer from brokers " + silent + " within 1s"}},
	} {
		for _, g := range []DeliveryGuarantee{ExactlyOnce, AtLeastOnce, None} {
			t.Run(tt.name+"/"+string(g), func(t *testing.T) {
				o := SinkOptions[string]{Brokers: []string{tt.broker}, Topic: "t", DeliveryGuarantee: g, TransactionalIDPrefix: "p",
					Timeout: time.Second, Serializer: ValueSerializer(func(s string) []byte { return []byte(s) })}
				s := mustSink(t, o)
				_, err := s.CreateWriter(context.Background(), sinkInfo(0, 1, 0))
				for _, want := range tt.want {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("CreateWriter: %v, want an error with %q", err, want)
					}
				}
				t.Log(err)
				if g != ExactlyOnce {
					return
				}
				com := newCommitter(t, s)
				err = com.Commit(context.Background(), []Committable{{TransactionalID: "p-0-1", ProducerID: 1, CheckpointID: 1}})
				for _, want := range append(tt.want, "p-0-1") {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("Commit: %v, want an error with %q", err, want)
					}
				}
			})
		}
	}
}

// A topic that does not exist, on brokers that do not create topics: the
// writer's start fails and says so; a record naming such a topic fails
// the flush.
func TestUnknownTopic(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "t"))
	for _, g := range []DeliveryGuarantee{ExactlyOnce, AtLeastOnce} {
		o := stringOptions(c, "missing", "p")
		o.DeliveryGuarantee = g
		_, err := mustSink(t, o).CreateWriter(testCtx(t), sinkInfo(0, 1, 0))
		if err == nil || !strings.Contains(err.Error(), `topic "missing" does not exist`) {
			t.Fatalf("%s: CreateWriter: %v, want an error about the missing topic", g, err)
		}
	}
	o := stringOptions(c, "t", "p")
	o.DeliveryGuarantee = AtLeastOnce
	o.Serializer = func(s string) (*kgo.Record, error) { return &kgo.Record{Topic: s, Value: []byte(s)}, nil }
	w := newWriter(t, mustSink(t, o), sinkInfo(0, 1, 0))
	ctx := testCtx(t)
	if err := w.Write(ctx, "missing-too"); err != nil {
		t.Fatal(err)
	}
	err := w.Flush(ctx, false)
	if err == nil || !strings.Contains(err.Error(), `topic "missing-too"`) || !strings.Contains(err.Error(), "UNKNOWN_TOPIC_OR_PARTITION") {
		t.Fatalf("Flush: %v, want an error about the missing topic", err)
	}
}

// A transaction timeout that is not longer than the checkpoint interval is
// an error when the job is built (exactly-once only).
func TestTransactionTimeoutAgainstCheckpointInterval(t *testing.T) {
	for _, tt := range []struct {
		name     string
		g        DeliveryGuarantee
		timeout  time.Duration
		interval time.Duration // 0: checkpointing off
		refused  bool
	}{
		{"shorter", ExactlyOnce, time.Second, 5 * time.Second, true},
		{"equal", ExactlyOnce, 5 * time.Second, 5 * time.Second, true},
		{"longer", ExactlyOnce, 10 * time.Second, 5 * time.Second, false},
		{"default against 15m", ExactlyOnce, 0, 15 * time.Minute, true},
		{"no checkpoints", ExactlyOnce, time.Second, 0, false},
		{"at-least-once", AtLeastOnce, time.Second, 5 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var opts []weir.Option
			if tt.interval > 0 {
				opts = append(opts, weir.WithCheckpointing(weir.CheckpointConfig{Interval: tt.interval}))
			}
			env := weir.NewEnv(opts...)
			o := SinkOptions[string]{Brokers: []string{"127.0.0.1:1"}, Topic: "t", DeliveryGuarantee: tt.g, TransactionTimeout: tt.timeout,
				Serializer: ValueSerializer(func(s string) []byte { return []byte(s) })}
			_, err := SinkTo(weir.FromSlice(env, []string{"a"}), o)
			if got := errors.Is(err, ErrTransactionTimeout); got != tt.refused {
				t.Fatalf("SinkTo: %v, refused %v, want %v", err, got, tt.refused)
			}
			if tt.refused && !strings.Contains(err.Error(), "checkpoint interval "+tt.interval.String()) {
				t.Fatalf("the error does not name the interval: %v", err)
			}
		})
	}
}

// A transaction timeout above the brokers' transaction.max.timeout.ms
// fails the first write with an unrecoverable error that says so.
func TestTransactionTimeoutAboveTheBrokersMaximum(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "t"))
	o := stringOptions(c, "t", "p")
	o.TransactionTimeout = time.Hour
	w := newWriter(t, mustSink(t, o), sinkInfo(0, 1, 0))
	err := w.Write(testCtx(t), "a")
	if !errors.Is(err, weir.ErrUnrecoverable) || !strings.Contains(err.Error(), "transaction.max.timeout.ms") {
		t.Fatalf("Write: %v, want an unrecoverable error about transaction.max.timeout.ms", err)
	}
}

// Options that cannot work are refused by TryNewSink, and by CreateWriter
// and CreateCommitter of NewSink.
func TestSinkOptionsValidate(t *testing.T) {
	ser := ValueSerializer(func(s string) []byte { return []byte(s) })
	for _, tt := range []struct {
		name string
		o    SinkOptions[string]
		want string
	}{
		{"no brokers", SinkOptions[string]{Topic: "t", Serializer: ser}, "no brokers"},
		{"empty broker", SinkOptions[string]{Brokers: []string{""}, Serializer: ser}, "broker 0 is empty"},
		{"no serializer", SinkOptions[string]{Brokers: []string{"b:9092"}}, "no serializer"},
		{"guarantee", SinkOptions[string]{Brokers: []string{"b:9092"}, Serializer: ser, DeliveryGuarantee: "twice"}, `delivery guarantee "twice"`},
		{"prefix", SinkOptions[string]{Brokers: []string{"b:9092"}, Serializer: ser, TransactionalIDPrefix: "a b"}, "printable ASCII"},
		{"timeout", SinkOptions[string]{Brokers: []string{"b:9092"}, Serializer: ser, TransactionTimeout: -time.Second}, "transaction.timeout.ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := TryNewSink(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("TryNewSink: %v, want %q", err, tt.want)
			}
			s := NewSink(tt.o)
			if _, err := s.CreateWriter(context.Background(), sinkInfo(0, 1, 0)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CreateWriter: %v, want %q", err, tt.want)
			}
			if _, err := s.CreateCommitter(context.Background(), sinkInfo(0, 1, 0)); err == nil {
				t.Fatal("CreateCommitter accepted invalid options")
			}
		})
	}
	if g, err := ParseDeliveryGuarantee("EXACTLY_ONCE"); err != nil || g != ExactlyOnce {
		t.Fatalf("ParseDeliveryGuarantee(EXACTLY_ONCE) = %q, %v", g, err)
	}
}

// The default transactional id prefix needs a uid; a serializer's error
// fails the write with its message.
func TestDefaultPrefixAndSerializerErrors(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "t"))
	s := mustSink(t, stringOptions(c, "t", ""))
	info := sinkInfo(0, 1, 0)
	info.OperatorUID = ""
	if _, err := s.CreateWriter(testCtx(t), info); err == nil || !strings.Contains(err.Error(), "stable operator uid") {
		t.Fatalf("CreateWriter without uid or prefix: %v", err)
	}
	o := stringOptions(c, "t", "")
	o.Serializer = func(string) (*kgo.Record, error) { return nil, errors.New("not serializable") }
	w := newWriter(t, mustSink(t, o), sinkInfo(0, 1, 0))
	if w.prefix != "weir-t-sink" {
		t.Errorf("default prefix %q, want weir-t-sink", w.prefix)
	}
	if err := w.Write(testCtx(t), "x"); err == nil || !strings.Contains(err.Error(), "not serializable") {
		t.Fatalf("Write: %v", err)
	}
}
