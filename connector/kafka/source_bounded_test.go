package kafka_test

import (
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/kafka"
)

// A bounded source reads what the topic held when the job started, from
// the starting offsets asked for, and ends (the job finishes): at
// parallelism 1 and 2, and at 4, more subtasks than some topics have
// partitions.
func TestBoundedReadsAndEnds(t *testing.T) {
	c := startCluster(t, 3, "a", "b")
	ts := func(i int) int64 { return 1_000_000 + int64(i)*1000 }
	a := produce(t, c, "a", 3, 0, 30, ts)
	b := produce(t, c, "b", 3, 0, 9, ts)
	// Group g committed offset 5 in partition 0 of a (records a/0, a/3,
	// ..., a/12 before it), nothing elsewhere.
	commitOffset(t, c, "g", "a", 0, 5)
	for _, tt := range []struct {
		name string
		p    int
		set  func(*kafka.SourceOptions[string])
		want []string
	}{
		{"earliest-p1", 1, nil, append(slices.Clone(a), b...)},
		{"earliest-p2", 2, nil, append(slices.Clone(a), b...)},
		{"earliest-p4", 4, nil, append(slices.Clone(a), b...)},
		{"latest", 2, func(o *kafka.SourceOptions[string]) { o.StartingOffsets = kafka.Latest }, nil},
		// records 24..29 of a (timestamps from 1,024,000) and none of b
		{"timestamp", 2, func(o *kafka.SourceOptions[string]) {
			o.StartingOffsets, o.StartTimestamp = kafka.Timestamp, time.UnixMilli(ts(24))
		}, a[24:]},
		{"committed", 2, func(o *kafka.SourceOptions[string]) { o.StartingOffsets, o.GroupID = kafka.Committed, "g" },
			append(slices.DeleteFunc(slices.Clone(a), func(v string) bool {
				return slices.Contains([]string{"a/0", "a/3", "a/6", "a/9", "a/12"}, v)
			}), b...)},
		{"pattern", 2, func(o *kafka.SourceOptions[string]) { o.Topics, o.TopicPattern = nil, regexpMust("b|c") }, b},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(tt.p))
			o := stringOptions(c, "a", "b")
			o.Bounded = true
			if tt.set != nil {
				tt.set(&o)
			}
			got, err := weir.Collect(testContext(t), source(t, env, o))
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, got, tt.want)
		})
	}
}

// A bounded read_committed source ends at the last stable offset even
// though a transaction marker, which it never emits, is the last offset
// of every partition; records of an aborted transaction are not read.
func TestBoundedReadCommittedEndsAfterMarkers(t *testing.T) {
	c := startCluster(t, 2, "tx")
	ctx := testContext(t)
	p, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...), kgo.TransactionalID("tx-producer"),
		kgo.DefaultProduceTopic("tx"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var want []string
	for i, commit := range []bool{true, false, true} {
		if err := p.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for part := range int32(2) {
			v := string(rune('a'+i)) + string(rune('0'+part))
			if err := p.ProduceSync(ctx, &kgo.Record{Partition: part, Value: []byte(v)}).FirstErr(); err != nil {
				t.Fatal(err)
			}
			if commit {
				want = append(want, v)
			}
		}
		if err := p.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
	o := stringOptions(c, "tx")
	o.Bounded, o.ReadCommitted = true, true
	got, err := weir.Collect(ctx, source(t, weir.NewEnv(weir.WithParallelism(2)), o))
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, got, want)
}

