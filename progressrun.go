package weir

import (
	"time"

	"github.com/weir-engine/weir/internal/cli"
	"github.com/weir-engine/weir/internal/graph"
)

// progressEvery is how often `weir run` in a terminal redraws its
// progress line.
const progressEvery = 250 * time.Millisecond

// bounded reports whether every source of the next execution ends.
func (e *Env) bounded() bool {
	for _, t := range graph.Upstream(e.sinks) {
		if t.Kind == graph.KindSource && !t.Bounded {
			return false
		}
	}
	return true
}

// watchProgress reports c's progress to report every progressEvery until
// the job ended or stop is called; stop returns once report is no longer
// called.
func watchProgress(c *JobClient, report func(cli.Progress)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-c.Done():
				return
			case <-tick.C:
				report(progressOf(time.Since(c.StartTime()), c.Status()))
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// progressOf is the progress line's view of a job's status. The records
// are those that crossed a task boundary, as in the summary line; the
// sources do not report their size yet, so there is no percentage.
func progressOf(elapsed time.Duration, s JobStatus) cli.Progress {
	p := cli.Progress{Elapsed: elapsed, Checkpoints: s.Checkpoints.Completed}
	for _, v := range s.Vertices {
		p.Records += v.RecordsIn
	}
	return p
}

// summaryVertices are the rows of the summary table.
func summaryVertices(vs []VertexMetrics) []cli.VertexSummary {
	out := make([]cli.VertexSummary, 0, len(vs))
	for _, v := range vs {
		out = append(out, cli.VertexSummary{Name: v.Name, Parallelism: v.Parallelism, RecordsIn: v.RecordsIn, RecordsOut: v.RecordsOut})
	}
	return out
}
