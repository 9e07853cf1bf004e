package cluster

import (
	"context"
	"fmt"
	"maps"
	"sync"

	"github.com/weir-engine/weir/internal/jobmaster"

	"github.com/weir-engine/weir/internal/rest"
)

// Listed is what a Directory needs of a job: its id, its end, and the
// REST API's actions on it.
type Listed interface {
	JobID() string
	Done() <-chan struct{}
	Cancel()
	TriggerSavepoint(ctx context.Context, dir string) (string, error)
	StopWithSavepoint(ctx context.Context, dir string, drain bool) (string, error)
}

// Directory is the rest.Dispatcher of a set of jobs: the JobManager's
// Dispatcher's (of Jobs), and that of `weir run --rest-addr`'s embedded
// jobs (of the root package's job clients). describe says what the REST
// API shows of a job.
type Directory[J Listed] struct {
	mu       sync.Mutex
	jobs     map[string]J
	ids      []string
	describe func(J) rest.JobInfo
}

// NewDirectory returns an empty directory whose jobs describe describes.
func NewDirectory[J Listed](describe func(J) rest.JobInfo) *Directory[J] {
	return &Directory[J]{jobs: make(map[string]J), describe: describe}
}

// Add lists j.
func (d *Directory[J]) Add(j J) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.jobs[j.JobID()] = j
	d.ids = append(d.ids, j.JobID())
}

// Lookup returns the job with the given id, or an error wrapping
// rest.ErrNotFound.
func (d *Directory[J]) Lookup(id string) (J, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	j, ok := d.jobs[id]
	if !ok {
		var none J
		return none, fmt.Errorf("%w: %s", rest.ErrNotFound, id)
	}
	return j, nil
}

// Statuses returns the status of every listed job, by job id.
func (d *Directory[J]) Statuses(status func(J) jobmaster.Status) map[string]jobmaster.Status {
	d.mu.Lock()
	jobs := maps.Clone(d.jobs)
	d.mu.Unlock()
	out := make(map[string]jobmaster.Status, len(jobs))
	for id, j := range jobs {
		out[id] = status(j)
	}
	return out
}

// Jobs implements rest.Dispatcher, oldest first.
func (d *Directory[J]) Jobs() []rest.JobInfo {
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
func (d *Directory[J]) Job(id string) (rest.JobInfo, error) {
	j, err := d.Lookup(id)
	if err != nil {
		return rest.JobInfo{}, err
	}
	return d.describe(j), nil
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

var _ rest.RequirementsUpdater = (*Directory[Job])(nil)

// UpdateRequirements implements rest.RequirementsUpdater.
func (d *Directory[J]) UpdateRequirements(ctx context.Context, id string, bounds map[int]rest.Bounds) error {
	j, err := d.Lookup(id)
	if err != nil {
		return err
	}
	u, ok := any(j).(RequirementsUpdater)
	if !ok {
		return rest.BadSubmission(fmt.Errorf("job %s does not change its resource requirements", id))
	}
	return u.UpdateRequirements(ctx, bounds)
}

// Cancel implements rest.Dispatcher.
func (d *Directory[J]) Cancel(id string) error {
	j, err := d.Lookup(id)
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
func (d *Directory[J]) Savepoint(ctx context.Context, id, dir string, stop, drain bool) (string, error) {
	j, err := d.Lookup(id)
	if err != nil {
		return "", err
	}
	if stop {
		return j.StopWithSavepoint(ctx, dir, drain)
	}
	return j.TriggerSavepoint(ctx, dir)
}
