package weir

import (
	"context"
	"errors"
	"io"

	"github.com/weir-engine/weir/internal/cli"
)

// prepareRun decides, with internal/cli's run records, whether the program
// in env resumes an earlier run of job name from the checkpoint root of the
// engine flags (see internal/cli/runrecord.go), and sets env's job id,
// restore location and lineage accordingly. It returns the run's tracker:
// nil without a checkpoint directory. Messages go to stderr.
func prepareRun(ctx context.Context, env *Env, name string, e cli.EngineFlags, stderr io.Writer) (*cli.RunTracker, error) {
	if e.CheckpointDir == "" || env.opts.Checkpoints == nil {
		return nil, nil
	}
	jg, err := env.jobGraph()
	if err != nil {
		return nil, err
	}
	var uids []string
	for _, v := range jg.Vertices {
		for _, n := range v.Chain {
			uids = append(uids, n.UID)
		}
	}
	p := cli.RunProgram{Job: name, Fingerprint: jg.Fingerprint(), UIDs: uids, Dir: env.opts.Checkpoints.Dir,
		Logger: env.opts.Logger, JobID: NewJobID(), Lineage: env.opts.Lineage}
	t, err := cli.PrepareRun(ctx, p, e, stderr)
	if err != nil {
		return nil, err
	}
	if from := t.RestoreFrom(); from != "" {
		env.opts.RestoreFrom = from
	}
	env.opts.JobID, env.opts.Lineage = p.JobID, t.Lineage()
	return t, nil
}

// finishRun records in the run record of t how the run ended.
func finishRun(ctx context.Context, t *cli.RunTracker, res *Result, runErr error, stderr io.Writer) {
	end := cli.RunEnd{Err: runErr, Canceled: errors.Is(runErr, errCanceledByClient)}
	if res != nil {
		end.Savepoint, end.LatestCheckpoint = res.Savepoint, res.Checkpoints.Latest
	}
	t.Finish(ctx, end, stderr)
}
