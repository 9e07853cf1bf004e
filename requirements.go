package weir

import (
	"context"
	"fmt"

	"github.com/weir-engine/weir/internal/jobmaster"
	"github.com/weir-engine/weir/internal/rest"
	"github.com/weir-engine/weir/internal/scheduler/adaptive"
)

// FLIP-291 for the REST API: a job's parallelism bounds changed at
// runtime, by the JobManager's Dispatcher (clusterJob) and by `weir run
// --rest-addr`'s (jobDirectory).

// requirementsUpdater is a runner.Job whose JobMaster takes new bounds.
type requirementsUpdater interface {
	UpdateRequirements(jobmaster.RequirementsRequest)
}

// updateRequirements sets the bounds of c's vertices: refused bounds, or
// a job not on the adaptive scheduler, are rest.ErrBadSubmission (400).
func (c *JobClient) updateRequirements(ctx context.Context, bounds map[int]rest.Bounds) error {
	u, ok := c.job.(requirementsUpdater)
	if !ok {
		return rest.BadSubmission(fmt.Errorf("weir: job %q: %w", c.name, jobmaster.ErrNotAdaptive))
	}
	select {
	case <-c.job.Done():
		return fmt.Errorf("%w: job %s", rest.ErrJobEnded, c.JobID())
	default:
	}
	r := jobmaster.RequirementsRequest{Bounds: make(map[int]adaptive.Bounds, len(bounds)), Reply: make(chan error, 1)}
	for v, b := range bounds {
		r.Bounds[v] = adaptive.Bounds{Min: b.Lower, Max: b.Upper}
	}
	u.UpdateRequirements(r)
	select {
	case err := <-r.Reply:
		if err != nil {
			return rest.BadSubmission(fmt.Errorf("weir: resource requirements of job %q: %w", c.name, err))
		}
		return nil
	case <-c.job.Done():
		return fmt.Errorf("%w: job %s", rest.ErrJobEnded, c.JobID())
	case <-ctx.Done():
		return fmt.Errorf("weir: resource requirements of job %q: %w", c.name, ctx.Err())
	}
}

// requirementsInfo are s's bounds for the REST API (nil on the default
// scheduler).
func requirementsInfo(s jobmaster.Status) map[int]rest.Bounds {
	if s.Requirements == nil {
		return nil
	}
	out := make(map[int]rest.Bounds, len(s.Requirements))
	for v, b := range s.Requirements {
		out[v] = rest.Bounds{Lower: b.Min, Upper: b.Max}
	}
	return out
}

// UpdateRequirements implements rest.RequirementsUpdater.
func (d *jobDirectory) UpdateRequirements(ctx context.Context, id string, bounds map[int]rest.Bounds) error {
	c, err := d.Lookup(id)
	if err != nil {
		return err
	}
	return c.updateRequirements(ctx, bounds)
}

// UpdateRequirements implements cluster.RequirementsUpdater.
func (j clusterJob) UpdateRequirements(ctx context.Context, bounds map[int]rest.Bounds) error {
	return j.updateRequirements(ctx, bounds)
}

var _ rest.RequirementsUpdater = (*jobDirectory)(nil)
