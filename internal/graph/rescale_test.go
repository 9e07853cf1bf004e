package graph_test

import (
	"testing"

	"github.com/weir-engine/weir/internal/graph"
)

// A rescaled graph runs its vertices at the new parallelism, keeps the
// structure (operators, edges and their order), and leaves the original
// as it was.
func TestRescaled(t *testing.T) {
	b := &builder{}
	s := b.add(graph.KindSource, "src", 0)
	k := b.keyBy(s)
	b.add(graph.KindOperator, "count", 0, k)
	sg, err := graph.Translate(b.ts, graph.Config{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	jg := graph.BuildJobGraph(sg)
	if len(jg.Vertices) != 2 {
		t.Fatalf("vertices %v, want src and count", chains(jg))
	}
	before := jg.Fingerprint()
	r, err := graph.Rescaled(jg, map[int]int{1: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{r.Vertices[0].Parallelism, r.Vertices[1].Parallelism}; got[0] != 2 || got[1] != 3 {
		t.Fatalf("parallelism %v, want [2 3]", got)
	}
	if jg.Fingerprint() != before || jg.Vertices[1].Parallelism != 2 {
		t.Fatal("rescaling changed the original graph")
	}
	if r.Fingerprint() == before {
		t.Fatal("the rescaled graph has the original's fingerprint")
	}
	e := r.Edges[0]
	if e.Source != r.Vertices[0] || e.Target != r.Vertices[1] || r.Vertices[1].Inputs[0] != e || r.Vertices[0].Outputs[0] != e {
		t.Fatal("the rescaled graph's edges do not link its own vertices")
	}
	if r.VertexOf(jg.Vertices[1].Head()) != r.Vertices[1] {
		t.Fatal("VertexOf does not resolve to the rescaled vertex")
	}
	for _, bad := range []map[int]int{{1: 0}, {1: jg.Vertices[1].MaxParallelism + 1}, {7: 1}} {
		if _, err := graph.Rescaled(jg, bad); err == nil {
			t.Errorf("Rescaled(%v) succeeded", bad)
		}
	}
}
