package kafka

import (
	"context"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// offsetCommitter commits the offsets of completed checkpoints to the consumer
// group, as Flink's KafkaSourceReader does: for monitoring only, so a
// commit runs on a goroutine of its own, only the newest waiting commit is
// kept, and a failure is logged.
type offsetCommitter struct {
	cfg config
	adm *kadm.Client
	log *slog.Logger
	// pending holds the offsets of checkpoints taken and not completed
	// yet, oldest first; owned by the task's goroutine.
	pending []pendingCommit
	next    chan kadm.Offsets
	done    chan struct{}
}

type pendingCommit struct {
	id      int64
	offsets kadm.Offsets
}

func newOffsetCommitter(cfg config, cl *kgo.Client, log *slog.Logger) *offsetCommitter {
	c := &offsetCommitter{cfg: cfg, adm: kadm.NewClient(cl), log: log, next: make(chan kadm.Offsets, 1), done: make(chan struct{})}
	go c.run()
	return c
}

// snapshot keeps the offsets of checkpoint id.
func (c *offsetCommitter) snapshot(id int64, splits []split) {
	offs := kadm.Offsets{}
	for _, s := range splits {
		offs.Add(kadm.Offset{Topic: s.Topic, Partition: s.Partition, At: s.Offset, LeaderEpoch: -1})
	}
	c.pending = append(c.pending, pendingCommit{id: id, offsets: offs})
}

// complete commits the offsets of checkpoint id, and forgets those of
// older ones (a completed checkpoint subsumes them).
func (c *offsetCommitter) complete(id int64) {
	var offs kadm.Offsets
	i := 0
	for ; i < len(c.pending) && c.pending[i].id <= id; i++ {
		if c.pending[i].id == id {
			offs = c.pending[i].offsets
		}
	}
	c.pending = c.pending[i:]
	if len(offs) == 0 {
		return
	}
	for {
		select {
		case c.next <- offs:
			return
		default:
		}
		select { // replace an older commit that is still waiting
		case <-c.next:
		default:
		}
	}
}

func (c *offsetCommitter) run() {
	defer close(c.done)
	for offs := range c.next {
		ctx, cancel := context.WithTimeout(context.Background(), c.cfg.timeout)
		resp, err := c.adm.CommitOffsets(ctx, c.cfg.group, offs)
		cancel()
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			c.log.Warn("kafka source: commit offsets to the group (for monitoring only) failed", "group", c.cfg.group, "err", err)
		}
	}
}

// close stops the committer once a commit in flight ended.
func (c *offsetCommitter) close() {
	close(c.next)
	<-c.done
}
