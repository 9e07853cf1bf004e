package cli

import (
	"reflect"
	"testing"
)

// The renderers are pure: each format of a two-vertex plan with a chain
// named otherwise than its operators, a blocking edge and a quote in a name.
func TestRenderPlan(t *testing.T) {
	p := Plan{Job: "j", Batch: true, Vertices: []PlanVertex{
		{ID: 0, Name: `src "a"`, Parallelism: 2, Operators: []string{"src", "map"}, Outputs: []PlanEdge{{Target: 1, Partitioning: "HASH", Blocking: true}}},
		{ID: 1, Name: "sink", Parallelism: 1, Operators: []string{"sink"}},
	}}
	for _, tt := range []struct {
		format, want string
	}{
		{"text", "job j (batch, 2 vertices)\n0 src \"a\"  parallelism 2\n    chain: src -> map\n    -> 1 sink  HASH (blocking)\n1 sink  parallelism 1\n"},
		{"dot", "digraph \"j\" {\n  rankdir=LR;\n  node [shape=box];\n  v0 [label=\"src \\\"a\\\"\\nsrc -> map\\nparallelism 2\"];\n  v1 [label=\"sink\\nparallelism 1\"];\n  v0 -> v1 [label=\"HASH\", style=dashed];\n}\n"},
		{"mermaid", "flowchart LR\n  v0[\"src #quot;a#quot;<br/>src -> map<br/>parallelism 2\"]\n  v1[\"sink<br/>parallelism 1\"]\n  v0 -.->|HASH| v1\n"},
	} {
		got, err := RenderPlan(p, tt.format)
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.format, got, err, tt.want)
		}
	}
	if _, err := RenderPlan(p, "svg"); err == nil {
		t.Error("format svg: no error")
	}
}

// --format is taken out of the arguments wherever it is before "--", in
// each spelling; after "--" it is the job's.
func TestTakeFormat(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		format string
		rest   []string
	}{
		{[]string{"wc", "--input", "f"}, "text", []string{"wc", "--input", "f"}},
		{[]string{"--format", "dot", "wc"}, "dot", []string{"wc"}},
		{[]string{"wc", "--format=mermaid", "-p", "2"}, "mermaid", []string{"wc", "-p", "2"}},
		{[]string{"wc", "-format", "dot", "--", "--format", "x"}, "dot", []string{"wc", "--", "--format", "x"}},
	} {
		format, rest, err := takeFormat(tt.args)
		if err != nil || format != tt.format || !reflect.DeepEqual(rest, tt.rest) {
			t.Errorf("takeFormat(%q) = %q, %q, %v; want %q, %q", tt.args, format, rest, err, tt.format, tt.rest)
		}
	}
	if _, _, err := takeFormat([]string{"wc", "--format"}); err == nil {
		t.Error("--format without a value: no error")
	}
}
