package graph

import "fmt"

// Rescaled returns a copy of g whose vertices run at the parallelism par
// gives them by vertex ID (the others keep theirs): the graph of one
// generation of a job the adaptive scheduler rescaled. The operators
// (StreamNodes) are shared with g; only the vertices and edges, which
// carry the parallelism tasks run at, are new. A parallelism below 1 or
// above the vertex's max parallelism is an error.
func Rescaled(g *JobGraph, par map[int]int) (*JobGraph, error) {
	out := &JobGraph{vertexOf: make(map[*StreamNode]*JobVertex, len(g.vertexOf))}
	byID := make(map[int]*JobVertex, len(g.Vertices))
	for _, v := range g.Vertices {
		nv := &JobVertex{ID: v.ID, Name: v.Name, Parallelism: v.Parallelism, MaxParallelism: v.MaxParallelism, Chain: v.Chain}
		if p, ok := par[v.ID]; ok {
			if p < 1 || (v.MaxParallelism > 0 && p > v.MaxParallelism) {
				return nil, fmt.Errorf("graph: rescale %v to %d: not in [1, %d]", v, p, v.MaxParallelism)
			}
			nv.Parallelism = p
		}
		byID[v.ID] = nv
		out.Vertices = append(out.Vertices, nv)
		for _, n := range v.Chain {
			out.vertexOf[n] = nv
		}
	}
	for id := range par {
		if byID[id] == nil {
			return nil, fmt.Errorf("graph: rescale: no vertex %d", id)
		}
	}
	for _, e := range g.Edges {
		ne := &JobEdge{ID: e.ID, Source: byID[e.Source.ID], Target: byID[e.Target.ID], Pattern: e.Pattern, StreamEdge: e.StreamEdge}
		out.Edges = append(out.Edges, ne)
		ne.Source.Outputs = append(ne.Source.Outputs, ne)
		ne.Target.Inputs = append(ne.Target.Inputs, ne)
	}
	return out, nil
}
