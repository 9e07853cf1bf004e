package kafka

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	weir "github.com/weir-engine/weir"
)

// A crash after a checkpoint completed but before its commit ran, with a
// transaction open after it: read_committed consumers see nothing of the
// pre-committed transaction until the restored job commits it, the open
// one is aborted when the restored writer starts (before the commit:
// recovery leaves the restored checkpoint's transactions alone), and in
// the end every record is there once for read_committed, while
// read_uncommitted also sees the aborted one.
func TestExactlyOnceAcrossACrash(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(3, "t"))
	var logs logBuffer
	o := stringOptions(c, "t", "p")
	o.Logger = logs.logger()
	s := mustSink(t, o)
	com := newCommitter(t, s)
	ctx := testCtx(t)

	w := newWriter(t, s, sinkInfo(0, 1, 0))
	cs1 := write(t, w, 1, "a", "b")
	if len(cs1) != 1 || cs1[0].TransactionalID != "p-0-1" || cs1[0].CheckpointID != 1 {
		t.Fatalf("committables of checkpoint 1: %+v", cs1)
	}
	if got := readSorted(t, c, "t", true); len(got) != 0 {
		t.Fatalf("read_committed sees %q before the commit", got)
	}
	if got := readSorted(t, c, "t", false); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("read_uncommitted sees %q, want a b", got)
	}
	if err := com.Commit(ctx, cs1); err != nil {
		t.Fatal(err)
	}
	if err := com.Commit(ctx, cs1); err != nil {
		t.Fatalf("committing again: %v", err)
	}
	if got := readSorted(t, c, "t", true); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("read_committed sees %q after the commit, want a b", got)
	}
	if cs := write(t, w, 2); len(cs) != 0 {
		t.Fatalf("a checkpoint without records gave committables %+v", cs)
	}
	cs3 := write(t, w, 3, "c")
	if len(cs3) != 1 || cs3[0].TransactionalID != "p-0-3" {
		t.Fatalf("committables of checkpoint 3: %+v", cs3)
	}
	crash(t, w, "d") // in p-0-4, left open
	if got := openTxns(t, c); !slices.Equal(got, []string{"p-0-3", "p-0-4"}) {
		t.Fatalf("open transactions after the crash: %q", got)
	}

	// Restored from checkpoint 3: the writer starts first, the commit of
	// the restored committable comes after it.
	w2 := newWriter(t, s, sinkInfo(0, 1, 3))
	if got := openTxns(t, c); !slices.Equal(got, []string{"p-0-3"}) {
		t.Fatalf("open transactions after recovery: %q, want only the restored checkpoint's p-0-3", got)
	}
	if !strings.Contains(logs.String(), "transactional_id=p-0-4 restored_from=3") {
		t.Errorf("no log line names the aborted p-0-4:\n%s", logs.String())
	}
	if err := com.Commit(ctx, cs3); err != nil {
		t.Fatalf("commit of the restored checkpoint's transaction: %v", err)
	}
	cs4 := write(t, w2, 4, "d")
	if len(cs4) != 1 || cs4[0].TransactionalID != "p-0-4" {
		t.Fatalf("committables of checkpoint 4: %+v", cs4)
	}
	if err := com.Commit(ctx, cs4); err != nil {
		t.Fatal(err)
	}
	if got := readSorted(t, c, "t", true); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("read_committed sees %q, want a b c d once each", got)
	}
	if got := readSorted(t, c, "t", false); !slices.Equal(got, []string{"a", "b", "c", "d", "d"}) {
		t.Fatalf("read_uncommitted sees %q, want the aborted d too", got)
	}
	if got := openTxns(t, c); len(got) != 0 {
		t.Fatalf("transactions left open: %q", got)
	}
}

// Recovery at another parallelism aborts what every old subtask left
// open (subtask i those of i, i+p, ...), whatever the new parallelism, and
// leaves other prefixes alone.
func TestRecoveryAbortsAcrossRescaling(t *testing.T) {
	for _, tt := range []struct {
		name     string
		from, to int
		restored int64
	}{
		{"scale down 3 to 2", 3, 2, 1},
		{"scale down 4 to 1", 4, 1, 1},
		{"scale up 2 to 3", 2, 3, 1},
		{"fresh start", 2, 2, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startCluster(t, kfake.SeedTopics(2, "t"))
			s := mustSink(t, stringOptions(c, "t", "p"))
			other := mustSink(t, stringOptions(c, "t", "p-1"))
			com := newCommitter(t, s)
			ctx := testCtx(t)
			var want []string
			for sub := range tt.from {
				w := newWriter(t, s, sinkInfo(sub, tt.from, 0))
				v := fmt.Sprintf("committed-%d", sub)
				if err := com.Commit(ctx, write(t, w, 1, v)); err != nil {
					t.Fatal(err)
				}
				want = append(want, v)
				crash(t, w, fmt.Sprintf("open-%d", sub))
			}
			// Another prefix's open transaction, whose id parses as one of
			// "p" only if the prefix match is loose.
			crash(t, newWriter(t, other, sinkInfo(0, 1, 4)), "other")
			if got := openTxns(t, c); len(got) != tt.from+1 {
				t.Fatalf("open transactions before recovery: %q", got)
			}
			for sub := range tt.to {
				newWriter(t, s, sinkInfo(sub, tt.to, tt.restored))
			}
			if got := openTxns(t, c); !slices.Equal(got, []string{"p-1-0-5"}) {
				t.Fatalf("open transactions after recovery at parallelism %d: %q, want only the other prefix's", tt.to, got)
			}
			newWriter(t, other, sinkInfo(0, 1, 0)) // aborts "other"
			if got := readSorted(t, c, "t", true); !slices.Equal(got, want) {
				t.Fatalf("read_committed sees %q, want %q", got, want)
			}
		})
	}
}

