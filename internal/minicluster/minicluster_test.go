package minicluster_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// A job runs to completion on mini-clusters of several shapes; every
// record the sources emit reaches the sinks. (TestMain's goleak checks
// that the cluster left no goroutine behind.)
func TestRunsJobToCompletion(t *testing.T) {
	cases := []struct {
		name                string
		taskManagers, slots int
		parallelism         int
	}{
		{"defaults: one TaskManager sized for the job", 0, 0, 3},
		{"two TaskManagers of one slot", 2, 1, 2},
		{"three TaskManagers of two slots, one spare", 3, 2, 5},
		{"more TaskManagers than subtasks", 4, 0, 2},
	}
	const n = 10
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := minicluster.Run(context.Background(), "job", sourceToSink(t, c.parallelism, n, nil),
				minicluster.Options{TaskManagers: c.taskManagers, Slots: c.slots})
			if res.Status != scheduler.Finished || res.Err != nil {
				t.Fatalf("status %s, err %v; want FINISHED", res.Status, res.Err)
			}
			if res.JobID != "job" || res.Duration <= 0 {
				t.Errorf("result of job %q after %v", res.JobID, res.Duration)
			}
			want := map[string][2]int64{"src": {0, n * int64(c.parallelism)}, "sink": {n * int64(c.parallelism), 0}}
			for _, v := range res.Vertices {
				if got := [2]int64{v.RecordsIn, v.RecordsOut}; got != want[v.Name] || v.Parallelism != c.parallelism {
					t.Errorf("vertex %s: records in/out %v at parallelism %d, want %v at %d", v.Name, got, v.Parallelism, want[v.Name], c.parallelism)
				}
			}
			if len(res.Vertices) != 2 {
				t.Errorf("%d vertices in the result, want 2", len(res.Vertices))
			}
		})
	}
}

// The cluster has TaskManagers x Slots slots: a job that needs more fails
// at submission and says how many there are.
func TestClusterHasTheConfiguredSlots(t *testing.T) {
	cases := []struct {
		taskManagers, slots, parallelism int
		want                             string
	}{
		{2, 1, 3, "the job needs 3 slots, 2 are free"},
		{3, 2, 7, "the job needs 7 slots, 6 are free"},
		{1, 4, 5, "the job needs 5 slots, 4 are free"},
	}
	for _, c := range cases {
		t.Run(c.want, func(t *testing.T) {
			job := minicluster.Submit(context.Background(), "job", sourceToSink(t, c.parallelism, 1, nil),
				minicluster.Options{TaskManagers: c.taskManagers, Slots: c.slots})
			res := job.Wait()
			if res.Status != scheduler.Failed || !errors.Is(res.Err, slots.ErrNotEnoughSlots) || !strings.Contains(res.Err.Error(), c.want) {
				t.Fatalf("status %s, err %v; want FAILED saying %q", res.Status, res.Err, c.want)
			}
			if st := job.Status(); st.State != scheduler.Failed || !errors.Is(st.Failure, slots.ErrNotEnoughSlots) {
				t.Fatalf("status %+v of a job that failed at submission", st)
			}
		})
	}
}

// Every TaskManager has NetworkMemory of its own: a job whose subtasks on
// one TaskManager need more buffers than that fails at submission, naming
// the TaskManager and what it has.
func TestEachTaskManagerHasTheConfiguredNetworkMemory(t *testing.T) {
	oneBuffer := int64(network.BufferMemory(network.DefaultBufferSize))
	cases := []struct {
		name         string
		taskManagers int
		// need is the buffers the busiest TaskManager needs at least: one
		// per input channel and per subpartition of its subtasks.
		need int
	}{
		{"one TaskManager runs both pairs", 1, 4},
		{"two TaskManagers run one pair each", 2, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := minicluster.Run(context.Background(), "job", sourceToSink(t, 2, 1, nil),
				minicluster.Options{TaskManagers: c.taskManagers, NetworkMemory: oneBuffer})
			var ie *network.InsufficientError
			if res.Status != scheduler.Failed || !errors.As(res.Err, &ie) {
				t.Fatalf("status %s, err %v; want FAILED with an InsufficientError", res.Status, res.Err)
			}
			if ie.TaskManager != "tm-0" || ie.Need != c.need || ie.Capacity.Buffers != 1 || ie.Capacity.Memory != oneBuffer {
				t.Fatalf("%s needs %d buffers and has %v; want tm-0 to need %d and have 1", ie.TaskManager, ie.Need, ie.Capacity, c.need)
			}
		})
	}
}

// Negative sizes are refused with an error that names the option; the job
// fails before any goroutine starts.
func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		name string
		opts minicluster.Options
		want string
	}{
		{"zero takes the defaults", minicluster.Options{}, ""},
		{"positive", minicluster.Options{TaskManagers: 2, Slots: 3, Credit: 1, Backlog: 1, NetworkMemory: 1 << 20}, ""},
		{"TaskManagers", minicluster.Options{TaskManagers: -1}, "minicluster: TaskManagers = -1: must not be negative"},
		{"Slots", minicluster.Options{Slots: -2}, "minicluster: Slots = -2: must not be negative"},
		{"Credit", minicluster.Options{Credit: -1}, "minicluster: Credit = -1: must not be negative"},
		{"Backlog", minicluster.Options{Backlog: -1}, "minicluster: Backlog = -1: must not be negative"},
		{"NetworkMemory", minicluster.Options{NetworkMemory: -1 << 20}, "minicluster: NetworkMemory = -1048576: must not be negative"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.Validate()
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want %q", err, c.want)
			}
			job := minicluster.Submit(context.Background(), "job", sourceToSink(t, 1, 1, nil), c.opts)
			select {
			case <-job.Done():
			default:
				t.Fatal("a job with invalid options is not done at once")
			}
			if res := job.Wait(); res.Status != scheduler.Failed || res.Err == nil || res.Err.Error() != err.Error() {
				t.Fatalf("job ended %s with %v, want FAILED with %v", res.Status, res.Err, err)
			}
			reply := make(chan jobmaster.SavepointReply, 1)
			job.TriggerSavepoint(jobmaster.SavepointRequest{Reply: reply})
			if r := <-reply; r.Err == nil || r.Err.Error() != err.Error() {
				t.Fatalf("savepoint of a failed job: %+v, want its failure", r)
			}
		})
	}
}

// Cancelling the context cancels a running job that would run for ever;
// the job then reports its end time, and the cluster's goroutines are gone
// (TestMain).
func TestCancelEndsTheJob(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	opened := make(chan struct{}, 2)
	job := minicluster.Submit(ctx, "job", sourceToSink(t, 2, endless, opened), minicluster.Options{TaskManagers: 2})
	<-opened
	<-opened
	if !job.EndTime().IsZero() {
		t.Fatal("end time while the job runs")
	}
	cancel()
	res := job.Wait()
	if res.Status != scheduler.Canceled {
		t.Fatalf("status %s, err %v; want CANCELED", res.Status, res.Err)
	}
	if job.EndTime().IsZero() {
		t.Fatal("no end time after the job ended")
	}
	if st := job.Status(); st.State != scheduler.Canceled {
		t.Fatalf("status %s after the end, want CANCELED", st.State)
	}
}
