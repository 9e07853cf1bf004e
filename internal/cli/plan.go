package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// `weir plan JOB [engine flags] [job flags] [--format text|dot|mermaid]`
// builds the job as `weir run` would and prints its job graph without
// running it: the task vertices (chains of operators) with their
// parallelism and the edges between them with their partitioning, as
// Flink's plan visualizer shows the JSON of getExecutionPlan.

// Plan is the job graph of a job, as `weir plan` prints it.
type Plan struct {
	Job string
	// Batch is set when the job would run in batch mode (blocking edges).
	Batch    bool
	Vertices []PlanVertex
}

// PlanVertex is a task vertex: a chain of operators run by one task per
// subtask.
type PlanVertex struct {
	ID          int
	Name        string
	Parallelism int
	// Operators names the chained operators, head first.
	Operators []string
	Outputs   []PlanEdge
}

// PlanEdge is an edge to another vertex.
type PlanEdge struct {
	Target int // the target vertex's ID
	// Partitioning is Flink's name of the edge's partitioner (FORWARD,
	// HASH, REBALANCE, ...).
	Partitioning string
	Blocking     bool
}

// Planner is implemented by a JobRunner that can build a job without
// running it.
type Planner interface {
	// Plan builds req.Job from its arguments and returns its job graph;
	// errors are as Run's for a job that cannot be built.
	Plan(ctx context.Context, req RunRequest) (Plan, error)
}

// Plan formats.
var planFormats = map[string]func(Plan) string{
	"text":    planText,
	"dot":     planDOT,
	"mermaid": planMermaid,
}

// RenderPlan renders p in format: "text", "dot" (Graphviz) or "mermaid".
func RenderPlan(p Plan, format string) (string, error) {
	render, ok := planFormats[format]
	if !ok {
		return "", fmt.Errorf("--format %q: want text, dot or mermaid", format)
	}
	return render(p), nil
}

// planText is one line per vertex and one indented line per output edge.
func planText(p Plan) string {
	var b strings.Builder
	mode := "streaming"
	if p.Batch {
		mode = "batch"
	}
	fmt.Fprintf(&b, "job %s (%s, %d vertices)\n", p.Job, mode, len(p.Vertices))
	names := vertexNames(p)
	for _, v := range p.Vertices {
		fmt.Fprintf(&b, "%d %s  parallelism %d\n", v.ID, v.Name, v.Parallelism)
		if chain := chainNote(v); chain != "" {
			fmt.Fprintf(&b, "    chain: %s\n", chain)
		}
		for _, e := range v.Outputs {
			fmt.Fprintf(&b, "    -> %d %s  %s%s\n", e.Target, names[e.Target], e.Partitioning, blockingNote(e))
		}
	}
	return b.String()
}

