package watermark

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weir-engine/weir/internal/op"
)

// errFull is what a failing test output returns.
var errFull = errors.New("output full")

// failingLog is a logOutput that fails at its failAt-th record (counting
// from 1; 0: never).
type failingLog struct {
	logOutput
	records, failAt int
}

func (l *failingLog) Collect(ts int64, v int64) error {
	if l.records++; l.records == l.failAt {
		return errFull
	}
	return l.logOutput.Collect(ts, v)
}

// batchLog is a failingLog that takes batches (op.BatchOutput) and counts
// them.
type batchLog struct {
	failingLog
	batches int
}

func (l *batchLog) CollectBatch(ts []int64, vs []int64) error {
	if len(ts) != len(vs) {
		return fmt.Errorf("batch of %d records with %d timestamps", len(vs), len(ts))
	}
	l.batches++
	for i, v := range vs {
		if err := l.failingLog.Collect(ts[i], v); err != nil {
			return err
		}
	}
	return nil
}

// logged is what an output saw, and the error that ended the run.
type logged struct {
	log []string
	err error
}

// TestBatchSameAsRecords checks that the operator fed batches
// (CollectBatch) emits the same records, timestamps, watermarks and
// IDLE/ACTIVE announcements, in the same order, as when fed the same
// records one ProcessElement at a time, with periodic ticks and upstream
// watermarks between the batches; periodic or per-element, whether its
// output takes batches or not, and with the same prefix when the output
// fails mid-batch.
func TestBatchSameAsRecords(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		strategy := Strategy[int64]{
			// A record's value is its timestamp times 100 plus a
			// sequence number, so the log shows both.
			Timestamp:      func(v int64) int64 { return v / 100 },
			OutOfOrderness: time.Duration(rapid.IntRange(0, 20).Draw(t, "ooo")) * time.Millisecond,
			Interval:       10 * time.Millisecond,
			PerElement:     rapid.Bool().Draw(t, "perElement"),
			Idleness:       time.Duration(rapid.IntRange(0, 3).Draw(t, "idleness")) * 10 * time.Millisecond,
		}
		type step struct {
			kind    int // 0: a batch, 1: a tick, 2: an upstream watermark
			records []int64
			wm      int64
		}
		var steps []step
		seq := int64(0)
		for range rapid.IntRange(0, 12).Draw(t, "steps") {
			s := step{kind: rapid.IntRange(0, 2).Draw(t, "kind")}
			switch s.kind {
			case 0:
				for _, ts := range rapid.SliceOfN(rapid.Int64Range(-5, 60), 0, 20).Draw(t, "ts") {
					s.records = append(s.records, ts*100+seq%100)
					seq++
				}
			case 2:
				s.wm = rapid.SampledFrom([]int64{op.MaxWatermark, 3, 50}).Draw(t, "wm")
			}
			steps = append(steps, s)
		}
		failAt := rapid.IntRange(0, int(seq)+1).Draw(t, "failAt")
		batchOut := rapid.Bool().Draw(t, "batchOut")

		run := func(batched bool) (logged, int) {
			var out interface {
				op.Output[int64]
				status(bool) error
			}
			bl := &batchLog{failingLog: failingLog{failAt: failAt}}
			if batched && batchOut {
				out = bl
			} else {
				out = &bl.failingLog
			}
			timers := &manualTimers{now: time.Unix(0, 0)}
			w := New(strategy, op.Output[int64](out))
			w.SetWatermarkStatus(out.status)
			if err := w.Open(&op.Context{Timers: timers}); err != nil {
				return logged{err: err}, 0
			}
			var err error
			for _, s := range steps {
				switch s.kind {
				case 0:
					if batched {
						err = w.CollectBatch(nil, slices.Clone(s.records))
						break
					}
					for _, v := range s.records {
						if err = w.ProcessElement(op.NoTimestamp, v); err != nil {
							break
						}
					}
				case 1:
					timers.now = timers.now.Add(strategy.Interval)
					if timers.next != nil {
						err = timers.next()
					}
				case 2:
					err = w.ProcessWatermark(s.wm)
				}
				if err != nil {
					break
				}
			}
			return logged{log: bl.log, err: err}, bl.batches
		}
		want, _ := run(false)
		got, batches := run(true)
		if !slices.Equal(got.log, want.log) || !errors.Is(got.err, want.err) || !errors.Is(want.err, got.err) {
			t.Fatalf("batches: %q, %v\none at a time: %q, %v", got.log, got.err, want.log, want.err)
		}
		if batchOut && !strategy.PerElement && failAt == 0 {
			nonEmpty := 0
			for _, s := range steps {
				if s.kind == 0 && len(s.records) > 0 {
					nonEmpty++
				}
			}
			if batches != nonEmpty {
				t.Fatalf("output took %d batches, want one per non-empty batch (%d)", batches, nonEmpty)
			}
		}
	})
}
