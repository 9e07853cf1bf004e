package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/weir-engine/weir"
)

// reader is a source subtask's reader of its partitions (Flink's
// KafkaSourceReader). A goroutine polls the franz-go client and hands
// whole fetches over a channel of one, so the client stops fetching while
// the task is behind; the task's goroutine emits their records, advancing
// each split's offset, and never waits on the network.
type reader[T any] struct {
	cfg         config
	deserialize func(*Record) (T, error)
	skipBad     bool
	out         weir.ReaderOutput[T]
	log         *slog.Logger
	cl          *kgo.Client

	parts map[topicPartition]*partition[T]
	// last is the partition of the previous record: the records of a fetch
	// come partition by partition.
	last *partition[T]
	// cur holds the records of the fetch being emitted, from pos on.
	cur []*kgo.Record
	pos int
	rec Record

	fetched chan kgo.Fetches
	notify  chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}

	commits *offsetCommitter
}

// partition is a split being read.
type partition[T any] struct {
	s   split
	out weir.SplitOutput[T]
}

func newReader[T any](cfg config, deserialize func(*Record) (T, error), skipBad bool, ctx weir.ReaderContext[T]) (*reader[T], error) {
	iso := kgo.ReadUncommitted()
	if cfg.readCommitted {
		iso = kgo.ReadCommitted()
	}
	// Transaction markers are kept so that a split's offset moves past
	// them: a bounded split whose last offset is a marker must end.
	// A fetch waits for data at most 500 ms, as the Java client's
	// fetch.max.wait.ms (franz-go's default is 5 s): a partition added
	// to a broker's fetch session joins at the next fetch.
	cl, err := newClient(cfg, kgo.FetchIsolationLevel(iso), kgo.KeepControlRecords(),
		kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		return nil, err
	}
	log := ctx.Logger
	if log == nil {
		log = slog.Default()
	}
	fctx, cancel := context.WithCancel(context.Background())
	r := &reader[T]{cfg: cfg, deserialize: deserialize, skipBad: skipBad, out: ctx.Output, log: log, cl: cl,
		parts: map[topicPartition]*partition[T]{}, fetched: make(chan kgo.Fetches, 1),
		notify: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{})}
	if cfg.group != "" {
		r.commits = newOffsetCommitter(cfg, cl, log)
	}
	go r.fetch(fctx)
	return r, nil
}

// fetch polls the client until the reader closes.
func (r *reader[T]) fetch(ctx context.Context) {
	defer close(r.done)
	for {
		fs := r.cl.PollFetches(ctx)
		if ctx.Err() != nil || fs.IsClientClosed() {
			return
		}
		if fs.Empty() {
			continue
		}
		select {
		case r.fetched <- fs:
		case <-ctx.Done():
			return
		}
		select {
		case r.notify <- struct{}{}:
		default:
		}
	}
}

// AddSplits starts reading splits at their offsets.
func (r *reader[T]) AddSplits(splits []split) error {
	add := map[string]map[int32]kgo.Offset{}
	for _, s := range splits {
		if s.finished() {
			continue // a bounded partition that was empty at the start
		}
		if _, ok := r.parts[s.tp()]; ok {
			return fmt.Errorf("kafka source: partition %s assigned twice", s.id())
		}
		r.parts[s.tp()] = &partition[T]{s: s, out: r.out.ForSplit(s.id())}
		if add[s.Topic] == nil {
			add[s.Topic] = map[int32]kgo.Offset{}
		}
		add[s.Topic][s.Partition] = kgo.NewOffset().At(s.Offset)
	}
	r.cl.AddConsumePartitions(add)
	return nil
}

// Poll emits up to budget records of the fetches the client returned.
func (r *reader[T]) Poll(budget int) (weir.ReadStatus, error) {
	n := 0
	for n < budget {
		if r.pos >= len(r.cur) {
			select {
			case fs := <-r.fetched:
				if err := r.load(fs); err != nil {
					return 0, err
				}
				continue
			default:
			}
			break
		}
		rec := r.cur[r.pos]
		r.cur[r.pos] = nil
		r.pos++
		emitted, err := r.emit(rec)
		if err != nil {
			return 0, err
		}
		if emitted {
			n++
		}
	}
	switch {
	case len(r.parts) == 0:
		return weir.ReadFinished, nil
	case n > 0 || r.pos < len(r.cur) || len(r.fetched) > 0:
		return weir.ReadMore, nil
	}
	return weir.ReadNothing, nil
}