// Bad input: each case fails the job with an error that says what is
// wrong, in well under the test's deadline.
func TestSourceErrors(t *testing.T) {
	c := startCluster(t, 2, "t")
	produce(t, c, "t", 2, 0, 10, nil)
	refuse := func(r *kafka.Record) (string, error) {
		if string(r.Value) == "t/7" {
			return "", errors.New("not a number")
		}
		return string(r.Value), nil
	}
	for _, tt := range []struct {
		name  string
		set   func(*kafka.SourceOptions[string])
		want  []string // substrings of the error
		check func(t *testing.T, err error)
	}{
		{"brokers not there", func(o *kafka.SourceOptions[string]) {
			o.Brokers, o.RequestTimeout = []string{"127.0.0.1:1"}, 500*time.Millisecond
		}, []string{"brokers 127.0.0.1:1", "connection refused"}, nil},
		{"brokers that never answer", func(o *kafka.SourceOptions[string]) {
			o.Brokers, o.RequestTimeout = []string{silentBroker(t)}, 500*time.Millisecond
		}, []string{"did not answer within 500ms"}, nil},
		{"unknown topic", func(o *kafka.SourceOptions[string]) { o.Topics = []string{"t", "nope"} },
			[]string{`unknown topic "nope"`}, func(t *testing.T, err error) {
				if !errors.Is(err, kafka.ErrUnknownTopic) {
					t.Errorf("errors.Is(%v, ErrUnknownTopic) = false", err)
				}
			}},
		{"deserializer", func(o *kafka.SourceOptions[string]) { o.Deserializer = refuse },
			[]string{"topic t partition 1 offset 3", "not a number"}, func(t *testing.T, err error) {
				var de *kafka.DeserializeError
				if !errors.As(err, &de) || de.Offset != 3 || !errors.Is(err, weir.ErrUnrecoverable) {
					t.Errorf("error %v: want a DeserializeError at offset 3, unrecoverable", err)
				}
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := stringOptions(c, "t")
			o.Bounded = true
			tt.set(&o)
			env := weir.NewEnv(weir.WithParallelism(2),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
			_, err := weir.Collect(testContext(t), source(t, env, o))
			if err == nil {
				t.Fatal("the job did not fail")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
}

// SkipBadRecords skips what the deserializer refuses and reads the rest.
func TestSkipBadRecords(t *testing.T) {
	c := startCluster(t, 2, "t")
	all := produce(t, c, "t", 2, 0, 10, nil)
	o := stringOptions(c, "t")
	o.Bounded, o.SkipBadRecords = true, true
	o.Deserializer = func(r *kafka.Record) (string, error) {
		if string(r.Value) == "t/7" || string(r.Value) == "t/2" {
			return "", errors.New("bad")
		}
		return string(r.Value), nil
	}
	got, err := weir.Collect(testContext(t), source(t, weir.NewEnv(weir.WithParallelism(2)), o))
	if err != nil {
		t.Fatal(err)
	}
	want := slices.DeleteFunc(all, func(v string) bool { return v == "t/7" || v == "t/2" })
	sameSet(t, got, want)
}

// Invalid options are refused when the source is added.
func TestInvalidOptions(t *testing.T) {
	des := func(*kafka.Record) (int, error) { return 0, nil }
	for _, tt := range []struct {
		name string
		o    kafka.SourceOptions[int]
		want string
	}{
		{"no brokers", kafka.SourceOptions[int]{Topics: []string{"t"}, Deserializer: des}, "no brokers"},
		{"no topic", kafka.SourceOptions[int]{Brokers: []string{"x:1"}, Deserializer: des}, "no topic"},
		{"both", kafka.SourceOptions[int]{Brokers: []string{"x:1"}, Topics: []string{"t"}, TopicPattern: regexpMust("t"), Deserializer: des}, "not both"},
		{"no deserializer", kafka.SourceOptions[int]{Brokers: []string{"x:1"}, Topics: []string{"t"}}, "no Deserializer"},
		{"committed without group", kafka.SourceOptions[int]{Brokers: []string{"x:1"}, Topics: []string{"t"}, Deserializer: des, StartingOffsets: kafka.Committed}, "GroupID"},
		{"timestamp without time", kafka.SourceOptions[int]{Brokers: []string{"x:1"}, Topics: []string{"t"}, Deserializer: des, StartingOffsets: kafka.Timestamp}, "StartTimestamp"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := kafka.Source(weir.NewEnv(), tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one that says %q", err, tt.want)
			}
		})
	}
}

// silentBroker listens on loopback and accepts connections but never
// answers, as a host behind a firewall that drops replies; it returns its
// address.
func silentBroker(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	return l.Addr().String()
}
