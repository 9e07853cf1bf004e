package graph

import (
	"errors"
	"fmt"

	"github.com/weir-engine/weir/internal/keygroup"
)

// Errors of the translation, wrapped with the offending operators.
var (
	ErrEmpty       = errors.New("graph: no operators: a job needs at least a source and a sink")
	ErrCycle       = errors.New("graph: the program has a cycle")
	ErrParallelism = errors.New("graph: invalid parallelism")
	ErrPartition   = errors.New("graph: invalid partitioning")
)

// Config holds the job-wide defaults the translation applies.
type Config struct {
	// Parallelism is the default parallelism of operators (>= 1).
	Parallelism int
	// MaxParallelism is the default number of key groups; 0 derives it
	// from the parallelism as Flink does.
	MaxParallelism int
	// DisableChaining turns operator chaining off for the whole job.
	DisableChaining bool
	// Batch translates for batch execution: operators with a BatchFactory
	// use it.
	Batch bool
}

// StreamNode is one operator of the StreamGraph.
type StreamNode struct {
	ID                    int
	Name, UID             string
	Parallelism           int
	MaxParallelism        int
	OutType               Type
	Factory               Factory
	Enumerator            any
	Alignment             *Alignment
	Chaining              Chaining
	Source                bool
	Keyed                 bool
	InEdges, OutEdges     []*StreamEdge
	maxAllowedParallelism int
}

func (n *StreamNode) String() string { return fmt.Sprintf("%s (#%d)", n.Name, n.ID) }

// StreamEdge connects two operators.
type StreamEdge struct {
	Source, Target *StreamNode
	Partitioner    Partitioner
	// SideTag is the side output the edge carries; "" for the main output.
	SideTag string
	// Input is the target's logical input the edge feeds (0 unless the
	// target is a two-input operator).
	Input int
	// Type is the element type on the edge.
	Type Type
}

// StreamGraph is the operator-level graph of a job, nodes in topological
// order.
type StreamGraph struct {
	Nodes  []*StreamNode
	Config Config
}

// upstream is a resolved input: a real node plus what virtual
// transformations said about the edge.
type upstream struct {
	node        *StreamNode
	partitioner Partitioner
	sideTag     string
	typ         Type
	input       int
}

// Translate builds the StreamGraph of the given transformations.
func Translate(ts []*Transformation, cfg Config) (*StreamGraph, error) {
	if cfg.Parallelism < 1 {
		return nil, fmt.Errorf("%w: default parallelism %d must be at least 1", ErrParallelism, cfg.Parallelism)
	}
	order, err := topoSort(ts)
	if err != nil {
		return nil, err
	}
	g := &StreamGraph{Config: cfg}
	resolved := make(map[*Transformation][]upstream)
	for _, t := range order {
		ups, err := translateOne(g, t, resolved)
		if err != nil {
			return nil, err
		}
		resolved[t] = ups
	}
	if len(g.Nodes) == 0 {
		return nil, ErrEmpty
	}
	if err := g.validate(); err != nil {
		return nil, err
	}
	return g, nil
}

func translateOne(g *StreamGraph, t *Transformation, resolved map[*Transformation][]upstream) ([]upstream, error) {
	var ins []upstream
	for i, in := range t.Inputs {
		for _, u := range resolved[in] {
			if t.TwoInput {
				u.input = i
			}
			ins = append(ins, u)
		}
	}
	switch t.Kind {
	case KindUnion:
		return ins, nil
	case KindPartition:
		for i := range ins {
			ins[i].partitioner = t.Partitioner
		}
		return ins, nil
	case KindSideOutput:
		for i := range ins {
			ins[i].sideTag = t.SideTag
			ins[i].typ = t.OutType
		}
		return ins, nil
	case KindSource, KindOperator:
	default:
		return nil, fmt.Errorf("graph: %v has unknown kind %d", t, t.Kind)
	}
	if t.Kind == KindSource && len(t.Inputs) > 0 {
		return nil, fmt.Errorf("graph: source %v has inputs", t)
	}
	if t.Kind == KindOperator && len(ins) == 0 {
		return nil, fmt.Errorf("graph: operator %v has no input", t)
	}
	if t.TwoInput && len(t.Inputs) != 2 {
		return nil, fmt.Errorf("graph: two-input operator %v has %d inputs", t, len(t.Inputs))
	}
	if t.Factory == nil {
		return nil, fmt.Errorf("graph: operator %v has no factory", t)
	}
	n := &StreamNode{
		ID:                    t.ID,
		Name:                  t.Name,
		UID:                   t.UID,
		Parallelism:           t.Parallelism,
		MaxParallelism:        t.MaxParallelism,
		OutType:               t.OutType,
		Factory:               factoryFor(t, g.Config),
		Enumerator:            t.Enumerator,
		Alignment:             t.Alignment,
		Chaining:              t.Chaining,
		Source:                t.Kind == KindSource,
		Keyed:                 t.Keyed,
		maxAllowedParallelism: t.MaxAllowedParallelism,
	}
	if n.Parallelism == 0 {
		n.Parallelism = g.Config.Parallelism
		if t.MaxAllowedParallelism > 0 {
			n.Parallelism = min(n.Parallelism, t.MaxAllowedParallelism)
		}
	}
	if n.MaxParallelism == 0 {
		n.MaxParallelism = g.Config.MaxParallelism
	}
	if n.MaxParallelism == 0 {
		n.MaxParallelism = keygroup.DefaultMaxParallelism(n.Parallelism)
	}
	if n.UID == "" {
		n.UID = fmt.Sprintf("%d", t.ID)
	}
	for _, u := range ins {
		e := &StreamEdge{Source: u.node, Target: n, Partitioner: u.partitioner, SideTag: u.sideTag, Type: u.typ, Input: u.input}
		u.node.OutEdges = append(u.node.OutEdges, e)
		n.InEdges = append(n.InEdges, e)
	}
	g.Nodes = append(g.Nodes, n)
	return []upstream{{node: n, typ: t.OutType}}, nil
}

