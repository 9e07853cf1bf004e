package jobmaster_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/op"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
	"github.com/weir-engine/weir/internal/typeinfo"
)

// failOnce is a source that emits nothing; the first instance fails once
// fail is closed. Every instance sends what it restored from on restored.
type failOnce struct {
	op.Base
	first    bool
	fail     chan struct{}
	never    chan struct{}
	restored chan<- *op.Restored
}

func (s *failOnce) Open(ctx *op.Context) error {
	s.restored <- ctx.Restored
	return nil
}

func (s *failOnce) Available() <-chan struct{} {
	if s.first {
		return s.fail
	}
	return s.never
}

func (s *failOnce) PollNext() (op.Status, error) {
	if s.first {
		select {
		case <-s.fail:
			return op.EndOfInput, errors.New("injected failure")
		default:
		}
	}
	return op.NothingAvailable, nil
}

// commitRaceFS holds the metadata commit of checkpoint 2 (its existence
// check) until the restore after a failure reads checkpoint 1's metadata.
// That read lets the commit go on, waits until it wrote the metadata, and
// then gives the JobMaster a moment to act on it: to complete checkpoint
// 2, which it must not do, or to discard what was written, which ends the
// wait at once.
type commitRaceFS struct {
	storage.FS
	persisting, release, committed, settled chan struct{}
	holdOnce, readOnce, settleOnce          sync.Once
}

func metadataOf(name string, chk string) bool {
	return filepath.Base(name) == storage.MetadataFile && filepath.Base(filepath.Dir(name)) == chk
}

func (f *commitRaceFS) settle() { f.settleOnce.Do(func() { close(f.settled) }) }

func (f *commitRaceFS) Stat(name string) (int64, bool, error) {
	if metadataOf(name, "chk-2") {
		f.holdOnce.Do(func() {
			close(f.persisting)
			<-f.release
		})
	}
	return f.FS.Stat(name)
}

func (f *commitRaceFS) Open(name string) (storage.File, error) {
	if metadataOf(name, "chk-1") {
		select {
		case <-f.persisting:
			f.readOnce.Do(func() {
				close(f.release)
				<-f.committed
				select {
				case <-f.settled:
				case <-time.After(200 * time.Millisecond):
				}
			})
		default:
		}
	}
	return f.FS.Open(name)
}

func (f *commitRaceFS) Rename(oldname, newname string) error {
	err := f.FS.Rename(oldname, newname)
	if metadataOf(newname, "chk-2") {
		close(f.committed)
	}
	return err
}

func (f *commitRaceFS) Remove(name string) error {
	err := f.FS.Remove(name)
	if metadataOf(name, "chk-2") {
		f.settle()
	}
	return err
}

// TestRestoreStartsFromTheLatestCheckpoint: a checkpoint whose metadata is
// being written when a failure restarts the job does not complete after
// the restore picked the latest completed checkpoint. Were it to complete,
// the restarted tasks would start from an older checkpoint than the latest
// completed one: two-phase-commit sinks of the old tasks may have
// committed its output, which the restarted tasks write again, and a later
// restart would start from it after the restarted ones had discarded its
// pending output as referenced by no checkpoint they restored (a file
// sink's "neither the pending nor the committed file exists").
func TestRestoreStartsFromTheLatestCheckpoint(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fs := &commitRaceFS{FS: storage.OSFS(), persisting: make(chan struct{}), release: make(chan struct{}),
		committed: make(chan struct{}), settled: make(chan struct{})}
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{FS: fs, InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	restored := make(chan *op.Restored, 4)
	fail := make(chan struct{})
	var instances atomic.Int32
	src := &graph.Transformation{ID: 1, Kind: graph.KindSource, Name: "src", UID: "src", OutType: typeinfo.New[int](),
		Factory: func(any) (any, error) {
			first := instances.Add(1) == 1
			return &failOnce{first: first, fail: fail, never: make(chan struct{}), restored: restored}, nil
		}}
	sg, err := graph.Translate([]*graph.Transformation{src}, graph.Config{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var completed []int64
	// The real clock: checkpoints go out on their own.
	net := network.NewRegistry()
	tm := taskmanager.New("tm-0", 1, net, network.NewBufferPool(network.DefaultNetworkMemory, network.DefaultBufferSize), task.Config{}, nil)
	tm.UseStorage(st)
	_, done := runOn(t, ctx, graph.BuildJobGraph(sg), net, tm, jobmaster.Options{
		Restart: &scheduler.FixedDelay{Attempts: 1},
		Checkpoints: &jobmaster.CheckpointOptions{Storage: st,
			Options: checkpoint.Options{Enabled: true, Interval: 20 * time.Millisecond, Timeout: time.Minute},
			Completed: func(id int64, _ string) {
				mu.Lock()
				completed = append(completed, id)
				mu.Unlock()
				if id == 2 {
					fs.settle()
				}
			}},
	})
	if r := <-restored; r != nil {
		t.Fatalf("the first attempt restored checkpoint %d", r.CheckpointID)
	}
	<-fs.persisting // checkpoint 1 completed, 2 is being committed
	close(fail)
	r := <-restored
	cancel()
	if res := <-done; res.Status != scheduler.Canceled {
		t.Fatalf("job ended %s (%v), want CANCELED", res.Status, res.Err)
	}
	if r == nil {
		t.Fatal("the restarted attempt restored nothing, want checkpoint 1")
	}
	mu.Lock()
	defer mu.Unlock()
	if latest := completed[len(completed)-1]; r.CheckpointID != latest {
		t.Fatalf("restarted from checkpoint %d, but checkpoints %v completed: the latest completed after the restore picked its checkpoint", r.CheckpointID, completed)
	}
}