// planDOT is a Graphviz digraph, left to right.
func planDOT(p Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n  rankdir=LR;\n  node [shape=box];\n", dotQuote(p.Job))
	for _, v := range p.Vertices {
		fmt.Fprintf(&b, "  v%d [label=%s];\n", v.ID, dotQuote(vertexLabel(v, `\n`)))
	}
	for _, v := range p.Vertices {
		for _, e := range v.Outputs {
			style := ""
			if e.Blocking {
				style = ", style=dashed"
			}
			fmt.Fprintf(&b, "  v%d -> v%d [label=%s%s];\n", v.ID, e.Target, dotQuote(e.Partitioning), style)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// planMermaid is a Mermaid flowchart, left to right.
func planMermaid(p Plan) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, v := range p.Vertices {
		fmt.Fprintf(&b, "  v%d[\"%s\"]\n", v.ID, mermaidEscape(vertexLabel(v, "<br/>")))
	}
	for _, v := range p.Vertices {
		for _, e := range v.Outputs {
			arrow := "-->"
			if e.Blocking {
				arrow = "-.->"
			}
			fmt.Fprintf(&b, "  v%d %s|%s| v%d\n", v.ID, arrow, e.Partitioning, e.Target)
		}
	}
	return b.String()
}

// chainNote lists a vertex's chained operators when its name does not
// already (the engine names a chain after its operators).
func chainNote(v PlanVertex) string {
	chain := strings.Join(v.Operators, " -> ")
	if len(v.Operators) < 2 || chain == v.Name {
		return ""
	}
	return chain
}

// vertexLabel is the vertex's name, its chained operators when the name
// does not list them, and its parallelism, on lines joined by br.
func vertexLabel(v PlanVertex, br string) string {
	lines := []string{v.Name}
	if chain := chainNote(v); chain != "" {
		lines = append(lines, chain)
	}
	lines = append(lines, fmt.Sprintf("parallelism %d", v.Parallelism))
	return strings.Join(lines, br)
}

func blockingNote(e PlanEdge) string {
	if e.Blocking {
		return " (blocking)"
	}
	return ""
}

func vertexNames(p Plan) map[int]string {
	m := make(map[int]string, len(p.Vertices))
	for _, v := range p.Vertices {
		m[v.ID] = v.Name
	}
	return m
}

// dotQuote quotes s as a DOT string; the `\n` line breaks of a label stay
// escapes for Graphviz.
func dotQuote(s string) string {
	s = strings.ReplaceAll(s, `"`, `\"`)
	return `"` + s + `"`
}

// mermaidEscape replaces the quote that would end a Mermaid label.
func mermaidEscape(s string) string { return strings.ReplaceAll(s, `"`, "#quot;") }

// newPlanCmd is `weir plan JOB [engine flags] [job flags]`; its arguments
// are those of run, plus --format.
func newPlanCmd(jobs JobRunner, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "plan JOB [--format text|dot|mermaid] [engine flags] [job flags]",
		Short: "Print a job's graph without running it",
		Long: "Build the registered job JOB with its job flags, as 'run' does, and print its\n" +
			"job graph without running it: the task vertices (chained operators) with their\n" +
			"parallelism and the edges between them with their partitioning. --format dot\n" +
			"prints a Graphviz digraph (pipe it to 'dot -Tsvg'), --format mermaid a Mermaid\n" +
			"flowchart. Engine flags that shape the graph (--parallelism, --mode) apply.",
		DisableFlagParsing:    true,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return planJob(cmd, jobs, args, stdout)
		},
	}
}

func planJob(cmd *cobra.Command, jobs JobRunner, args []string, stdout io.Writer) error {
	format, args, err := takeFormat(args)
	if err != nil {
		return Usage(fmt.Errorf("plan: %w", err))
	}
	if _, err := RenderPlan(Plan{}, format); err != nil {
		return Usage(fmt.Errorf("plan: %w", err))
	}
	ra, err := ParseRunArgs(args)
	if err != nil {
		return Usage(fmt.Errorf("plan: %w", err))
	}
	if ra.Help {
		cmd.SetOut(stdout)
		return cmd.Help()
	}
	if ra.Job == "" {
		return Usage(fmt.Errorf("plan: no job given; %s", jobList(jobs)))
	}
	if !hasJob(jobs, ra.Job) {
		return Usage(fmt.Errorf("plan: unknown job %q; %s", ra.Job, jobList(jobs)))
	}
	pl, ok := jobs.(Planner)
	if !ok {
		return errors.New("plan: this binary cannot build a job without running it")
	}
	p, err := pl.Plan(cmd.Context(), RunRequest{Job: ra.Job, Args: ra.JobArgs, Engine: ra.Engine, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		return err
	}
	out, _ := RenderPlan(p, format) // the format was checked above
	_, err = io.WriteString(stdout, out)
	return err
}

// takeFormat removes --format F (or --format=F, -format) from the
// arguments before a "--" and returns F, "text" when absent.
func takeFormat(args []string) (string, []string, error) {
	format := "text"
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "format" {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return "", nil, errors.New("--format needs a value: text, dot or mermaid")
			}
			i++
			value = args[i]
		}
		format = value
	}
	return format, rest, nil
}
