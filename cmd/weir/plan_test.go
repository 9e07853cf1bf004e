package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updatePlans = flag.Bool("update-plans", false, "rewrite testdata/plan/*.golden from the output of weir plan")

// `weir plan` prints the graph of wordcount and nexmark q5 without running
// them, in each format, exactly as the golden files under testdata/plan
// (`go test -run TestPlanGolden -update-plans` rewrites them). The
// parallelism is given so that the graphs do not depend on the machine.
func TestPlanGolden(t *testing.T) {
	jobs := []struct {
		name string
		args []string
	}{
		{"wordcount", []string{"wordcount", "--input", sample, "--parallelism", "4"}},
		{"nexmark-q5", []string{"nexmark", "--query", "q5", "--events", "1000", "--parallelism", "3"}},
		{"nexmark-q5-batch", []string{"nexmark", "--query", "q5", "--events", "1000", "--parallelism", "3", "--mode", "batch"}},
	}
	for _, j := range jobs {
		for _, format := range []string{"text", "dot", "mermaid"} {
			t.Run(j.name+"."+format, func(t *testing.T) {
				golden := filepath.Join("testdata", "plan", j.name+"."+format+".golden")
				r := runWeir(t, append([]string{"plan", "--format", format}, j.args...)...)
				if r.code != 0 || r.stderr != "" {
					t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
				}
				if *updatePlans {
					if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if r.stdout != string(want) {
					t.Errorf("weir plan printed\n%s\nwant (%s)\n%s", r.stdout, golden, want)
				}
			})
		}
	}
}

// A plan builds the job but runs nothing: an output directory stays
// absent, and a job that cannot be built is a usage error, as for run.
func TestPlanDoesNotRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "counts")
	r := runWeir(t, "plan", "wordcount", "--input", sample, "--output", out)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("plan created %s (%v): it ran the job", out, err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "wordcount"}, "weir: wordcount: no input: give --input FILE\n"},
		{[]string{"plan", "--format", "svg", "wordcount", "--input", sample}, "weir: plan: --format \"svg\": want text, dot or mermaid\n"},
		{[]string{"plan", "nosuchjob"}, "weir: plan: unknown job \"nosuchjob\"; jobs: nexmark, sequence, wordcount\n"},
	} {
		r := runWeir(t, tt.args...)
		if r.code != 2 || r.stderr != tt.want || r.stdout != "" {
			t.Errorf("weir %q: exit %d, stdout %q, stderr %q; want 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}