// The committer's answers: an aborted transaction is lost (unrecoverable),
// an id the brokers no longer know counts as committed.
func TestCommitterAnswers(t *testing.T) {
	c := startCluster(t, kfake.SeedTopics(1, "t"))
	s := mustSink(t, stringOptions(c, "t", "p"))
	com := newCommitter(t, s)
	ctx := testCtx(t)

	w := newWriter(t, s, sinkInfo(0, 1, 0))
	cs := write(t, w, 1, "x")
	// Something initializes the id again (as the brokers do when the
	// transaction timeout runs out): the transaction is aborted.
	if _, _, err := initProducerID(ctx, com.client(t), cs[0].TransactionalID, s.opts.TransactionTimeout); err != nil {
		t.Fatal(err)
	}
	err := com.Commit(ctx, cs)
	if !errors.Is(err, ErrTransactionLost) || !errors.Is(err, weir.ErrUnrecoverable) || !strings.Contains(err.Error(), "p-0-1") {
		t.Fatalf("commit of an aborted transaction: %v, want ErrTransactionLost, unrecoverable, naming p-0-1", err)
	}
	// A producer id the coordinator does not know (its id expired).
	gone := []Committable{{TransactionalID: "p-0-9", ProducerID: 123456789, ProducerEpoch: 0, CheckpointID: 9}}
	if err := com.Commit(ctx, gone); err != nil {
		t.Fatalf("commit of an expired transactional id: %v, want it taken as committed", err)
	}
	if got := readSorted(t, c, "t", true); len(got) != 0 {
		t.Fatalf("read_committed sees %q", got)
	}
}

// client returns the committer's client, making it if needed.
func (c *committer[T]) client(t *testing.T) *sinkClient {
	if c.cl == nil {
		cl, err := newSinkClient(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		c.cl = cl
	}
	return c.cl
}

// At-least-once and none write without transactions and hand out no
// committables; at-least-once has flushed by the checkpoint.
func TestWithoutTransactions(t *testing.T) {
	for _, g := range []DeliveryGuarantee{AtLeastOnce, None} {
		t.Run(string(g), func(t *testing.T) {
			c := startCluster(t, kfake.SeedTopics(2, "t"))
			o := stringOptions(c, "t", "")
			o.DeliveryGuarantee = g
			w := newWriter(t, mustSink(t, o), sinkInfo(0, 1, 0))
			ctx := testCtx(t)
			for _, v := range []string{"a", "b", "c"} {
				if err := w.Write(ctx, v); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Flush(ctx, g == None); err != nil {
				t.Fatal(err)
			}
			if cs, err := w.PrepareCommit(ctx, 1); err != nil || len(cs) != 0 {
				t.Fatalf("PrepareCommit: %+v, %v", cs, err)
			}
			if got := readSorted(t, c, "t", true); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Fatalf("read_committed sees %q", got)
			}
			if got := openTxns(t, c); len(got) != 0 {
				t.Fatalf("open transactions: %q", got)
			}
		})
	}
}

// A serializer that sets event-time timestamps, however old, writes its
// records: the delivery timeout must not count from a record's timestamp
// (franz-go's RecordDeliveryTimeout does).
func TestOldRecordTimestamps(t *testing.T) {
	for _, g := range []DeliveryGuarantee{ExactlyOnce, AtLeastOnce} {
		t.Run(string(g), func(t *testing.T) {
			c := startCluster(t, kfake.SeedTopics(1, "t"))
			o := stringOptions(c, "t", "old")
			o.DeliveryGuarantee = g
			o.Serializer = func(s string) (*kgo.Record, error) {
				return &kgo.Record{Value: []byte(s), Timestamp: time.UnixMilli(1_000)}, nil
			}
			s := mustSink(t, o)
			w := newWriter(t, s, sinkInfo(0, 1, 0))
			cs := write(t, w, 1, "a", "b")
			if err := newCommitter(t, s).Commit(testCtx(t), cs); err != nil {
				t.Fatal(err)
			}
			if got := readSorted(t, c, "t", true); !slices.Equal(got, []string{"a", "b"}) {
				t.Fatalf("read_committed sees %q", got)
			}
		})
	}
}
