// Package runner executes the job graphs that the public API (package
// weir) builds. It owns everything between a translated JobGraph and a
// running job: opening checkpoint storage, choosing the restart strategy,
// starting the cluster and handing back a Job to watch, savepoint and
// cancel.
//
// The public API calls only the Runner interface. Embedded is the
// implementation used today: it starts a mini-cluster in the calling
// process for every job and tears it down when the job ends. A runner that
// submits to a remote JobManager implements the same interface later,
// without a change to package weir.
//
// Callers must call Job.Wait once the job is of no more interest: it
// releases what Submit acquired (the checkpoint storage, a temporary
// checkpoint directory).
package runner
