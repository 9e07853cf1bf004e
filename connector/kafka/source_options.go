package kafka

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/weir-engine/weir"
)

// StartingOffsets says where a source starts reading the partitions it
// finds at its start (Flink's scan.startup.mode). Partitions found later,
// while the job runs, are read from their start. A restored job starts
// from its checkpoint instead.
type StartingOffsets int

const (
	// Earliest starts at each partition's first record (earliest-offset).
	Earliest StartingOffsets = iota
	// Latest starts after each partition's last record (latest-offset).
	Latest
	// Committed starts at the offsets committed to SourceOptions.GroupID
	// (group-offsets); a partition without one starts per
	// SourceOptions.ResetTo.
	Committed
	// Timestamp starts at each partition's first record whose timestamp
	// is at or after SourceOptions.StartTimestamp (timestamp).
	Timestamp
)

func (s StartingOffsets) String() string {
	switch s {
	case Earliest:
		return "earliest-offset"
	case Latest:
		return "latest-offset"
	case Committed:
		return "group-offsets"
	case Timestamp:
		return "timestamp"
	}
	return fmt.Sprintf("StartingOffsets(%d)", int(s))
}

// Default option values.
const (
	// DefaultDiscoveryInterval is Flink's partition.discovery.interval-ms.
	DefaultDiscoveryInterval = 5 * time.Minute
	// DefaultRequestTimeout bounds each request to the brokers at the
	// source's start and in discovery (Flink's default.api.timeout.ms is
	// 60 s; a job that cannot reach its brokers fails sooner here).
	DefaultRequestTimeout = 30 * time.Second
)

// SourceOptions configure a Kafka source. Flink's names of the options,
// where they exist, are in brackets.
type SourceOptions[T any] struct {
	// Name is the source's display name (default "Kafka source").
	Name string
	// Brokers are the addresses host:port to bootstrap from
	// (bootstrap.servers).
	Brokers []string
	// Topics are the topics to read (topic); each must exist.
	Topics []string
	// TopicPattern, instead of Topics, reads every topic whose whole name
	// matches (topic-pattern); topics created later that match are found
	// by partition discovery.
	TopicPattern *regexp.Regexp
	// GroupID is the consumer group (group.id) that offsets are committed
	// to when a checkpoint completes, for monitoring only: the checkpoint,
	// not the group, says where a restored job resumes. Empty: nothing is
	// committed. Committed starting offsets need it.
	GroupID string
	// StartingOffsets says where to start (scan.startup.mode; default
	// Earliest).
	StartingOffsets StartingOffsets
	// StartTimestamp is the time to start at with StartingOffsets
	// Timestamp (scan.startup.timestamp-millis).
	StartTimestamp time.Time
	// ResetTo is where a partition without a committed offset starts with
	// StartingOffsets Committed: Earliest (default) or Latest
	// (auto.offset.reset).
	ResetTo StartingOffsets
	// Bounded stops at the offsets that were the latest when the job
	// started (scan.bounded.mode latest-offset), so that the source ends
	// and a topic can feed a batch job. Partition discovery is off then.
	Bounded bool
	// DiscoveryInterval is how often the enumerator looks for new
	// partitions (partition.discovery.interval-ms; default 5 min);
	// negative: never.
	DiscoveryInterval time.Duration
	// ReadCommitted reads only records of committed transactions
	// (isolation.level read_committed); the default, as Kafka's, is
	// read_uncommitted.
	ReadCommitted bool
	// RequestTimeout bounds each request to the brokers when the job
	// starts and in discovery: brokers that do not answer within it fail
	// the job with an error that names them (default 30 s).
	RequestTimeout time.Duration
	// ClientID is the Kafka client id (client.id.prefix; default
	// "weir-kafka-source").
	ClientID string
	// Deserializer turns a record into an element. It must not keep the
	// *Record after it returns (its byte slices it may keep).
	Deserializer func(*Record) (T, error)
	// SkipBadRecords makes the source skip, with a warning in the log, a
	// record whose deserialization failed; by default the error fails the
	// job and names the record's topic, partition and offset.
	SkipBadRecords bool
	// Watermarks, when set, generates watermarks per partition inside
	// each source subtask (Flink's per-split watermarks); its Idleness
	// lets a quiet partition stop holding event time back. Without a
	// Timestamp function, an element's timestamp is its record's.
	Watermarks *weir.WatermarkStrategy[T]
}

// withDefaults returns o with defaults filled in, or an error that says
// what is wrong.
func (o SourceOptions[T]) withDefaults() (SourceOptions[T], error) {
	switch {
	case len(o.Brokers) == 0:
		return o, errors.New("kafka source: no brokers: set Brokers (bootstrap.servers)")
	case len(o.Topics) == 0 && o.TopicPattern == nil:
		return o, errors.New("kafka source: no topic: set Topics or TopicPattern")
	case len(o.Topics) > 0 && o.TopicPattern != nil:
		return o, errors.New("kafka source: set Topics or TopicPattern, not both")
	case o.Deserializer == nil:
		return o, errors.New("kafka source: no Deserializer")
	case o.StartingOffsets < Earliest || o.StartingOffsets > Timestamp:
		return o, fmt.Errorf("kafka source: unknown starting offsets %v", o.StartingOffsets)
	case o.StartingOffsets == Committed && o.GroupID == "":
		return o, errors.New("kafka source: committed starting offsets need a GroupID")
	case o.StartingOffsets == Timestamp && o.StartTimestamp.IsZero():
		return o, errors.New("kafka source: timestamp starting offsets need a StartTimestamp")
	case o.ResetTo != Earliest && o.ResetTo != Latest:
		return o, fmt.Errorf("kafka source: ResetTo must be Earliest or Latest, not %v", o.ResetTo)
	case o.RequestTimeout < 0:
		return o, fmt.Errorf("kafka source: negative RequestTimeout %v", o.RequestTimeout)
	}
	for _, t := range o.Topics {
		if t == "" {
			return o, errors.New("kafka source: an empty topic name")
		}
	}
	if o.Name == "" {
		o.Name = "Kafka source"
	}
	if o.DiscoveryInterval == 0 {
		o.DiscoveryInterval = DefaultDiscoveryInterval
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.ClientID == "" {
		o.ClientID = "weir-kafka-source"
	}
	return o, nil
}

// discovers says whether the enumerator looks for new partitions.
func (c config) discovers() bool { return !c.bounded && c.discovery > 0 }

// config is what the enumerator and the readers need of the options, free
// of the element type.
type config struct {
	brokers           []string
	topics            []string
	pattern           *regexp.Regexp
	group             string
	starting, resetTo StartingOffsets
	startMillis       int64
	bounded           bool
	discovery         time.Duration
	readCommitted     bool
	timeout           time.Duration
	clientID          string
}

func (o SourceOptions[T]) config() config {
	var pattern *regexp.Regexp
	if o.TopicPattern != nil {
		// the whole name must match, as Java's Matcher.matches in Flink
		pattern = regexp.MustCompile(`^(?:` + o.TopicPattern.String() + `)$`)
	}
	return config{brokers: o.Brokers, topics: o.Topics, pattern: pattern, group: o.GroupID,
		starting: o.StartingOffsets, resetTo: o.ResetTo, startMillis: o.StartTimestamp.UnixMilli(),
		bounded: o.Bounded, discovery: o.DiscoveryInterval, readCommitted: o.ReadCommitted,
		timeout: o.RequestTimeout, clientID: o.ClientID}
}