// validate checks parallelism and partitioning once all nodes exist, and
// resolves Default partitioners.
func (g *StreamGraph) validate() error {
	uids := make(map[string]*StreamNode)
	for _, n := range g.Nodes {
		if err := keygroup.Validate(n.Parallelism, n.MaxParallelism); err != nil {
			return fmt.Errorf("%w: operator %v: %v", ErrParallelism, n, err)
		}
		if n.maxAllowedParallelism > 0 && n.Parallelism > n.maxAllowedParallelism {
			return fmt.Errorf("%w: operator %v cannot run in parallel (parallelism %d, at most %d)",
				ErrParallelism, n, n.Parallelism, n.maxAllowedParallelism)
		}
		if other, ok := uids[n.UID]; ok {
			return fmt.Errorf("graph: operators %v and %v have the same uid %q", other, n, n.UID)
		}
		uids[n.UID] = n
		for _, e := range n.InEdges {
			if e.Partitioner.Kind == Default {
				if e.Source.Parallelism == n.Parallelism {
					e.Partitioner.Kind = Forward
				} else {
					e.Partitioner.Kind = Rebalance
				}
			}
			if e.Partitioner.Kind == Forward && e.Source.Parallelism != n.Parallelism {
				return fmt.Errorf("%w: forward partitioning from %v (parallelism %d) to %v (parallelism %d) cannot change the parallelism",
					ErrPartition, e.Source, e.Source.Parallelism, n, n.Parallelism)
			}
			if e.Partitioner.Kind == Hash && e.Partitioner.KeyHash == nil {
				return fmt.Errorf("%w: hash partitioning into %v has no key", ErrPartition, n)
			}
			// A keyed operator's broadcast input (the broadcast state
			// pattern) reaches every subtask, whatever its key groups.
			if n.Keyed && e.Partitioner.Kind != Hash && e.Partitioner.Kind != Broadcast {
				return fmt.Errorf("%w: keyed operator %v must be fed by a keyBy, not %v", ErrPartition, n, e.Partitioner.Kind)
			}
		}
	}
	return nil
}

// topoSort orders the transformations reachable from ts so that inputs come
// first, and reports a cycle with the operators on it.
func topoSort(ts []*Transformation) ([]*Transformation, error) {
	const (
		unvisited = iota
		visiting
		done
	)
	state := make(map[*Transformation]int)
	var order []*Transformation
	var path []string
	var visit func(t *Transformation) error
	visit = func(t *Transformation) error {
		switch state[t] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("%w: %s -> %v", ErrCycle, joinNames(path), t)
		}
		state[t] = visiting
		path = append(path, t.String())
		for _, in := range t.Inputs {
			if in == nil {
				return fmt.Errorf("graph: %v has a nil input", t)
			}
			if err := visit(in); err != nil {
				return err
			}
		}
		path = path[:len(path)-1]
		state[t] = done
		order = append(order, t)
		return nil
	}
	for _, t := range ts {
		if err := visit(t); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// factoryFor is the factory of t in the execution mode of cfg.
func factoryFor(t *Transformation, cfg Config) Factory {
	if cfg.Batch && t.BatchFactory != nil {
		return t.BatchFactory
	}
	return t.Factory
}
