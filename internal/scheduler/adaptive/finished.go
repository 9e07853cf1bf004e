package adaptive

import "github.com/weir-engine/weir/internal/scheduler"

// finished is the end: the job is FINISHED, FAILED or CANCELED and no
// event changes it. Entering it reports scheduler.Terminated (Reports).
type finished struct {
	status scheduler.JobStatus
	err    error
}

// newFinished ends the job with status (err for FAILED).
func newFinished(ctx Context, status scheduler.JobStatus, err error) State {
	f := &finished{status: status, err: err}
	ctx.Entered(f)
	ctx.Terminate(status, err)
	return f
}

// Name implements State.
func (*finished) Name() string { return "Finished" }

// Status implements State.
func (f *finished) Status() scheduler.JobStatus { return f.status }

// Handle implements State: nothing changes a finished job.
func (f *finished) Handle(Context, any) State { return f }
