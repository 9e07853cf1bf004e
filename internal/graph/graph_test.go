package graph_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"pgregory.net/rapid"
)

type typ string

func (t typ) String() string { return string(t) }

func factory(any) (any, error) { return nil, nil }

// builder records transformations the way the public API does.
type builder struct{ ts []*graph.Transformation }

func (b *builder) add(kind graph.Kind, name string, p int, ins ...*graph.Transformation) *graph.Transformation {
	t := &graph.Transformation{ID: len(b.ts) + 1, Kind: kind, Name: name, Parallelism: p, Inputs: ins, OutType: typ("int")}
	if kind == graph.KindSource || kind == graph.KindOperator {
		t.Factory = factory
	}
	b.ts = append(b.ts, t)
	return t
}

func (b *builder) keyBy(in *graph.Transformation) *graph.Transformation {
	t := b.add(graph.KindPartition, "keyBy", 0, in)
	t.Partitioner = graph.Partitioner{Kind: graph.Hash, KeyHash: func(int) uint32 { return 0 }}
	return t
}

func chains(jg *graph.JobGraph) []string {
	var out []string
	for _, v := range jg.Vertices {
		out = append(out, v.Name)
	}
	return out
}

func TestChaining(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *builder)
		cfg   graph.Config
		want  []string
		edges []string
	}{
		{
			name: "forward chain",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 0)
				m := b.add(graph.KindOperator, "map", 0, s)
				b.add(graph.KindOperator, "sink", 0, m)
			},
			want: []string{"src -> map -> sink"},
		},
		{
			name: "keyBy breaks the chain",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 0)
				m := b.add(graph.KindOperator, "map", 0, s)
				r := b.add(graph.KindOperator, "reduce", 0, b.keyBy(m))
				b.add(graph.KindOperator, "sink", 0, r)
			},
			want:  []string{"src -> map", "reduce -> sink"},
			edges: []string{"HASH ALL_TO_ALL"},
		},
		{
			name: "parallelism change breaks the chain with rebalance",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 1)
				b.add(graph.KindOperator, "sink", 2, s)
			},
			want:  []string{"src", "sink"},
			edges: []string{"REBALANCE ALL_TO_ALL"},
		},
		{
			name: "union target has two inputs and heads its own chain",
			build: func(b *builder) {
				s1 := b.add(graph.KindSource, "a", 0)
				s2 := b.add(graph.KindSource, "b", 0)
				u := b.add(graph.KindUnion, "union", 0, s1, s2)
				b.add(graph.KindOperator, "sink", 0, u)
			},
			want:  []string{"a", "b", "sink"},
			edges: []string{"FORWARD POINTWISE", "FORWARD POINTWISE"},
		},
		{
			name: "fan-out chains both successors",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 0)
				b.add(graph.KindOperator, "left", 0, s)
				b.add(graph.KindOperator, "right", 0, s)
			},
			want: []string{"src -> left -> right"},
		},
		{
			name: "chain head and never",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 0)
				m := b.add(graph.KindOperator, "map", 0, s)
				m.Chaining = graph.ChainHead
				f := b.add(graph.KindOperator, "filter", 0, m)
				f.Chaining = graph.ChainNever
				b.add(graph.KindOperator, "sink", 0, f)
			},
			want:  []string{"src", "map", "filter", "sink"},
			edges: []string{"FORWARD POINTWISE", "FORWARD POINTWISE", "FORWARD POINTWISE"},
		},
		{
			name: "chaining disabled for the job",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 0)
				b.add(graph.KindOperator, "sink", 0, s)
			},
			cfg:   graph.Config{DisableChaining: true},
			want:  []string{"src", "sink"},
			edges: []string{"FORWARD POINTWISE"},
		},
		{
			name: "side output is chained when forward",
			build: func(b *builder) {
				s := b.add(graph.KindSource, "src", 0)
				p := b.add(graph.KindOperator, "process", 0, s)
				side := b.add(graph.KindSideOutput, "side", 0, p)
				side.SideTag = "late"
				b.add(graph.KindOperator, "sideSink", 0, side)
			},
			want: []string{"src -> process -> sideSink"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{}
			tt.build(b)
			cfg := tt.cfg
			cfg.Parallelism = 2
			sg, err := graph.Translate(b.ts, cfg)
			if err != nil {
				t.Fatal(err)
			}
			jg := graph.BuildJobGraph(sg)
			if got := chains(jg); !slices.Equal(got, tt.want) {
				t.Errorf("chains = %q, want %q", got, tt.want)
			}
			var edges []string
			for _, e := range jg.Edges {
				edges = append(edges, e.StreamEdge.Partitioner.Kind.String()+" "+e.Pattern.String())
			}
			if !slices.Equal(edges, tt.edges) {
				t.Errorf("edges = %q, want %q", edges, tt.edges)
			}
		})
	}
}

