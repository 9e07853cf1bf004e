// Package rest is the JobManager's REST API: an HTTP server that answers
// Flink's paths with Flink's JSON field names over a Dispatcher, so that
// scripts and tools written for Flink's REST API work against Weir. It
// owns routing, request validation, the JSON shapes, the mapping of error
// kinds to status codes, and the asynchronous savepoint operations
// (triggers). It knows nothing of how jobs run: the Dispatcher does.
//
// # Endpoints
//
//	GET   /overview                           cluster overview
//	GET   /jobs                               {"jobs":[{"id","status"}]}
//	GET   /jobs/overview                      {"jobs":[{"jid","name","state","start-time",...}]}
//	GET   /jobs/:jobid                        job details with its vertices (and, on the
//	                                          adaptive scheduler, scheduler-state and rescales)
//	PATCH /jobs/:jobid?mode=cancel            cancel the job; 202 {}
//	GET   /jobs/:jobid/status                 {"status"}
//	GET   /jobs/:jobid/checkpoints            counts, summary, latest completed/savepoint/failed/restored, history
//	GET   /jobs/:jobid/checkpoints/config     the checkpoint configuration (404 without checkpoints)
//	GET   /jobs/:jobid/checkpoints/details/:checkpointid  one checkpoint of the history
//	GET   /jobs/:jobid/exceptions             the root cause of a failed job, the subtasks' failures
//	GET   /jobs/:jobid/plan                   the job graph: vertices and their inputs with ship strategies
//	GET   /jobs/:jobid/config                 the execution config
//	GET   /jobs/:jobid/accumulators           the user's counters
//	GET   /jobs/:jobid/vertices/:vertexid     a vertex and its subtasks (status, records, TaskManager)
//	GET   /jobs/:jobid/vertices/:vertexid/metrics[?get=0.numRecordsIn,...]       per-subtask metrics
//	GET   /jobs/:jobid/vertices/:vertexid/subtasks/metrics[?get=...&agg=...]     metrics over the subtasks
//	GET   /jobs/:jobid/vertices/:vertexid/backpressure  {"status","backpressureLevel","subtasks":[{"ratio","idleRatio","busyRatio",...}]}
//	GET   /jobs/:jobid/vertices/:vertexid/watermarks    [{"id":"<subtask>.currentInputWatermark","value"}]
//	GET   /config                             the dashboard's configuration
//	GET   /jobmanager/config                  [{"key","value"}]
//	GET   /taskmanagers[/:taskmanagerid]      the TaskManagers (of a TaskManagerLister) and their slots
//	GET   /metrics                            Prometheus text format, Flink's metric names (metrics.go)
//	GET   /                                   the web dashboard (internal/dashboard), its assets under /web/
//	POST  /jobs/:jobid/savepoints             {"target-directory","cancel-job"} -> 202 {"request-id"}
//	POST  /jobs/:jobid/stop                   {"targetDirectory","drain"} -> 202 {"request-id"}
//	GET   /jobs/:jobid/savepoints/:triggerid  {"status":{"id"},"operation":{"location"|"failure-cause"}}
//	GET   /jobs/:jobid/resource-requirements  {"<vertex id>":{"parallelism":{"lowerBound","upperBound"}}}
//	PUT   /jobs/:jobid/resource-requirements  the same, every vertex (adaptive scheduler) -> 200 {}
//
// Every path may also be prefixed with /v1, Flink's versioned form.
//
// # Errors
//
// Errors are Flink's {"errors":["..."]}: 404 for an unknown path, job or
// trigger; 400 for a malformed job or trigger id, a bad query parameter,
// or a request body that is not the expected JSON object (unknown fields,
// wrong types, trailing data); 405 with an Allow header for a method the
// path does not take; 409 when canceling a job that has ended (the
// Dispatcher wraps ErrJobEnded); 413 for an oversized body; 503 while the
// server shuts down; 500 for any other Dispatcher error. statusOf in
// errors.go is the one place that maps error kinds to codes. A handler
// never panics on input; a panic is a bug, answered 500 and logged.
//
// # Savepoint triggers
//
// POST .../savepoints and .../stop check that the job exists, then run
// Dispatcher.Savepoint in a goroutine owned by the server and answer at
// once with a trigger id (32 random hex characters, or the client's own
// "triggerId": repeating a trigger id for the same job returns the same
// operation without starting another, as Flink does). The result is kept
// under (job id, trigger id) for GET .../savepoints/:triggerid: a failed
// operation is "COMPLETED" with a failure-cause, as in Flink. At most
// Options.MaxTriggers results are kept; the oldest finished ones are
// dropped first. Close (or the end of Serve) cancels the context of the
// running operations and waits for them, so a Dispatcher must return from
// Savepoint when its context is canceled.
//
// # Choices where Weir differs from Flink
//
//   - Job vertex ids are ints in Weir; they are written as Flink's 32-hex
//     JobVertexID form, the int zero-padded in hex ("…0003" is vertex 3).
//   - Times are milliseconds since the epoch; a running job's end-time is
//     -1 and its duration runs to now (Options.Clock), as in Flink.
//   - "jobs-running" counts every job that has not reached a terminal
//     state (CREATED, RESTARTING, ... too), as Flink's overview does.
//   - Bytes are not measured: read-bytes and write-bytes are 0 and marked
//     incomplete; record counts are complete. A running subtask's counters
//     reach the JobMaster every second (taskmanager.DefaultMetricsInterval).
//   - The checkpoint history keeps the latest checkpoint.HistorySize
//     entries; per-vertex "tasks" of a checkpoint are empty, and
//     alignment_buffered, processed_data and persisted_data are 0 (not
//     measured).
//   - Back-pressure is not sampled from stack traces (Flink's old way) but
//     measured as Flink does now: the time a subtask's loop waited for an
//     output buffer (back-pressured), for input (idle), and the rest
//     (busy), per second between two reports of its TaskManager. Flink's
//     level is written under both of its names, "backpressureLevel" and
//     "backpressure-level".
//   - A Go error has no class: "failure-cause" and exception entries name
//     the class "error", and the stack trace is the error's message.
//   - "formatType" of a savepoint request accepts only CANONICAL (Weir
//     has one savepoint format); NATIVE is refused rather than ignored.
//
// # Lifecycle
//
// NewServer builds a Server; Serve runs it on a listener until its context
// ends (then shuts down gracefully and stops the triggers), or Start runs
// it in the background on an address and Close stops it. Listen binds a
// host-less address (":8081") to 127.0.0.1, not to every interface.
// Handler exposes the routes for tests and embedding; whoever uses it
// alone must call Close to stop the triggers.
package rest
