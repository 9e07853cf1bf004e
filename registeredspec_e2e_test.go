package weir_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/internal/cli"
	"github.com/weir-engine/weir/internal/funcspec"
	"github.com/weir-engine/weir/internal/rpc/rpcpb"
	"github.com/weir-engine/weir/jobs/wordcount"
)

// counted wraps build, counting its calls in calls.
func counted(calls *atomic.Int64, build weir.JobBuilder) weir.JobBuilder {
	return func(env *weir.Env, args []string) error {
		calls.Add(1)
		return build(env, args)
	}
}

// taggedJob prints "I by build B" for I in 1..20: a map of parallelism 2
// tags each record with the number of the builder call that made the map's
// closure, so the output says whose operators ran.
func taggedJob(calls *atomic.Int64) weir.JobBuilder {
	return func(env *weir.Env, _ []string) error {
		b := calls.Add(1)
		var in []int
		for i := 1; i <= 20; i++ {
			in = append(in, i)
		}
		tagged := weir.Map(weir.FromSlice(env, in), func(i int) (string, error) { return fmt.Sprintf("%d by build %d", i, b), nil }).SetParallelism(2)
		weir.Print(tagged).SetParallelism(1)
		return nil
	}
}

// A job started from the registry (weir run NAME) is deployed by
// reference: the TaskManager side calls the builder again, with the
// engine options of the run, and the tasks run the operators of that
// build; the output is the job's.
func TestRegisteredJobIsRebuiltByTheTaskManagers(t *testing.T) {
	lines := randomText(7, 300)
	input := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(input, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantCounts := referenceCounts(lines)
	var want20 []string
	for i := 1; i <= 20; i++ {
		want20 = append(want20, fmt.Sprintf("%d by build 2", i))
	}
	slices.Sort(want20)
	cases := []struct {
		name   string
		build  func(*atomic.Int64) weir.JobBuilder
		args   []string
		engine cli.EngineFlags
		check  func(t *testing.T, out []string)
	}{
		{"wordcount, parallelism 2", func(c *atomic.Int64) weir.JobBuilder { return counted(c, wordcount.Build) }, []string{"--input", input},
			cli.EngineFlags{Parallelism: 2}, func(t *testing.T, out []string) {
				got := map[string]int64{}
				for _, l := range out {
					word, n, ok := strings.Cut(l, "\t")
					count, err := strconv.ParseInt(n, 10, 64)
					if !ok || err != nil {
						t.Fatalf("output line %q is not word<TAB>count", l)
					}
					got[word] = count
				}
				if !maps.Equal(got, wantCounts) {
					t.Fatalf("%d counts; want the %d of the input", len(got), len(wantCounts))
				}
			}},
		{"tagged, parallelism 2", taggedJob, nil, cli.EngineFlags{Parallelism: 2}, func(t *testing.T, out []string) {
			if !slices.Equal(out, want20) {
				t.Fatalf("output %q; want every record by the second build (the TaskManagers')", out)
			}
		}},
		{"tagged, batch mode", taggedJob, nil, cli.EngineFlags{Parallelism: 3, Mode: "batch"}, func(t *testing.T, out []string) {
			if !slices.Equal(out, want20) {
				t.Fatalf("output %q; want every record by the second build (the TaskManagers')", out)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int64
			var stdout, stderr bytes.Buffer
			_, err := weir.RunRegistered(context.Background(), map[string]weir.JobBuilder{"job": c.build(&calls)},
				cli.RunRequest{Job: "job", Args: c.args, Engine: c.engine, Stdout: &stdout, Stderr: &stderr})
			if err != nil {
				t.Fatalf("run: %v (stderr %q)", err, stderr.String())
			}
			if n := calls.Load(); n != 2 {
				t.Fatalf("builder called %d times; want 2 (weir run, then the TaskManagers)", n)
			}
			out := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			slices.Sort(out)
			c.check(t, out)
		})
	}
}

// drift makes driftingJob's graph differ between builds.
var drift atomic.Int64

// driftingJob is a builder that is not deterministic: its map's
// parallelism alternates between builds.
func driftingJob(env *weir.Env, _ []string) error {
	p := int(drift.Add(1)%2) + 1
	weir.Print(weir.Map(weir.FromSlice(env, []int{1, 2, 3}), func(i int) (int, error) { return i, nil }).SetParallelism(p)).SetParallelism(1)
	return nil
}

// A builder that is not deterministic fails the job at its deployment,
// with or without a restart strategy, naming the job and both graphs'
// fingerprints; it never runs the TaskManagers' other graph.
func TestRegisteredBuilderThatIsNotDeterministicFailsTheJob(t *testing.T) {
	fingerprints := regexp.MustCompile(`registered job "drifting" \[\] has graph [0-9a-f]{16} here, the sender's is [0-9a-f]{16}`)
	cases := []struct {
		name   string
		engine cli.EngineFlags
	}{
		{"no restarts", cli.EngineFlags{Parallelism: 2}},
		{"checkpointed, with the default restarts", cli.EngineFlags{Parallelism: 2, CheckpointInterval: 3600e9, CheckpointDir: t.TempDir()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout bytes.Buffer
			sum, err := weir.RunRegistered(context.Background(), map[string]weir.JobBuilder{"drifting": driftingJob},
				cli.RunRequest{Job: "drifting", Engine: c.engine, Stdout: &stdout, Stderr: new(bytes.Buffer)})
			if !errors.Is(err, weir.ErrJobFailed) || !errors.Is(err, funcspec.ErrFingerprintMismatch) {
				t.Fatalf("err = %v; want a failed job with ErrFingerprintMismatch", err)
			}
			if !fingerprints.MatchString(err.Error()) {
				t.Errorf("err %q does not name the job and both fingerprints", err)
			}
			if sum.Restarts != 0 || stdout.Len() != 0 {
				t.Errorf("%d restarts, output %q; want none", sum.Restarts, stdout.String())
			}
		})
	}
}

// A spec that names no registered job, or arguments the builder refuses,
// cannot be rebuilt: the error says which job and why.
func TestRebuildRefusesBadSpecs(t *testing.T) {
	jobs := map[string]weir.JobBuilder{
		"squares": func(env *weir.Env, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected argument %q", args[0])
			}
			weir.Print(weir.FromSlice(env, []int{1, 4, 9}))
			return nil
		},
		"buggy": func(*weir.Env, []string) error { panic("a bug in the builder") },
	}
	cases := []struct {
		name    string
		job     *rpcpb.RegisteredJob
		unknown bool
		text    string
	}{
		{"unknown name", &rpcpb.RegisteredJob{Name: "nosuchjob"}, true, `no job "nosuchjob" is registered in this binary`},
		{"empty name", &rpcpb.RegisteredJob{}, true, `no job "" is registered`},
		{"arguments the builder refuses", &rpcpb.RegisteredJob{Name: "squares", Args: []string{"--x"}},
			false, `rebuild job "squares" with arguments ["--x"]: unexpected argument "--x"`},
		{"builder panics", &rpcpb.RegisteredJob{Name: "buggy"}, false, `rebuild job "buggy" with arguments []: builder panicked: a bug in the builder`},
		{"options that cannot work", &rpcpb.RegisteredJob{Name: "squares", Options: &rpcpb.BuildOptions{Parallelism: -1}},
			false, `rebuild job "squares": weir: parallelism -1 must be positive`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jg, err := weir.Rebuild(jobs, c.job)
			if err == nil || jg != nil {
				t.Fatalf("graph %v, err nil; want an error", jg)
			}
			if errors.Is(err, funcspec.ErrUnknown) != c.unknown || !strings.Contains(err.Error(), c.text) {
				t.Fatalf("err = %v; want one that says %q (ErrUnknown: %v)", err, c.text, c.unknown)
			}
		})
	}
	if _, err := weir.Rebuild(jobs, &rpcpb.RegisteredJob{Name: "squares", Options: &rpcpb.BuildOptions{Parallelism: 1}}); err != nil {
		t.Fatalf("a good spec: %v", err)
	}
}
