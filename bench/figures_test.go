package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestFillFigures(t *testing.T) {
	rows := []nexmarkRow{{Query: "q5", Weir: 2_240_000, Beam: 135_300}}
	for _, tc := range []struct{ in, want string }{
		{"q5 at <!-- bench:weir:q5 -->0.89 M<!-- /bench -->/s", "q5 at <!-- bench:weir:q5 -->2.24 M<!-- /bench -->/s"},
		{"<!-- bench:beam:q5 --><!-- /bench -->", "<!-- bench:beam:q5 -->135.3 K<!-- /bench -->"},
		{"<!-- bench:weir:q7 -->1.51 M<!-- /bench -->", "<!-- bench:weir:q7 -->1.51 M<!-- /bench -->"}, // not in the run
		{"no figure", "no figure"},
	} {
		if got := fillFigures(tc.in, rows); got != tc.want {
			t.Errorf("fillFigures(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestDocFiguresMatchResults checks docs/benchmarks.md against the run its
// generated section names: every figure quoted in the prose is that run's.
func TestDocFiguresMatchResults(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "benchmarks.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("Raw results: `(bench/results/[^`]+\\.json)`").FindSubmatch(doc)
	if m == nil {
		t.Fatal("the generated section names no raw results")
	}
	raw, err := os.ReadFile(filepath.Join("..", string(m[1])))
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("%s: %v", m[1], err)
	}
	text := string(doc)
	if n := len(inlineFigure.FindAllString(text, -1)); n == 0 {
		t.Fatal("the page quotes no figure through markers; the check would prove nothing")
	}
	if filled := fillFigures(text, nexmarkRows(rep)); filled != text {
		for _, line := range strings.Split(text, "\n") {
			if f := fillFigures(line, nexmarkRows(rep)); f != line {
				t.Errorf("stale figure:\n  page: %s\n  run:  %s", line, f)
			}
		}
	}
}
