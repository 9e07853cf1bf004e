package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"
)

// A suite entry is one `go test -bench` run.
type suite struct {
	// Dir is the module directory to run in ("." or "bench/peers").
	Dir string
	// Pkg and Bench select the benchmarks; Quick and Full are the
	// -benchtime of the profiles.
	Pkg, Bench  string
	Quick, Full string
	// Args are extra test flags (after -args).
	Args []string
	// Optional entries are skipped when their directory is missing.
	Optional bool
}

var suites = []suite{
	{Dir: ".", Pkg: "./bench", Bench: "Chained|Keyed|FinalCheckpoint|Failover", Quick: "3x", Full: "10x"},
	{Dir: ".", Pkg: "./bench", Bench: "Wordcount|CheckpointOverhead|StateCheckpoint", Quick: "1x", Full: "3x"},
	{Dir: ".", Pkg: "./internal/checkpoint", Bench: "CalculatePlan|NaivePlan", Quick: "3x", Full: "10x"},
	{Dir: ".", Pkg: "./bench/nexmark/queries", Bench: "Queries", Quick: "1x", Full: "3x"},
	{Dir: "bench/peers", Pkg: ".", Bench: ".", Quick: "1x", Full: "3x", Optional: true},
}

func main() {
	profile := flag.String("profile", "quick", "quick or full")
	out := flag.String("out", "bench/results", "directory for the JSON results")
	doc := flag.String("doc", "docs/benchmarks.md", "Markdown page whose generated section is rewritten")
	plots := flag.String("plots", "docs/benchmarks", "directory for the SVG plots")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if *profile != "quick" && *profile != "full" {
		fmt.Fprintf(os.Stderr, "bench: -profile %q: want quick or full\n", *profile)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, log, *profile, *out, *doc, *plots); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Report is what one run of the suite writes to bench/results.
type Report struct {
	Date      string   `json:"date"`
	Profile   string   `json:"profile"`
	GoVersion string   `json:"go_version"`
	CPU       string   `json:"cpu"`
	CPUs      int      `json:"cpus"`
	Results   []Result `json:"results"`
	// Skipped lists optional suites that did not run, with the reason.
	Skipped []string `json:"skipped,omitempty"`
}

func run(ctx context.Context, log *slog.Logger, profile, out, doc, plots string) error {
	start := time.Now()
	rep := Report{Date: start.UTC().Format("2006-01-02"), Profile: profile, GoVersion: runtime.Version(), CPUs: runtime.NumCPU()}
	for _, s := range suites {
		if _, err := os.Stat(s.Dir); err != nil {
			if s.Optional {
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", s.Dir, err))
				continue
			}
			return err
		}
		log.Info("running", "dir", s.Dir, "pkg", s.Pkg, "bench", s.Bench)
		results, cpu, err := runSuite(ctx, s, profile)
		if err != nil {
			if s.Optional {
				log.Warn("optional suite failed", "dir", s.Dir, "err", err)
				rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s %s: %v", s.Dir, s.Pkg, err))
				continue
			}
			return fmt.Errorf("%s %s: %w", s.Dir, s.Pkg, err)
		}
		if rep.CPU == "" {
			rep.CPU = cpu
		}
		rep.Results = append(rep.Results, results...)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, rep.Date+".json")
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := renderPlots(rep, plots); err != nil {
		return err
	}
	if err := renderDoc(rep, doc, plots); err != nil {
		return err
	}
	log.Info("done", "results", path, "doc", doc, "took", time.Since(start).Round(time.Second))
	return nil
}