// load takes the records of a fetch, or fails on its errors.
func (r *reader[T]) load(fs kgo.Fetches) error {
	var errs []string
	fs.EachError(func(t string, p int32, err error) {
		if !errors.Is(err, context.Canceled) && !errors.Is(err, kgo.ErrClientClosed) {
			errs = append(errs, fmt.Sprintf("%s-%d: %v", t, p, err))
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("kafka source: fetch: %s", strings.Join(errs, "; "))
	}
	r.cur, r.pos = r.cur[:0], 0
	fs.EachRecord(func(rec *kgo.Record) { r.cur = append(r.cur, rec) })
	return nil
}

// emit emits one fetched record if its partition still wants it, and
// reports whether it did.
func (r *reader[T]) emit(rec *kgo.Record) (bool, error) {
	p := r.last
	if p == nil || p.s.Partition != rec.Partition || p.s.Topic != rec.Topic {
		if p = r.parts[topicPartition{rec.Topic, rec.Partition}]; p == nil {
			return false, nil // finished, fetched before it was removed
		}
		r.last = p
	}
	if rec.Offset < p.s.Offset {
		return false, nil
	}
	if p.s.Stop != noStop && rec.Offset >= p.s.Stop {
		r.finish(p)
		return false, nil
	}
	p.s.Offset = rec.Offset + 1
	emitted := false
	if !rec.Attrs.IsControl() {
		r.rec = Record{Topic: rec.Topic, Partition: rec.Partition, Offset: rec.Offset, Key: rec.Key,
			Value: rec.Value, Headers: rec.Headers, Timestamp: rec.Timestamp}
		v, err := r.deserialize(&r.rec)
		switch {
		case err != nil && r.skipBad:
			r.log.Warn("kafka source: skipped a record the deserializer refused", "topic", rec.Topic,
				"partition", rec.Partition, "offset", rec.Offset, "err", err)
		case err != nil:
			return false, &DeserializeError{Topic: rec.Topic, Partition: rec.Partition, Offset: rec.Offset, Err: err}
		default:
			if err := p.out.Collect(rec.Timestamp.UnixMilli(), v); err != nil {
				return false, err
			}
			emitted = true
		}
	}
	if p.s.finished() {
		r.finish(p)
	}
	return emitted, nil
}

// finish ends a bounded split that reached its stop offset.
func (r *reader[T]) finish(p *partition[T]) {
	tp := p.s.tp()
	delete(r.parts, tp)
	if r.last == p {
		r.last = nil
	}
	r.out.ReleaseSplit(p.s.id())
	r.cl.RemoveConsumePartitions(map[string][]int32{tp.Topic: {tp.Partition}})
}

func (r *reader[T]) Available() <-chan struct{} { return r.notify }

// SnapshotSplits returns the splits with their offsets, and keeps the
// offsets to commit to the group when the checkpoint completes.
func (r *reader[T]) SnapshotSplits(id int64) ([]split, error) {
	out := make([]split, 0, len(r.parts))
	for _, p := range r.parts {
		out = append(out, p.s)
	}
	slices.SortFunc(out, func(a, b split) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	if r.commits != nil {
		r.commits.snapshot(id, out)
	}
	return out, nil
}

// NotifyCheckpointComplete commits the checkpoint's offsets to the group.
func (r *reader[T]) NotifyCheckpointComplete(id int64) error {
	if r.commits != nil {
		r.commits.complete(id)
	}
	return nil
}

// Close stops the fetching goroutine, the committer and the client.
func (r *reader[T]) Close() error {
	r.cancel()
	<-r.done
	if r.commits != nil {
		r.commits.close()
	}
	r.cl.Close()
	return nil
}
