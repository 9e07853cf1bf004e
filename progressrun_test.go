package weir

import (
	"testing"
	"time"
)

// The progress line's percentage is that of the least advanced source, and
// there is none unless every source knows its size.
func TestProgressOfSources(t *testing.T) {
	src := func(emitted, total int64) VertexMetrics {
		return VertexMetrics{Name: "src", Source: true, SourceEmitted: emitted, SourceTotal: total}
	}
	op := VertexMetrics{Name: "op", RecordsIn: 7}
	for _, tt := range []struct {
		name           string
		vertices       []VertexMetrics
		emitted, total int64
		records        int64
	}{
		{"one source", []VertexMetrics{src(25, 100), op}, 25, 100, 7},
		{"the least advanced of two", []VertexMetrics{src(90, 100), src(10, 1000), op}, 10, 1000, 7},
		{"an unknown size first hides the percentage", []VertexMetrics{src(0, -1), src(10, 100)}, 0, 0, 0},
		{"an unknown size last hides the percentage", []VertexMetrics{src(10, 100), src(0, -1)}, 0, 0, 0},
		{"an empty source is done", []VertexMetrics{src(0, 0), src(5, 10)}, 5, 10, 0},
		{"every source empty: done", []VertexMetrics{src(0, 0)}, 1, 1, 0},
		{"no source", []VertexMetrics{op}, 0, 0, 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := progressOf(time.Second, JobStatus{Vertices: tt.vertices})
			if p.SourceRecords != tt.emitted || p.Total != tt.total || p.Records != tt.records || p.Elapsed != time.Second {
				t.Errorf("progress %+v, want source records %d of %d, records %d", p, tt.emitted, tt.total, tt.records)
			}
		})
	}
}