func TestTranslateErrors(t *testing.T) {
	tests := []struct {
		name    string
		build   func(b *builder)
		wantErr error
		wantMsg string
	}{
		{"empty", func(b *builder) {}, graph.ErrEmpty, "no operators"},
		{"parallelism above max", func(b *builder) {
			s := b.add(graph.KindSource, "src", 4)
			s.MaxParallelism = 2
		}, graph.ErrParallelism, "greater than max parallelism"},
		{"forward with different parallelism", func(b *builder) {
			s := b.add(graph.KindSource, "src", 1)
			f := b.add(graph.KindPartition, "forward", 0, s)
			f.Partitioner.Kind = graph.Forward
			b.add(graph.KindOperator, "sink", 3, f)
		}, graph.ErrPartition, "cannot change the parallelism"},
		{"non-parallel source", func(b *builder) {
			s := b.add(graph.KindSource, "iter", 3)
			s.MaxAllowedParallelism = 1
		}, graph.ErrParallelism, "cannot run in parallel"},
		{"keyed without keyBy", func(b *builder) {
			s := b.add(graph.KindSource, "src", 0)
			r := b.add(graph.KindOperator, "reduce", 0, s)
			r.Keyed = true
		}, graph.ErrPartition, "must be fed by a keyBy"},
		{"cycle", func(b *builder) {
			s := b.add(graph.KindSource, "src", 0)
			m1 := b.add(graph.KindOperator, "m1", 0, s)
			m2 := b.add(graph.KindOperator, "m2", 0, m1)
			m1.Inputs = append(m1.Inputs, m2)
		}, graph.ErrCycle, "m1 (#2) -> m2 (#3) -> m1 (#2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &builder{}
			tt.build(b)
			_, err := graph.Translate(b.ts, graph.Config{Parallelism: 2})
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want %v containing %q", err, tt.wantErr, tt.wantMsg)
			}
		})
	}
}

func TestDuplicateUID(t *testing.T) {
	b := &builder{}
	s := b.add(graph.KindSource, "src", 0)
	s.UID = "x"
	m := b.add(graph.KindOperator, "map", 0, s)
	m.UID = "x"
	if _, err := graph.Translate(b.ts, graph.Config{Parallelism: 1}); err == nil || !strings.Contains(err.Error(), `same uid "x"`) {
		t.Fatalf("err = %v", err)
	}
}

// ProducersOf and ConsumersOf describe the same connections from both ends,
// and every producer feeds at least one consumer.
func TestPointwiseConnectionsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prod := rapid.IntRange(1, 64).Draw(t, "producers")
		cons := rapid.IntRange(1, 64).Draw(t, "consumers")
		for _, pat := range []graph.Pattern{graph.Pointwise, graph.AllToAll} {
			fromConsumers := map[[2]int]bool{}
			for c := 0; c < cons; c++ {
				ps := graph.ProducersOf(pat, prod, cons, c)
				if len(ps) == 0 {
					t.Fatalf("%v: consumer %d reads nothing", pat, c)
				}
				for _, p := range ps {
					fromConsumers[[2]int{p, c}] = true
				}
			}
			n := 0
			for p := 0; p < prod; p++ {
				cs := graph.ConsumersOf(pat, prod, cons, p)
				if len(cs) == 0 {
					t.Fatalf("%v: producer %d feeds nothing", pat, p)
				}
				for _, c := range cs {
					if !fromConsumers[[2]int{p, c}] {
						t.Fatalf("%v %d->%d: producer %d feeds %d but the consumer does not read it", pat, prod, cons, p, c)
					}
					n++
				}
			}
			if n != len(fromConsumers) {
				t.Fatalf("%v: %d connections from producers, %d from consumers", pat, n, len(fromConsumers))
			}
		}
	})
}

func TestFingerprintChangesWithStructure(t *testing.T) {
	build := func(p int) string {
		b := &builder{}
		s := b.add(graph.KindSource, "src", 0)
		b.add(graph.KindOperator, "sink", p, s)
		sg, err := graph.Translate(b.ts, graph.Config{Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		return graph.BuildJobGraph(sg).Fingerprint()
	}
	if first, again := build(2), build(2); first != again {
		t.Fatal("fingerprint is not deterministic")
	}
	if build(2) == build(3) {
		t.Fatal("fingerprint ignores parallelism")
	}
}

// A two-input operator's edges say which input they feed, also through a
// union, and it heads its own chain.
func TestTwoInputEdges(t *testing.T) {
	b := &builder{}
	s1 := b.add(graph.KindSource, "a1", 0)
	s2 := b.add(graph.KindSource, "a2", 0)
	s3 := b.add(graph.KindSource, "b", 0)
	u := b.add(graph.KindUnion, "union", 0, s1, s2)
	join := b.add(graph.KindOperator, "join", 0, u, s3)
	join.TwoInput = true
	sg, err := graph.Translate(b.ts, graph.Config{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	jg := graph.BuildJobGraph(sg)
	got := map[string]int{}
	for _, e := range jg.Edges {
		got[e.Source.Name] = e.StreamEdge.Input
	}
	if want := map[string]int{"a1": 0, "a2": 0, "b": 1}; len(got) != 3 || got["a1"] != 0 || got["a2"] != 0 || got["b"] != 1 {
		t.Fatalf("inputs = %v, want %v", got, want)
	}
	bad := &builder{}
	x := bad.add(graph.KindSource, "x", 0)
	j := bad.add(graph.KindOperator, "join", 0, x)
	j.TwoInput = true
	if _, err := graph.Translate(bad.ts, graph.Config{Parallelism: 1}); err == nil {
		t.Fatal("a two-input operator with one input was accepted")
	}
}
