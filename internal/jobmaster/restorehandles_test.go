package jobmaster_test

import (
	"context"
	"errors"
	"fmt"
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
)

// runKeyed starts jg on a JobMaster over one TaskManager, which shares st
// when it is not nil, and returns the JobMaster and its Result channel.
func runKeyed(t *testing.T, ctx context.Context, jg *graph.JobGraph, st *storage.Storage, opts jobmaster.Options) (*jobmaster.JobMaster, <-chan jobmaster.Result) {
	t.Helper()
	net := network.NewRegistry()
	tm := taskmanager.New("tm-0", 1, net, network.NewBufferPool(network.DefaultNetworkMemory, network.DefaultBufferSize), task.Config{}, nil)
	if st != nil {
		tm.UseStorage(st)
	}
	opts.Clock = clock.NewFake(epoch)
	return runOn(t, ctx, jg, net, tm, opts)
}

// TestSavepointRestoresWithoutCheckpointing: the JobMaster of a job
// without checkpoint storage reads only the savepoint's metadata and
// deploys handles; the TaskManager opens the savepoint's storage itself
// and the source gets every key group back.
func TestSavepointRestoresWithoutCheckpointing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := storage.Open(ctx, t.TempDir(), storage.Options{InlineThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opened := make(chan *op.Restored, 1)
	jg := keyedJob(t, opened)
	jm, done := runKeyed(t, ctx, jg, st, jobmaster.Options{Checkpoints: &jobmaster.CheckpointOptions{Storage: st,
		Options: checkpoint.Options{Enabled: true, Interval: time.Hour}}})
	if r := <-opened; r != nil {
		t.Fatalf("a fresh job restored %+v", r)
	}
	var location string
	for location == "" {
		// Until the task runs, the coordinator refuses the request.
		reply := make(chan jobmaster.SavepointReply, 1)
		jm.TriggerSavepoint(jobmaster.SavepointRequest{Kind: checkpoint.Savepoint, Dir: t.TempDir(), Reply: reply})
		r := <-reply
		if r.Err != nil && !errors.Is(r.Err, checkpoint.ErrNoRunningTasks) {
			t.Fatal(r.Err)
		}
		location = r.Location
	}
	cancel()
	if res := <-done; res.Status != scheduler.Canceled {
		t.Fatalf("first job ended %s (%v)", res.Status, res.Err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, done = runKeyed(t, ctx, jg, nil, jobmaster.Options{RestoreFrom: location})
	got := <-opened
	maxP := jg.Vertices[0].Chain[0].MaxParallelism
	if got == nil || len(got.KeyGroups) != maxP {
		t.Fatalf("restored %+v, want all %d key groups", got, maxP)
	}
	for kg, b := range got.KeyGroups {
		if string(b) != fmt.Sprintf("kg%d", kg) {
			t.Errorf("key group %d restored %q", kg, b)
		}
	}
	cancel()
	if res := <-done; res.Status != scheduler.Canceled {
		t.Fatalf("restored job ended %s (%v)", res.Status, res.Err)
	}
}
