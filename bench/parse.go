package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Result is one benchmark line of `go test -bench`.
type Result struct {
	Package    string             `json:"package"`
	Name       string             `json:"name"`
	Iterations int64              `json:"iterations"`
	Metrics    map[string]float64 `json:"metrics"`
}

// runSuite runs one entry and parses its output.
func runSuite(ctx context.Context, s suite, profile string) ([]Result, string, error) {
	benchtime := s.Quick
	if profile == "full" {
		benchtime = s.Full
	}
	args := []string{"test", s.Pkg, "-run", "^$", "-bench", s.Bench, "-benchtime", benchtime, "-count", "1", "-timeout", "30m"}
	if len(s.Args) > 0 {
		args = append(append(args, "-args"), s.Args...)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = s.Dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("go %s: %w\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	results, cpu := parseBench(out.String())
	if len(results) == 0 {
		return nil, "", fmt.Errorf("go %s printed no benchmark results:\n%s", strings.Join(args, " "), out.String())
	}
	return results, cpu, nil
}

// parseBench reads `go test -bench` output: "pkg:" and "cpu:" header lines
// and result lines "BenchmarkX/sub-2  N  v1 unit1  v2 unit2 ...".
func parseBench(out string) ([]Result, string) {
	var results []Result
	var pkg, cpu string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "pkg: "):
			pkg = strings.TrimPrefix(line, "pkg: ")
		case strings.HasPrefix(line, "cpu: "):
			cpu = strings.TrimSpace(strings.TrimPrefix(line, "cpu: "))
		case strings.HasPrefix(line, "Benchmark"):
			f := strings.Fields(line)
			if len(f) < 4 || len(f)%2 != 0 {
				continue
			}
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				continue
			}
			r := Result{Package: pkg, Name: trimProcs(f[0]), Iterations: n, Metrics: map[string]float64{}}
			for i := 2; i+1 < len(f); i += 2 {
				v, err := strconv.ParseFloat(f[i], 64)
				if err != nil {
					continue
				}
				r.Metrics[f[i+1]] = v
			}
			results = append(results, r)
		}
	}
	return results, cpu
}

// trimProcs drops the -GOMAXPROCS suffix of a benchmark name.
func trimProcs(name string) string {
	if i := strings.LastIndex(name, "-"); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			return name[:i]
		}
	}
	return name
}
