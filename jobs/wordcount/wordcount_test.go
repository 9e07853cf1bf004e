package wordcount

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/weir-engine/weir"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	sample   = "../../testdata/words.txt"
	expected = "../../testdata/words.expected"
)

// expectedLines returns the checked-in expected output, sorted.
func expectedLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(expected)
	if err != nil {
		t.Fatal(err)
	}
	return sortedLines(string(b))
}

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	slices.Sort(lines)
	return lines
}

func execute(t *testing.T, env *weir.Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := env.Execute(ctx, Name); err != nil {
		t.Fatal(err)
	}
}

func TestWordcountPrintsFinalCounts(t *testing.T) {
	want := expectedLines(t)
	for _, p := range []int{1, 3} {
		for _, mode := range []weir.RuntimeMode{weir.Streaming, weir.Batch} {
			var out bytes.Buffer
			env := weir.NewEnv(weir.WithParallelism(p), weir.WithMode(mode), weir.WithStdout(&out))
			if err := Wordcount(env, []string{sample}, ""); err != nil {
				t.Fatal(err)
			}
			execute(t, env)
			if got := sortedLines(out.String()); !slices.Equal(got, want) {
				t.Errorf("parallelism %d, %v: got %d lines, want %d; first difference: %s", p, mode, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}

func TestWordcountWritesFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	// The same input twice doubles every count.
	env := weir.NewEnv(weir.WithParallelism(3))
	if err := Build(env, []string{"--input", sample, sample, "--output", dir}); err != nil {
		t.Fatal(err)
	}
	execute(t, env)
	parts, err := filepath.Glob(filepath.Join(dir, "part-*"))
	if err != nil || len(parts) != 3 {
		t.Fatalf("part files %v (%v), want 3", parts, err)
	}
	var all strings.Builder
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	var want []string
	for _, l := range expectedLines(t) {
		w, n, _ := strings.Cut(l, "\t")
		c, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("bad expected line %q", l)
		}
		want = append(want, w+"\t"+strconv.Itoa(2*c))
	}
	slices.Sort(want)
	if got := sortedLines(all.String()); !slices.Equal(got, want) {
		t.Errorf("got %d lines, want %d; first difference: %s", len(got), len(want), firstDiff(got, want))
	}
}

func TestBuildRejectsBadArguments(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "no input"},
		{[]string{"--input", "no/such/file.txt"}, "input no/such/file.txt: no such file or directory"},
		{[]string{"--input", sample, "--output", sample}, "not a directory"},
		{[]string{"--input", sample, "--paralelism", "3"}, "flag provided but not defined: -paralelism"},
		{[]string{"--input"}, "flag needs an argument: -input"},
	} {
		env := weir.NewEnv()
		err := Build(env, tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Build(%q) = %v, want an error containing %q", tt.args, err, tt.want)
		}
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "got " + got[i] + ", want " + want[i]
		}
	}
	return "one output is a prefix of the other"
}

// failOnce fails the job once, at line failAt of the first attempt of its
// first subtask; it slows the lines down so that checkpoints complete
// while the local counts hold words not sent yet.
type failOnce struct {
	failAt, seen int
	attempt      int
	subtask      int
}

func (f *failOnce) Open(rc *weir.RuntimeContext) error {
	f.attempt, f.subtask = rc.Attempt, rc.SubtaskIndex
	return nil
}

func (f *failOnce) Map(line string) (string, error) {
	f.seen++
	if f.attempt == 0 && f.subtask == 0 && f.seen == f.failAt {
		return "", errors.New("injected failure")
	}
	time.Sleep(50 * time.Microsecond)
	return line, nil
}

// TestCountsExactlyOnceAcrossFailure fails the job after checkpoints were
// taken while the local counts held partial counts not sent across the
// keyBy (no watermark flushes them before the end of the input): the
// restored job must count every word exactly once, whatever the
// parallelism.
func TestCountsExactlyOnceAcrossFailure(t *testing.T) {
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for range 20 {
		lines = append(lines, strings.Split(strings.TrimRight(string(b), "\n"), "\n")...)
	}
	want := map[string]int64{}
	for _, l := range lines {
		for _, w := range AppendWords(nil, l) {
			want[w]++
		}
	}
	for _, p := range []int{1, 3} {
		t.Run(strconv.Itoa(p), func(t *testing.T) {
			env := weir.NewEnv(weir.WithParallelism(p),
				weir.WithCheckpointing(weir.CheckpointConfig{Interval: 10 * time.Millisecond}),
				weir.WithRestartStrategy(weir.FixedDelayRestart(1, time.Millisecond)))
			slow := weir.MapWith(weir.FromSlice(env, lines), weir.MapFunction[string, string](&failOnce{failAt: len(lines) / p * 3 / 4}))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			counts, err := weir.Collect(ctx, Counts(slow))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, wc := range counts {
				if _, dup := got[wc.Word]; dup {
					t.Errorf("word %q counted twice", wc.Word)
				}
				got[wc.Word] = wc.Count
			}
			if !maps.Equal(got, want) {
				for w, n := range want {
					if got[w] != n {
						t.Errorf("count(%q) = %d, want %d", w, got[w], n)
					}
				}
				t.Fatalf("%d words counted, want %d", len(got), len(want))
			}
		})
	}
}
