package network_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/weir-engine/weir/internal/graph"
	"github.com/weir-engine/weir/internal/network"
	"github.com/weir-engine/weir/internal/scheduler/slots"
)

// chain returns a job graph of vertices with the given parallelisms, each
// connected to the next by an edge of the given pattern.
func chain(patterns []graph.Pattern, parallelism ...int) *graph.JobGraph {
	jg := &graph.JobGraph{}
	for i, p := range parallelism {
		v := &graph.JobVertex{ID: i, Name: fmt.Sprint("v", i), Parallelism: p}
		if i > 0 {
			e := &graph.JobEdge{ID: i - 1, Source: jg.Vertices[i-1], Target: v, Pattern: patterns[i-1]}
			e.Source.Outputs = append(e.Source.Outputs, e)
			v.Inputs = append(v.Inputs, e)
			jg.Edges = append(jg.Edges, e)
		}
		jg.Vertices = append(jg.Vertices, v)
	}
	return jg
}

// plan places the job on taskManagers TaskManagers as the scheduler does.
func plan(t *testing.T, jg *graph.JobGraph, taskManagers, slotsEach int) slots.Plan {
	t.Helper()
	var free []slots.ID
	for tm := range taskManagers {
		for i := range slotsEach {
			free = append(free, slots.ID{TaskManager: fmt.Sprint("tm-", tm), Index: i})
		}
	}
	var reqs []slots.Request
	for _, v := range jg.Vertices {
		reqs = append(reqs, slots.Request{Vertex: v.ID, Parallelism: v.Parallelism})
	}
	p, err := slots.Allocate(reqs, free)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	a2a = graph.AllToAll
	pw  = graph.Pointwise
)

