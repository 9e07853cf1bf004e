package graph

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// JobVertex is a chain of operators run by one task per subtask.
type JobVertex struct {
	ID             int
	Name           string
	Parallelism    int
	MaxParallelism int
	// Chain holds the vertex's operators in topological order; Chain[0] is
	// the head, which receives the vertex's inputs.
	Chain   []*StreamNode
	Inputs  []*JobEdge
	Outputs []*JobEdge
}

// Head is the operator that receives the vertex's input.
func (v *JobVertex) Head() *StreamNode { return v.Chain[0] }

// IsSource reports whether the vertex starts with a source.
func (v *JobVertex) IsSource() bool { return v.Chain[0].Source }

func (v *JobVertex) String() string { return fmt.Sprintf("%s (vertex %d)", v.Name, v.ID) }

// Contains reports whether the node is part of this vertex's chain.
func (v *JobVertex) Contains(n *StreamNode) bool {
	for _, c := range v.Chain {
		if c == n {
			return true
		}
	}
	return false
}

// JobEdge is a non-chained edge between two vertices.
type JobEdge struct {
	// ID is unique in the job; it names the edge's result partitions.
	ID             int
	Source, Target *JobVertex
	Pattern        Pattern
	// StreamEdge is the operator-level edge this job edge carries.
	StreamEdge *StreamEdge
	// Blocking edges (every edge of a batch job, as Flink's default
	// ALL_EDGES_BLOCKING) carry BLOCKING result partitions: the consumer
	// reads after the producer finished, so the two are separate
	// pipelined regions.
	Blocking bool
}

// JobGraph is the vertex-level graph of a job, vertices in topological
// order.
type JobGraph struct {
	// Batch is set for a batch execution (Config.Batch).
	Batch    bool
	Vertices []*JobVertex
	// Edges lists every JobEdge by ID.
	Edges []*JobEdge
	// vertexOf maps each operator to its vertex.
	vertexOf map[*StreamNode]*JobVertex
}

// VertexOf returns the vertex that holds operator n.
func (g *JobGraph) VertexOf(n *StreamNode) *JobVertex { return g.vertexOf[n] }

// IsChainable reports whether edge e is chained under cfg.
func IsChainable(e *StreamEdge, cfg Config) bool {
	return !cfg.DisableChaining &&
		e.Partitioner.Kind == Forward &&
		e.Source.Parallelism == e.Target.Parallelism &&
		len(e.Target.InEdges) == 1 &&
		e.Target.Chaining == ChainAlways &&
		e.Source.Chaining != ChainNever &&
		!e.Target.Source
}

// BuildJobGraph chains the stream graph's operators into job vertices.
func BuildJobGraph(sg *StreamGraph) *JobGraph {
	jg := &JobGraph{Batch: sg.Config.Batch, vertexOf: make(map[*StreamNode]*JobVertex)}
	// Nodes are in topological order, so a node's chained predecessor has
	// been placed before it.
	for _, n := range sg.Nodes {
		if len(n.InEdges) == 1 && IsChainable(n.InEdges[0], sg.Config) {
			v := jg.vertexOf[n.InEdges[0].Source]
			v.Chain = append(v.Chain, n)
			jg.vertexOf[n] = v
			continue
		}
		v := &JobVertex{ID: len(jg.Vertices), Parallelism: n.Parallelism, MaxParallelism: n.MaxParallelism, Chain: []*StreamNode{n}}
		jg.Vertices = append(jg.Vertices, v)
		jg.vertexOf[n] = v
	}
	for _, v := range jg.Vertices {
		names := make([]string, len(v.Chain))
		for i, n := range v.Chain {
			names[i] = n.Name
		}
		v.Name = joinNames(names)
	}
	for _, n := range sg.Nodes {
		for _, e := range n.OutEdges {
			src, dst := jg.vertexOf[e.Source], jg.vertexOf[e.Target]
			if src == dst {
				continue
			}
			je := &JobEdge{ID: len(jg.Edges), Source: src, Target: dst, Pattern: e.Partitioner.Kind.Pattern(), StreamEdge: e,
				Blocking: sg.Config.Batch}
			jg.Edges = append(jg.Edges, je)
			src.Outputs = append(src.Outputs, je)
			dst.Inputs = append(dst.Inputs, je)
		}
	}
	return jg
}

// Fingerprint summarizes the structure of the job graph (operators, uids,
// parallelism, edges, partitioners and types) so that a process that rebuilt
// the graph from the same builder can check it got the same one.
func (g *JobGraph) Fingerprint() string {
	var b strings.Builder
	for _, v := range g.Vertices {
		fmt.Fprintf(&b, "v%d p%d m%d[", v.ID, v.Parallelism, v.MaxParallelism)
		for _, n := range v.Chain {
			fmt.Fprintf(&b, "%s/%s:%v;", n.Name, n.UID, n.OutType)
		}
		b.WriteString("]\n")
	}
	for _, e := range g.Edges {
		fmt.Fprintf(&b, "e%d %d->%d %v %v %q\n", e.ID, e.Source.ID, e.Target.ID, e.StreamEdge.Partitioner.Kind, e.Pattern, e.StreamEdge.SideTag)
	}
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	return fmt.Sprintf("%016x", h.Sum64())
}
