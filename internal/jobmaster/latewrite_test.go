package jobmaster_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// keyedSource emits nothing and never ends; its snapshot is keyed state,
// one section per key group it owns. It sends what it restored from on
// restored, when set.
type keyedSource struct {
	op.Base
	never    chan struct{}
	groups   [2]int
	restored chan<- *op.Restored
}

func (s *keyedSource) Open(ctx *op.Context) error {
	s.groups = [2]int{ctx.KeyGroups.Start, ctx.KeyGroups.End}
	if s.restored != nil {
		s.restored <- ctx.Restored
	}
	return nil
}

func (s *keyedSource) Available() <-chan struct{}   { return s.never }
func (s *keyedSource) PollNext() (op.Status, error) { return op.NothingAvailable, nil }

func (s *keyedSource) SnapshotState(int64) (*op.Snapshot, error) {
	return &op.Snapshot{Keyed: sections{start: s.groups[0], end: s.groups[1]}}, nil
}

type sections struct{ start, end int }

func (k sections) Write(ctx context.Context, dir *storage.CheckpointDir, name string) (storage.KeyedStateHandle, error) {
	return dir.WriteKeyGroups(ctx, name, k.start, k.end, func(kg int) ([]byte, error) { return fmt.Appendf(nil, "kg%d", kg), nil })
}

func (sections) Release() {}

func keyedJob(t *testing.T, restored chan<- *op.Restored) *graph.JobGraph {
	t.Helper()
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", UID: "src", OutType: typeinfo.New[int](),
		Factory: func(any) (any, error) { return &keyedSource{never: make(chan struct{}), restored: restored}, nil }}
	sg, err := graph.Translate([]*graph.Transformation{src}, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	return graph.BuildJobGraph(sg)
}

// lateFS holds back a task's first touch of a savepoint directory (the
// Stat that starts its state write) until release is closed, after
// closing writing; it closes aborted once the JobMaster's abort of the
// savepoint looked at the directory, and wrote once a file was renamed
// into it (which, held back so, happens after the abort).
type lateFS struct {
	storage.FS
	writing, release, aborted, wrote chan struct{}
	mu                               sync.Mutex
	stats                            int
	once                             sync.Once
}

func savepointDir(name string) bool {
	return strings.HasPrefix(filepath.Base(name), "savepoint-")
}

func (l *lateFS) Stat(name string) (int64, bool, error) {
	if !savepointDir(name) {
		return l.FS.Stat(name)
	}
	l.mu.Lock()
	l.stats++
	n := l.stats
	l.mu.Unlock()
	if n == 1 {
		close(l.writing)
		<-l.release
	}
	size, dir, err := l.FS.Stat(name)
	if n == 2 {
		close(l.aborted)
	}
	return size, dir, err
}

func (l *lateFS) Rename(oldname, newname string) error {
	err := l.FS.Rename(oldname, newname)
	if err == nil && savepointDir(filepath.Dir(newname)) {
		l.once.Do(func() { close(l.wrote) })
	}
	return err
}

// TestLateWriteOfAnAbortedSavepointIsDeleted: a task's state write that
// ends after its savepoint timed out and was aborted (and so makes the
// savepoint's directory again) is acknowledged too late to count; the
// JobMaster deletes what it wrote.
func TestLateWriteOfAnAbortedSavepointIsDeleted(t *testing.T) {
	const timeout = 10 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fs := &lateFS{FS: storage.OSFS(), writing: make(chan struct{}), release: make(chan struct{}), aborted: make(chan struct{}), wrote: make(chan struct{})}
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{FS: fs, InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	clk := clock.NewFake(epoch)
	net := network.NewRegistry()
	tm := taskmanager.New("tm-0", 1, net, network.NewBufferPool(network.DefaultNetworkMemory, network.DefaultBufferSize), task.Config{}, nil)
	tm.UseStorage(st)
	jm, done := runOn(t, ctx, keyedJob(t, nil), net, tm, jobmaster.Options{
		Clock: clk,
		Checkpoints: &jobmaster.CheckpointOptions{Storage: st,
			Options: checkpoint.Options{Enabled: true, Interval: time.Hour, Timeout: timeout}},
	})

	target := t.TempDir()
	reply := make(chan jobmaster.SavepointReply, 1)
	// Until the task runs, the coordinator refuses the request.
	for {
		jm.TriggerSavepoint(jobmaster.SavepointRequest{Kind: checkpoint.Savepoint, Dir: target, Reply: reply})
		select {
		case r := <-reply:
			if !errors.Is(r.Err, checkpoint.ErrNoRunningTasks) {
				t.Fatalf("savepoint: %+v, want it refused until the task runs", r)
			}
			continue
		case <-fs.writing:
		}
		break
	}
	clk.Advance(timeout)
	if r := <-reply; r.Err == nil {
		t.Fatalf("savepoint completed at %s, want it timed out", r.Location)
	}
	<-fs.aborted
	close(fs.release)
	<-fs.wrote // the late write made the directory again and wrote its file
	cancel()
	if res := <-done; res.Status != scheduler.Canceled {
		t.Fatalf("job ended %s (%v), want CANCELED", res.Status, res.Err)
	}
	entries, err := os.ReadDir(target)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left behind by a savepoint that never completed", e.Name())
	}
}
