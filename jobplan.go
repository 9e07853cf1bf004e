package weir

import (
	"context"

	"github.com/weir-engine/weir/internal/cli"
	"github.com/weir-engine/weir/internal/graph"
)

var _ cli.Planner = jobRunner{}

// Plan implements cli.Planner: it builds the job as Run does and
// translates it into the job graph an execution would run, without
// running it.
func (r jobRunner) Plan(_ context.Context, req cli.RunRequest) (cli.Plan, error) {
	env, err := r.build(req)
	if err != nil {
		return cli.Plan{}, err
	}
	jg, err := env.jobGraph()
	if err != nil {
		return cli.Plan{}, cli.Usage(&jobError{job: req.Job, err: err})
	}
	return planOf(req.Job, jg), nil
}

// planOf describes jg for the command line.
func planOf(job string, jg *graph.JobGraph) cli.Plan {
	p := cli.Plan{Job: job, Batch: jg.Batch}
	for _, v := range jg.Vertices {
		pv := cli.PlanVertex{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism}
		for _, n := range v.Chain {
			pv.Operators = append(pv.Operators, n.Name)
		}
		for _, e := range v.Outputs {
			pv.Outputs = append(pv.Outputs, cli.PlanEdge{Target: e.Target.ID, Partitioning: e.StreamEdge.Partitioner.Kind.String(), Blocking: e.Blocking})
		}
		p.Vertices = append(p.Vertices, pv)
	}
	return p
}
