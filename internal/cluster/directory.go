package cluster

import (
	"context"
	"fmt"
	"sync"

	"github.com/weir-engine/weir/internal/rest"
)

// Directory is the rest.Dispatcher of a set of jobs: the JobManager's
// Dispatcher's, and that of `weir run --rest-addr`'s embedded job.
type Directory struct {
	mu   sync.Mutex
	jobs map[string]Job
	ids  []string
}

var _ rest.Dispatcher = (*Directory)(nil)

// NewDirectory returns an empty directory.
func NewDirectory() *Directory { return &Directory{jobs: make(map[string]Job)} }

// Add lists j.
func (d *Directory) Add(j Job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.jobs[j.JobID()] = j
	d.ids = append(d.ids, j.JobID())
}

func (d *Directory) lookup(id string) (Job, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	j, ok := d.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w: %s", rest.ErrNotFound, id)
	}
	return j, nil
}

// Jobs implements rest.Dispatcher, oldest first.
func (d *Directory) Jobs() []rest.JobInfo {
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
func (d *Directory) Job(id string) (rest.JobInfo, error) {
	j, err := d.lookup(id)
	if err != nil {
		return rest.JobInfo{}, err
	}
	return JobInfo(j), nil
}

// RESTDescriber is implemented by a Job that describes itself for the
// REST API in full (its graph's edges, subtasks, checkpoint
// configuration, exceptions); JobInfo then uses its description.
type RESTDescriber interface {
	RESTInfo() rest.JobInfo
}

// JobInfo describes j for the REST API.
func JobInfo(j Job) rest.JobInfo {
	if d, ok := j.(RESTDescriber); ok {
		return d.RESTInfo()
	}
	info := rest.JobInfo{ID: j.JobID(), Name: j.Name(), Start: j.StartTime(), End: j.EndTime()}
	FillStatus(&info, j.Status(), nil)
	return info
}

// RequirementsUpdater is implemented by a Job that takes new parallelism
// bounds at runtime (FLIP-291).
type RequirementsUpdater interface {
	UpdateRequirements(ctx context.Context, bounds map[int]rest.Bounds) error
}

var _ rest.RequirementsUpdater = (*Directory)(nil)

// UpdateRequirements implements rest.RequirementsUpdater.
func (d *Directory) UpdateRequirements(ctx context.Context, id string, bounds map[int]rest.Bounds) error {
	j, err := d.lookup(id)
	if err != nil {
		return err
	}
	u, ok := j.(RequirementsUpdater)
	if !ok {
		return rest.BadSubmission(fmt.Errorf("job %s does not change its resource requirements", id))
	}
	return u.UpdateRequirements(ctx, bounds)
}

// Cancel implements rest.Dispatcher.
func (d *Directory) Cancel(id string) error {
	j, err := d.lookup(id)
	if err != nil {
		return err
	}
	select {
	case <-j.Done():
		return fmt.Errorf("%w: job %s", rest.ErrJobEnded, id)
	default:
	}
	j.Cancel()
	return nil
}

// Savepoint implements rest.Dispatcher.
func (d *Directory) Savepoint(ctx context.Context, id, dir string, stop, drain bool) (string, error) {
	j, err := d.lookup(id)
	if err != nil {
		return "", err
	}
	if stop {
		return j.StopWithSavepoint(ctx, dir, drain)
	}
	return j.TriggerSavepoint(ctx, dir)
}
