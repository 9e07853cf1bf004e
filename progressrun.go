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
// are those that crossed a task boundary, as in the summary line. The
// percentage is the least advanced source's (the job's input ends with
// it), and there is none unless every source knows its size.
func progressOf(elapsed time.Duration, s JobStatus) cli.Progress {
	p := cli.Progress{Elapsed: elapsed, Checkpoints: s.Checkpoints.Completed}
	known, least := false, 2.0
	for _, v := range s.Vertices {
		p.Records += v.RecordsIn
		if !v.Source {
			continue
		}
		if v.SourceTotal < 0 {
			known, least = false, -1
			continue
		}
		if least < 0 {
			continue
		}
		known = true
		f := 1.0 // a source with nothing to emit is done
		if v.SourceTotal > 0 {
			f = float64(v.SourceEmitted) / float64(v.SourceTotal)
		}
		if f < least {
			least, p.SourceRecords, p.Total = f, v.SourceEmitted, v.SourceTotal
		}
	}
	if !known {
		p.SourceRecords, p.Total = 0, 0
	} else if p.Total == 0 {
		p.SourceRecords, p.Total = 1, 1 // every source is empty: done
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
