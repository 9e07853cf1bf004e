package weir

import (
	"context"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/cluster"
	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
)

// jobDirectory serves the REST API of a process's embedded mini-cluster:
// it implements rest.Dispatcher over the jobs started here.
type jobDirectory struct {
	mu   sync.Mutex
	jobs map[string]*JobClient
	ids  []string
}

func newJobDirectory() *jobDirectory { return &jobDirectory{jobs: make(map[string]*JobClient)} }

func (d *jobDirectory) add(c *JobClient) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.jobs[c.JobID()] = c
	d.ids = append(d.ids, c.JobID())
}

func (d *jobDirectory) lookup(id string) (*JobClient, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", rest.ErrNotFound, id)
	}
	return c, nil
}

// Jobs implements rest.Dispatcher.
func (d *jobDirectory) Jobs() []rest.JobInfo {
	d.mu.Lock()
	ids := append([]string(nil), d.ids...)
	d.mu.Unlock()
	out := make([]rest.JobInfo, 0, len(ids))
	for _, id := range ids {
		if info, err := d.Job(id); err == nil {
			out = append(out, info)
		}
	}
	return out
}

// Job implements rest.Dispatcher.
func (d *jobDirectory) Job(id string) (rest.JobInfo, error) {
	c, err := d.lookup(id)
	if err != nil {
		return rest.JobInfo{}, err
	}
	return jobInfo(c, c.job.Status()), nil
}

// TaskManagers implements rest.TaskManagerLister: the TaskManagers of
// the running jobs' mini-clusters.
func (d *jobDirectory) TaskManagers() []rest.TaskManagerInfo {
	d.mu.Lock()
	jobs := make(map[string]*JobClient, len(d.jobs))
	for id, c := range d.jobs {
		jobs[id] = c
	}
	d.mu.Unlock()
	statuses := make(map[string]jobmaster.Status, len(jobs))
	for id, c := range jobs {
		statuses[id] = c.job.Status()
	}
	return cluster.TaskManagersOf(statuses)
}

// Cancel implements rest.Dispatcher.
func (d *jobDirectory) Cancel(id string) error {
	c, err := d.lookup(id)
	if err != nil {
		return err
	}
	select {
	case <-c.Done():
		return fmt.Errorf("%w: job %s", rest.ErrJobEnded, id)
	default:
	}
	c.Cancel()
	return nil
}

// Savepoint implements rest.Dispatcher.
func (d *jobDirectory) Savepoint(ctx context.Context, id, dir string, stop, drain bool) (string, error) {
	c, err := d.lookup(id)
	if err != nil {
		return "", err
	}
	if stop {
		return c.StopWithSavepoint(ctx, dir, drain)
	}
	return c.TriggerSavepoint(ctx, dir)
}
