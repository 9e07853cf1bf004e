package main

import (
	"strings"
	"testing"
)

func TestParseBench(t *testing.T) {
	out := `goos: linux
pkg: github.com/weir-engine/weir/bench/nexmark/queries
cpu: AMD EPYC
BenchmarkQueries/q0-2         	       1	 548307200 ns/op	   1848471 events/s	         0.01347 ratio	 137234583 ref-events/s
BenchmarkQueries/q5-2         	       1	1161239808 ns/op	    893509 events/s	         0.03752 ratio	  23811822 ref-events/s
some noise
PASS
`
	rs, cpu := parseBench(out)
	if cpu != "AMD EPYC" || len(rs) != 2 {
		t.Fatalf("cpu %q, %d results", cpu, len(rs))
	}
	r := rs[0]
	if r.Name != "BenchmarkQueries/q0" || r.Iterations != 1 || r.Metrics["events/s"] != 1848471 || r.Metrics["ref-events/s"] != 137234583 {
		t.Fatalf("parsed %+v", r)
	}
	rows := nexmarkRows(Report{Results: append(rs, Result{Name: "BenchmarkQ0/beam-prism", Metrics: map[string]float64{"events/s": 100000}})})
	if len(rows) != 2 || rows[0].WeirBeam < 18 || rows[0].WeirBeam > 19 {
		t.Fatalf("rows %+v", rows)
	}
	doc := section(Report{Date: "2026-11-30", Results: rs}, "docs/benchmarks")
	if !strings.Contains(doc, "| q5 | 893.5 K |") || !strings.HasPrefix(doc, beginMarker) {
		t.Fatalf("section:\n%s", doc)
	}
	if strings.Contains(doc, "per CPU s") {
		t.Fatalf("a run without CPU figures has a per-CPU table:\n%s", doc)
	}
	rs[0].Metrics["events/cpu-s"] = 1_000_000
	withCPU := append(rs, Result{Name: "BenchmarkQ0/beam-prism", Metrics: map[string]float64{"events/s": 100000, "events/cpu-s": 125000}})
	doc = section(Report{Results: withCPU}, "docs/benchmarks")
	if !strings.Contains(doc, "| q0 | 1.00 M | 125.0 K | 8x |") || !strings.Contains(doc, "| q5 | — | — | — |") {
		t.Fatalf("per-CPU table:\n%s", doc)
	}
	svg := barChart{title: "t", groups: []group{{label: "q0", bars: []bar{{value: 2, color: "red"}}}}}.svg()
	if !strings.Contains(svg, "<svg") || !strings.Contains(svg, "q0") {
		t.Fatal(svg)
	}
}

func TestRecoveryRows(t *testing.T) {
	out := `pkg: github.com/weir-engine/weir/bench
cpu: AMD EPYC
BenchmarkFinalCheckpoint/no-checkpoints-2         	       3	  17280000 ns/op	         0.00118 s-after-last-record
BenchmarkFinalCheckpoint/interval=1s-2            	       3	  22080000 ns/op	         0.00386 s-after-last-record
BenchmarkFailover-2   	       3	1103397829 ns/op	         0.0005016 failover-s	         0.0004651 startup-s
PASS
`
	rs, _ := parseBench(out)
	if len(rs) != 3 || rs[2].Name != "BenchmarkFailover" || rs[2].Metrics["failover-s"] != 0.0005016 || rs[2].Metrics["startup-s"] != 0.0004651 {
		t.Fatalf("parsed %+v", rs)
	}
	rows := recoveryRows(Report{Results: rs})
	if len(rows) != 2 || rows[1].Value != "0.502 ms" || rows[1].Ratio < 1.07 || rows[1].Ratio > 1.08 {
		t.Fatalf("rows %+v", rows)
	}
	doc := section(Report{Results: rs}, "docs/benchmarks")
	for _, want := range []string{
		"| failover time (restart from the latest checkpoint, embedded cluster)",
		"| 0.502 ms | 0.465 ms (cold start",
		"| 3.86 ms | 1.18 ms (no checkpoints) | 3.27x |",
	} {
		if !strings.Contains(doc, want) {
			t.Fatalf("section lacks %q:\n%s", want, doc)
		}
	}
}
