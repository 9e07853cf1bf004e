package weir_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
)

// unionCounter keeps its subtask's element count in union list state and
// closes finished when subtask 0 finishes.
type unionCounter struct {
	finished chan struct{}
	once     *sync.Once
	union    weir.ListState[int64]
	n        int64
	subtask  int
}

func (c *unionCounter) InitializeState(ctx *weir.StateInitializationContext) error {
	var err error
	c.union, err = weir.GetUnionListState[int64](ctx, "counts")
	c.subtask = ctx.SubtaskIndex
	return err
}

func (c *unionCounter) SnapshotState(weir.StateSnapshotContext) error {
	c.union.Update([]int64{c.n})
	return nil
}

func (c *unionCounter) Map(v int64) (int64, error) { c.n++; return v, nil }

func (c *unionCounter) Finish() error {
	if c.subtask == 0 {
		c.once.Do(func() { close(c.finished) })
	}
	return nil
}

// FLIP-147 (FLINK-21080): while some but not all subtasks of an operator
// with union list state finished their operators, its checkpoints are
// declined (the finished subtasks' entries would be missing from every
// subtask's union on restore), and the declines are not counted failures;
// subtask 0 waits for its final checkpoint meanwhile. Once subtask 1
// finished too, the final checkpoint completes, unblocks both, and the job
// ends without a restart.
func TestUnionListStateWithFinishedSubtasks(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	logs := &lockedBuffer{}
	dir := t.TempDir()
	var stop atomic.Int64
	stop.Store(10)
	env := weir.NewEnv(weir.WithParallelism(2), weir.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		// No tolerance: a declined checkpoint is not a failure that
		// counts (checkpoint.ErrNotReady).
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: 5 * time.Millisecond, Dir: dir}))
	// Subtask 0 reads 10 elements and finishes; subtask 1 reads below
	// stop, which the test moves on.
	src := weir.FromSplits(env, weir.SplitSource[int64, intsSplit]{
		Name:   "two",
		Splits: func(int) ([]intsSplit, error) { return []intsSplit{{Next: 0}, {Next: 1000}}, nil },
		Read: func(s *intsSplit, budget int, emit func(int64) error) (bool, error) {
			end := int64(10)
			if s.Next >= 1000 {
				end = 2000
			}
			for ; budget > 0 && s.Next < end; budget-- {
				if s.Next >= 1000 && s.Next >= 1000+stop.Load() {
					runtime.Gosched()
					return false, nil
				}
				if err := emit(s.Next); err != nil {
					return false, err
				}
				s.Next++
			}
			return s.Next >= end, nil
		},
	})
	fn := &unionCounter{finished: make(chan struct{}), once: &sync.Once{}}
	var n atomic.Int64
	weir.AddSink(weir.MapWith(src, weir.MapFunction[int64, int64](fn)), func(int64) error { n.Add(1); return nil })
	c, err := env.ExecuteAsync(ctx, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-fn.finished:
	case <-ctx.Done():
		t.Fatal("subtask 0 did not finish")
	}
	for c.Status().Checkpoints.Failed == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("no checkpoint was declined while subtask 0 had finished")
		case <-c.Done():
			t.Fatal("the job ended early")
		case <-time.After(time.Millisecond):
		}
	}
	stop.Store(1000)
	res, err := c.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "has union list state and 1 of its 2 subtasks finished") {
		t.Errorf("the log does not say why checkpoints were declined")
	}
	if n.Load() != 1010 {
		t.Errorf("%d elements reached the sink, want 1010", n.Load())
	}
	if res.Restarts != 0 {
		t.Errorf("%d restarts, want none", res.Restarts)
	}
	if res.Checkpoints.Completed == 0 {
		t.Fatalf("no checkpoint completed, not even the final one")
	}
	// The final checkpoint holds the union entry of each subtask: subtask
	// 0 did not leave before it.
	st, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	md, err := st.ReadMetadata(ctx, res.Checkpoints.Latest)
	if err != nil {
		t.Fatal(err)
	}
	unions := 0
	for _, o := range md.Operators {
		entries, finished := 0, 0
		for _, s := range o.Subtasks {
			if s.Finished {
				finished++
			}
			for _, l := range s.OperatorLists {
				if l.Mode == storage.ModeUnion {
					entries += len(l.Entries)
				}
			}
		}
		if entries == 0 {
			continue
		}
		unions++
		if entries != 2 || finished != 0 {
			t.Errorf("the final checkpoint %s holds %d union entries of %s and %d finished subtasks, want 2 and none", res.Checkpoints.Latest, entries, o.Name, finished)
		}
	}
	if unions != 1 {
		t.Errorf("the final checkpoint has %d operators with union list state, want 1", unions)
	}
}
