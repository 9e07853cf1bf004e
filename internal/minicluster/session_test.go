package minicluster_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/clock"
	"github.com/weir-engine/weir/internal/minicluster"
	"github.com/weir-engine/weir/internal/scheduler"
)

var epoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func newCluster(t *testing.T, opts minicluster.ClusterOptions) *minicluster.Cluster {
	t.Helper()
	c, err := minicluster.NewCluster(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// wantFinished fails the test unless the job finished after restarts
// restarts with every record in the sinks of its last attempt.
func wantFinished(t *testing.T, name string, job *minicluster.Job, j *sessionJob, restarts int) {
	t.Helper()
	res := job.Wait()
	if res.Status != scheduler.Finished || res.Err != nil || res.Restarts != restarts {
		t.Fatalf("job %s ended %s (%v) after %d restarts, want FINISHED after %d", name, res.Status, res.Err, res.Restarts, restarts)
	}
	if got, want := j.received(restarts), j.complete(); !slices.Equal(got, want) {
		t.Fatalf("job %s: attempt %d received %d records, want %d", name, restarts, len(got), len(want))
	}
}

// freeSlots renders the cluster's TaskManagers as "tm-0:1/2" (free/slots).
func freeSlots(c *minicluster.Cluster) string {
	var parts []string
	for _, tm := range c.TaskManagers() {
		parts = append(parts, fmt.Sprintf("%s:%d/%d", tm.ID, tm.Free, tm.Slots))
	}
	return strings.Join(parts, " ")
}

// TaskManagers outlive jobs: two jobs run one after the other on the same
// TaskManagers, each getting all their slots, which are free again after.
func TestJobsOneAfterTheOther(t *testing.T) {
	c := newCluster(t, minicluster.ClusterOptions{TaskManagers: 2, Slots: 1})
	for _, name := range []string{"first", "second"} {
		j := newSessionJob(100, 2)
		close(j.release)
		wantFinished(t, name, c.Submit(context.Background(), name, j.graph(t), minicluster.JobOptions{}), j, 0)
		if got, want := freeSlots(c), "tm-0:1/1 tm-1:1/1"; got != want {
			t.Fatalf("after job %s: TaskManagers %s, want %s", name, got, want)
		}
	}
}

// Two jobs run at once, each in slots of its own: neither finishes before
// both run (their sources wait for each other).
func TestTwoJobsAtOnce(t *testing.T) {
	c := newCluster(t, minicluster.ClusterOptions{TaskManagers: 2, Slots: 2})
	a, b := newSessionJob(100, 2), newSessionJob(100, 2)
	b.release = a.release
	ja := c.Submit(context.Background(), "a", a.graph(t), minicluster.JobOptions{})
	jb := c.Submit(context.Background(), "b", b.graph(t), minicluster.JobOptions{})
	a.waitOpened()
	b.waitOpened()
	if got, want := freeSlots(c), "tm-0:0/2 tm-1:0/2"; got != want {
		t.Errorf("TaskManagers %s while both jobs run, want %s", got, want)
	}
	close(a.release)
	wantFinished(t, "a", ja, a, 0)
	wantFinished(t, "b", jb, b, 0)
}

// A job that needs more slots than the cluster has waits for them
// (SlotWait); a TaskManager added meanwhile lets it run.
func TestTaskManagerAddedWhileAJobWaits(t *testing.T) {
	c := newCluster(t, minicluster.ClusterOptions{TaskManagers: 1, Slots: 1})
	clk := clock.NewFake(epoch)
	j := newSessionJob(100, 2)
	close(j.release)
	job := c.Submit(context.Background(), "job", j.graph(t), minicluster.JobOptions{SlotWait: time.Minute, Clock: clk})
	clk.BlockUntil(1) // the JobMaster waits for slots
	if st := job.Status(); st.State != scheduler.Created {
		t.Fatalf("job %s while it waits for slots, want CREATED", st.State)
	}
	if _, err := c.AddTaskManager(0); err != nil {
		t.Fatal(err)
	}
	wantFinished(t, "job", job, j, 0)
	if got, want := freeSlots(c), "tm-0:1/1 tm-1:1/1"; got != want {
		t.Errorf("TaskManagers %s after the job, want %s", got, want)
	}
}

// A TaskManager removed while a job runs is lost: the job's executions
// there fail, and the job restarts in the slots left, on a spare
// TaskManager or on one added later, and finishes with every record.
func TestTaskManagerRemovedWhileAJobRuns(t *testing.T) {
	cases := []struct {
		name  string
		spare bool
		want  string
	}{
		{"a spare TaskManager takes over", true, "tm-1:1/1 tm-2:1/1"},
		{"the restart waits for a TaskManager added later", false, "tm-1:1/1 tm-2:1/1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tms := 2
			if tc.spare {
				tms = 3
			}
			c := newCluster(t, minicluster.ClusterOptions{TaskManagers: tms, Slots: 1})
			clk := clock.NewFake(epoch)
			j := newSessionJob(100, 2)
			j.holdFirst = true
			close(j.release)
			job := c.Submit(context.Background(), "job", j.graph(t), minicluster.JobOptions{
				Restart: &scheduler.FixedDelay{Attempts: 1, Delay: time.Second}, SlotWait: time.Minute, Clock: clk,
			})
			j.waitOpened()
			// The job runs on tm-0 and tm-1 (the most free slots first,
			// the earliest registered among equals).
			if err := c.RemoveTaskManager("tm-0"); err != nil {
				t.Fatal(err)
			}
			clk.BlockUntil(1) // the restart delay: every execution counts as ended
			if st := job.Status(); !errors.Is(st.Failure, scheduler.ErrTaskManagerLost) || !strings.Contains(st.Failure.Error(), "tm-0: removed from the cluster") {
				t.Fatalf("failure %v, want tm-0 lost", st.Failure)
			}
			clk.Advance(time.Second)
			if !tc.spare {
				clk.BlockUntil(1) // the restart waits for slots
				if st := job.Status(); st.State != scheduler.Restarting {
					t.Fatalf("job %s while its restart waits for slots, want RESTARTING", st.State)
				}
				if _, err := c.AddTaskManager(0); err != nil {
					t.Fatal(err)
				}
			}
			wantFinished(t, "job", job, j, 1)
			if got := freeSlots(c); got != tc.want {
				t.Errorf("TaskManagers %s after the job, want %s", got, tc.want)
			}
		})
	}
}

// A removed TaskManager concerns only the jobs with slots there: the other
// job runs on, undisturbed.
func TestRemovedTaskManagerRestartsOnlyItsJobs(t *testing.T) {
	c := newCluster(t, minicluster.ClusterOptions{TaskManagers: 3, Slots: 1})
	clk := clock.NewFake(epoch)
	a, b := newSessionJob(100, 1), newSessionJob(100, 1)
	a.holdFirst = true
	close(a.release)
	restart := minicluster.JobOptions{Restart: &scheduler.FixedDelay{Attempts: 1, Delay: time.Second}, Clock: clk}
	ja := c.Submit(context.Background(), "a", a.graph(t), restart)
	jb := c.Submit(context.Background(), "b", b.graph(t), restart)
	a.waitOpened()
	b.waitOpened()
	// a runs on tm-0, b on tm-1; tm-2 is spare.
	if err := c.RemoveTaskManager("tm-0"); err != nil {
		t.Fatal(err)
	}
	clk.BlockUntil(1) // a's restart
	clk.Advance(time.Second)
	wantFinished(t, "a", ja, a, 1)
	if st := jb.Status(); st.Generation != 0 || st.Failure != nil {
		t.Fatalf("job b: %s, generation %d, failure %v; want it undisturbed", st.State, st.Generation, st.Failure)
	}
	close(b.release)
	wantFinished(t, "b", jb, b, 0)
}

// Bad requests get clear errors; a closed cluster refuses work, and its
// running jobs end CANCELED (TestMain checks that no goroutine is left).
func TestClusterErrorsAndClose(t *testing.T) {
	c := newCluster(t, minicluster.ClusterOptions{TaskManagers: 1, Slots: 1})
	if err := c.RemoveTaskManager("tm-9"); err == nil || err.Error() != "minicluster: remove tm-9: no such TaskManager" {
		t.Errorf("RemoveTaskManager(tm-9) = %v", err)
	}
	if _, err := c.AddTaskManager(-1); err == nil {
		t.Error("AddTaskManager(-1) succeeded")
	}
	if _, err := minicluster.NewCluster(minicluster.ClusterOptions{Slots: -1}); err == nil ||
		err.Error() != "minicluster: Slots = -1: must not be negative (0 takes the default)" {
		t.Errorf("NewCluster with -1 slots: %v", err)
	}
	j := newSessionJob(1, 1)
	running := c.Submit(context.Background(), "job", j.graph(t), minicluster.JobOptions{})
	j.waitOpened()
	dup := c.Submit(context.Background(), "job", newSessionJob(1, 1).graph(t), minicluster.JobOptions{})
	if res := dup.Wait(); res.Status != scheduler.Failed || res.Err == nil || res.Err.Error() != "minicluster: job job runs already" {
		t.Errorf("a second job with a running job's id ended %s (%v)", res.Status, res.Err)
	}
	c.Close()
	if res := running.Wait(); res.Status != scheduler.Canceled {
		t.Errorf("a job running when the cluster closed ended %s (%v), want CANCELED", res.Status, res.Err)
	}
	if _, err := c.AddTaskManager(0); !errors.Is(err, minicluster.ErrClosed) {
		t.Errorf("AddTaskManager after Close: %v", err)
	}
	if res := c.Submit(context.Background(), "late", j.graph(t), minicluster.JobOptions{}).Wait(); !errors.Is(res.Err, minicluster.ErrClosed) {
		t.Errorf("Submit after Close: %s (%v)", res.Status, res.Err)
	}
	if tms := c.TaskManagers(); tms != nil {
		t.Errorf("a closed cluster lists TaskManagers %v", tms)
	}
}
