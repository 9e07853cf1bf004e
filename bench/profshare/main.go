// Command profshare says where a CPU profile of a Nexmark query spends its
// time, as the shares of docs/benchmarks.md's profile tables: each sample
// whose labels include -tag (BenchmarkQueries labels the engine's
// goroutines run=engine) is counted in one group, the group of the
// innermost frame of its stack that matches one, and the shares are
// printed as a Markdown table with a column per profile.
//
//	go test -c -o q.test ./bench/nexmark/queries
//	./q.test -test.run xxx -test.bench 'Queries/q5$' -test.benchtime 10x -test.cpuprofile q5.prof
//	go run ./bench/profshare q5=q5.prof q7=q7.prof
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/pprof/profile"
)

func main() {
	tag := flag.String("tag", "run=engine", "count only samples with this label (key=value); empty counts all")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: profshare [-tag key=value] name=file.prof...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(os.Stdout, *tag, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "profshare:", err)
		os.Exit(2)
	}
}

// run reads each name=file profile and writes the table of shares.
func run(w io.Writer, tag string, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no profiles: give name=file.prof arguments")
	}
	key, value, ok := strings.Cut(tag, "=")
	if tag != "" && (!ok || key == "") {
		return fmt.Errorf("-tag %q: want key=value", tag)
	}
	var names []string
	var shares []Shares
	for _, a := range args {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("argument %q: want name=file.prof", a)
		}
		p, err := readProfile(path)
		if err != nil {
			return err
		}
		s, err := Share(p, key, value)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		names = append(names, name)
		shares = append(shares, s)
	}
	return writeTable(w, names, shares)
}

func readProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return p, nil
}
