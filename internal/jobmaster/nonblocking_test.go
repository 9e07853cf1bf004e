package jobmaster_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/checkpoint"
	"github.com/weir-engine/weir/internal/checkpoint/storage"
	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/task"
	"github.com/weir-engine/weir/internal/taskmanager"
	"gocloud.dev/blob"
)

// stuckBuckets opens no bucket: it closes reached and waits for release,
// then fails, as a store that does not answer would until a timeout.
type stuckBuckets struct {
	reached, release chan struct{}
}

func (s *stuckBuckets) OpenBucketURL(context.Context, *url.URL) (*blob.Bucket, error) {
	close(s.reached)
	<-s.release
	return nil, errors.New("stuck: no answer")
}

// TestSavepointStorageDoesNotBlockTheLoop: while the directory of one
// savepoint is being created in a store that does not answer, the
// JobMaster's loop goes on: another savepoint completes meanwhile, and
// the stuck one fails once the store gives up.
func TestSavepointStorageDoesNotBlockTheLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stuck := &stuckBuckets{reached: make(chan struct{}), release: make(chan struct{})}
	mux := new(blob.URLMux)
	mux.RegisterBucket("stuck", stuck)
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{URLMux: mux})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	net := network.NewRegistry()
	tm := taskmanager.New("tm-0", 1, net, network.NewBufferPool(network.DefaultNetworkMemory, network.DefaultBufferSize), task.Config{}, nil)
	tm.UseStorage(st)
	jm, done := runOn(t, ctx, keyedJob(t, nil), net, tm, jobmaster.Options{
		Clock: clock.NewFake(epoch),
		Checkpoints: &jobmaster.CheckpointOptions{Storage: st,
			Options: checkpoint.Options{Enabled: true, Interval: time.Hour}},
	})

	stuckReply := make(chan jobmaster.SavepointReply, 1)
	for triggered := false; !triggered; {
		// Until the task runs, the coordinator refuses the request.
		jm.TriggerSavepoint(jobmaster.SavepointRequest{Kind: checkpoint.Savepoint, Dir: "stuck://bucket/savepoints", Reply: stuckReply})
		select {
		case r := <-stuckReply:
			if !errors.Is(r.Err, checkpoint.ErrNoRunningTasks) {
				t.Fatalf("savepoint into a stuck store: %+v, want it refused until the task runs", r)
			}
		case <-stuck.reached:
			triggered = true
		}
	}
	reply := make(chan jobmaster.SavepointReply, 1)
	jm.TriggerSavepoint(jobmaster.SavepointRequest{Kind: checkpoint.Savepoint, Dir: t.TempDir(), Reply: reply})
	if r := <-reply; r.Err != nil {
		t.Fatalf("a savepoint while another's storage is stuck: %v", r.Err)
	}
	select {
	case r := <-stuckReply:
		t.Fatalf("the stuck savepoint ended (%v) before its store answered", r.Err)
	default:
	}
	close(stuck.release)
	if r := <-stuckReply; r.Err == nil || !strings.Contains(r.Err.Error(), "stuck: no answer") {
		t.Fatalf("stuck savepoint: %+v, want it failed with the store's error", r)
	}
	cancel()
	if res := <-done; res.Status != scheduler.Canceled {
		t.Fatalf("job ended %s (%v), want CANCELED", res.Status, res.Err)
	}
}
