package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// enumerator is the source's split enumerator on the JobMaster (Flink's
// KafkaSourceEnumerator). At a fresh start it lists the partitions of the
// topics and resolves each one's starting offset (and, bounded, its stop
// offset) to a number, so that a split's position never depends on when
// a reader opens it. It then hands each partition to its owner subtask
// when that subtask asks. Unbounded, a goroutine looks for new partitions
// every discovery interval; those start at their first offset.
//
// Its checkpoint holds every partition it knows (assigned or not) and the
// splits not handed out yet: a partition is in exactly one of the
// enumerator's and the readers' state, and a restored enumerator does not
// find the partitions it knew again.
type enumerator struct {
	cfg config
	p   int
	log *slog.Logger
	cl  *kgo.Client
	adm *kadm.Client

	// mu guards the fields below: the JobMaster's loop calls Next and
	// Snapshot, the discovery goroutine adds partitions.
	mu      sync.Mutex
	known   map[topicPartition]bool
	pending [][]split // per owner subtask

	stop chan struct{}
	done chan struct{}
}

// enumeratorState is the enumerator's checkpoint.
type enumeratorState struct {
	Known      []topicPartition
	Unassigned []split
}

// newEnumerator creates the enumerator for p subtasks, from its snapshot
// when restored is not nil.
func newEnumerator(cfg config, p int, restored []byte, log *slog.Logger) (*enumerator, error) {
	cl, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	e := &enumerator{cfg: cfg, p: p, log: log, cl: cl, adm: kadm.NewClient(cl),
		known: map[topicPartition]bool{}, pending: make([][]split, p)}
	if restored != nil {
		var st enumeratorState
		if err := json.Unmarshal(restored, &st); err != nil {
			cl.Close()
			return nil, fmt.Errorf("kafka source: restore the enumerator: %w", err)
		}
		for _, tp := range st.Known {
			e.known[tp] = true
		}
		e.add(st.Unassigned)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
		defer cancel()
		splits, err := e.discover(ctx, true)
		if err != nil {
			cl.Close()
			return nil, err
		}
		e.add(splits)
	}
	if cfg.discovers() {
		e.stop, e.done = make(chan struct{}), make(chan struct{})
		go e.discoverEvery(cfg.discovery)
	}
	return e, nil
}

// add records splits as known and pending for their owners.
func (e *enumerator) add(splits []split) {
	for _, s := range splits {
		e.known[s.tp()] = true
		o := owner(s.tp(), e.p)
		e.pending[o] = append(e.pending[o], s)
	}
}

// Next hands subtask one of the partitions it owns.
func (e *enumerator) Next(subtask int) (split, bool, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if subtask < 0 || subtask >= e.p {
		return split{}, false, false
	}
	if q := e.pending[subtask]; len(q) > 0 {
		e.pending[subtask] = q[1:]
		return q[0], true, true
	}
	// Unbounded, discovery may find more; bounded, every partition was
	// found at the start.
	return split{}, false, !e.cfg.bounded
}

// Snapshot implements weir.SplitEnumerator.
func (e *enumerator) Snapshot() ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	st := enumeratorState{Known: make([]topicPartition, 0, len(e.known))}
	for tp := range e.known {
		st.Known = append(st.Known, tp)
	}
	for _, q := range e.pending {
		st.Unassigned = append(st.Unassigned, q...)
	}
	return json.Marshal(st)
}

// Close stops discovery and the client.
func (e *enumerator) Close() error {
	if e.stop != nil {
		close(e.stop)
		<-e.done
		e.stop = nil
	}
	e.cl.Close()
	return nil
}

// discoverEvery looks for new partitions every interval until Close.
func (e *enumerator) discoverEvery(interval time.Duration) {
	defer close(e.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), e.cfg.timeout)
		go func() {
			select {
			case <-e.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		splits, err := e.discover(ctx, false)
		cancel()
		if err != nil {
			e.log.Warn("kafka source: partition discovery failed; trying again at the next interval", "err", err)
			continue
		}
		if len(splits) > 0 {
			e.log.Info("kafka source: discovered new partitions", "count", len(splits))
			e.mu.Lock()
			e.add(splits)
			e.mu.Unlock()
		}
	}
}