func TestDemand(t *testing.T) {
	for _, tt := range []struct {
		name         string
		jg           *graph.JobGraph
		taskManagers int
		want         map[string]network.Usage
	}{
		// wordcount: source+tokenize -> keyBy -> count -> print (parallelism 1).
		{"wordcount p=4", chain([]graph.Pattern{a2a, a2a}, 4, 4, 1), 1,
			map[string]network.Usage{"tm-0": {InputChannels: 16 + 4, Subpartitions: 16 + 4}}},
		{"wordcount p=1024", chain([]graph.Pattern{a2a, a2a}, 1024, 1024, 1), 1,
			map[string]network.Usage{"tm-0": {InputChannels: 1024*1024 + 1024, Subpartitions: 1024*1024 + 1024}}},
		// Two TaskManagers: subtasks 0 and 2 on tm-0, 1 and 3 on tm-1; the
		// print subtask on tm-0. Each count subtask reads 4 channels.
		{"wordcount p=4 on two", chain([]graph.Pattern{a2a, a2a}, 4, 4, 1), 2,
			map[string]network.Usage{
				"tm-0": {InputChannels: 8 + 4, Subpartitions: 8 + 2},
				"tm-1": {InputChannels: 8, Subpartitions: 8 + 2},
			}},
		// Forward (pointwise, equal parallelism): one channel per subtask.
		{"forward", chain([]graph.Pattern{pw}, 3, 3), 1,
			map[string]network.Usage{"tm-0": {InputChannels: 3, Subpartitions: 3}}},
		// Pointwise 4 -> 2: each consumer reads two producers.
		{"pointwise fan-in", chain([]graph.Pattern{pw}, 4, 2), 1,
			map[string]network.Usage{"tm-0": {InputChannels: 4, Subpartitions: 4}}},
		// Pointwise 2 -> 6: each producer feeds three consumers.
		{"pointwise fan-out", chain([]graph.Pattern{pw}, 2, 6), 1,
			map[string]network.Usage{"tm-0": {InputChannels: 6, Subpartitions: 6}}},
		{"source only", chain(nil, 5), 1, map[string]network.Usage{"tm-0": {}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := network.Demand(tt.jg, plan(t, tt.jg, tt.taskManagers, 1024))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("demand %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSize(t *testing.T) {
	wc4 := network.Usage{InputChannels: 20, Subpartitions: 20} // wordcount p=4
	capacity := func(buffers ...int) map[string]network.Capacity {
		c := map[string]network.Capacity{}
		for i, b := range buffers {
			c[fmt.Sprint("tm-", i)] = network.Capacity{Memory: int64(b) * 36 << 10, Buffers: b, BufferMemory: 36 << 10}
		}
		return c
	}
	for _, tt := range []struct {
		name     string
		demand   map[string]network.Usage
		capacity map[string]network.Capacity
		want     network.Sizing
		err      string
	}{
		{"plenty", map[string]network.Usage{"tm-0": wc4}, capacity(1000), network.DefaultSizing, ""},
		{"exactly the default", map[string]network.Usage{"tm-0": wc4}, capacity(20*2 + 20*3), network.DefaultSizing, ""},
		{"one short of the default gives up a backlog buffer", map[string]network.Usage{"tm-0": wc4}, capacity(20*2 + 20*3 - 1), network.Sizing{Credit: 2, Backlog: 1}, ""},
		{"then credit", map[string]network.Usage{"tm-0": wc4}, capacity(20*2 + 20*1 - 1), network.MinSizing, ""},
		{"exactly the minimum", map[string]network.Usage{"tm-0": wc4}, capacity(40), network.MinSizing, ""},
		{"the tightest TaskManager decides", map[string]network.Usage{"tm-0": wc4, "tm-1": wc4}, capacity(1000, 60), network.Sizing{Credit: 2, Backlog: 0}, ""},
		{"no TaskManager used", map[string]network.Usage{}, capacity(0), network.DefaultSizing, ""},
		{"one short of the minimum", map[string]network.Usage{"tm-0": wc4}, capacity(39), network.Sizing{},
			"network: insufficient network buffers: the job needs 40 network buffers (36 KiB each, 1.41 MiB) on TaskManager tm-0, " +
				"one for each of its 20 input channels and 20 output subpartitions, and tm-0 has 1.37 MiB (39 buffers): " +
				"lower --parallelism or raise --network-memory (weir.WithNetworkMemory)"},
		{"the error names the TaskManager furthest short",
			map[string]network.Usage{"tm-0": wc4, "tm-1": {InputChannels: 1024*1024 + 1024, Subpartitions: 1024*1024 + 1024}},
			map[string]network.Capacity{"tm-0": {Buffers: 1}, "tm-1": network.CapacityOf(network.DefaultNetworkMemory, network.DefaultBufferSize)},
			network.Sizing{},
			"network: insufficient network buffers: the job needs 2,099,200 network buffers (36 KiB each, 72.1 GiB) on TaskManager tm-1, " +
				"one for each of its 1,049,600 input channels and 1,049,600 output subpartitions, and tm-1 has 1 GiB (29,127 buffers): " +
				"lower --parallelism or raise --network-memory (weir.WithNetworkMemory)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := network.Size(tt.demand, tt.capacity, network.DefaultSizing)
			if tt.err != "" {
				var ie *network.InsufficientError
				if err == nil || err.Error() != tt.err || !errors.As(err, &ie) || !errors.Is(err, network.ErrInsufficientBuffers) {
					t.Fatalf("Size = %+v, %v;\nwant error %s", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Size = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// With the default network memory, wordcount (p*p + p channels on one
// TaskManager) keeps the default sizing up to p = 75, gives up buffers
// from p = 76, and cannot run above p = 120.
func TestSizeWordcountOnDefaultMemory(t *testing.T) {
	capacity := map[string]network.Capacity{"tm-0": network.CapacityOf(network.DefaultNetworkMemory, network.DefaultBufferSize)}
	for _, tt := range []struct {
		p    int
		want network.Sizing // zero: does not fit
	}{
		{2, network.DefaultSizing},
		{75, network.DefaultSizing}, // 5 * 5,700 = 28,500 <= 29,127
		{76, network.Sizing{Credit: 2, Backlog: 1}},
		{120, network.MinSizing}, // 2 * 14,520 = 29,040
		{121, network.Sizing{}},  // 2 * 14,762 = 29,524
		{1024, network.Sizing{}},
	} {
		jg := chain([]graph.Pattern{a2a, a2a}, tt.p, tt.p, 1)
		d := network.Demand(jg, plan(t, jg, 1, tt.p))
		got, err := network.Size(d, capacity, network.DefaultSizing)
		switch {
		case tt.want == network.Sizing{}:
			if !errors.Is(err, network.ErrInsufficientBuffers) {
				t.Errorf("p=%d: Size = %+v, %v; want ErrInsufficientBuffers", tt.p, got, err)
			}
		case err != nil || got != tt.want:
			t.Errorf("p=%d: Size = %+v, %v; want %+v", tt.p, got, err, tt.want)
		case d["tm-0"].Buffers(got) > capacity["tm-0"].Buffers:
			t.Errorf("p=%d: sizing %+v needs %d buffers, more than %d", tt.p, got, d["tm-0"].Buffers(got), capacity["tm-0"].Buffers)
		}
	}
}
