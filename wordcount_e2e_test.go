package weir_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weir-engine/weir"
)

type wordCount struct {
	Word  string
	Count int64
}

// randomText returns n lines of words drawn from a skewed vocabulary.
func randomText(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, 0))
	lines := make([]string, n)
	for i := range lines {
		var b strings.Builder
		for w := r.IntN(12); w >= 0; w-- {
			fmt.Fprintf(&b, "w%d ", r.IntN(1+r.IntN(500)))
		}
		lines[i] = b.String()
	}
	return lines
}

func referenceCounts(lines []string) map[string]int64 {
	want := map[string]int64{}
	for _, l := range lines {
		for _, w := range strings.Fields(l) {
			want[w]++
		}
	}
	return want
}

// countWords is the word count program: the running count per word.
func countWords(lines weir.DataStream[string]) weir.DataStream[wordCount] {
	words := weir.FlatMap(lines, func(l string, out weir.Collector[wordCount]) error {
		for _, w := range strings.Fields(l) {
			out.Collect(wordCount{w, 1})
		}
		return nil
	}).Name("split")
	return weir.Reduce(weir.KeyBy(words, func(w wordCount) string { return w.Word }),
		func(a, b wordCount) (wordCount, error) { return wordCount{a.Word, a.Count + b.Count}, nil }).Name("count")
}

func finalCounts(updates []wordCount) map[string]int64 {
	got := map[string]int64{}
	for _, u := range updates {
		// Rolling counts per key arrive in order, so the largest is the last.
		got[u.Word] = max(got[u.Word], u.Count)
	}
	return got
}

func checkCounts(t *testing.T, got, want map[string]int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d distinct words, want %d", len(got), len(want))
	}
	for w, n := range want {
		if got[w] != n {
			t.Errorf("count(%q) = %d, want %d", w, got[w], n)
		}
	}
}

func TestWordCountMatchesReference(t *testing.T) {
	lines := randomText(1, 5000)
	want := referenceCounts(lines)
	for _, tt := range []struct {
		name string
		opts []weir.Option
	}{
		{"parallel", []weir.Option{weir.WithParallelism(4), weir.WithMiniCluster(2, 2)}},
		{"unchained", []weir.Option{weir.WithParallelism(3), weir.WithoutChaining()}},
		{"single", []weir.Option{weir.WithParallelism(1)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := weir.NewEnv(tt.opts...)
			updates, err := weir.Collect(context.Background(), countWords(weir.FromSlice(env, lines)))
			if err != nil {
				t.Fatal(err)
			}
			// Every word occurrence produced exactly one rolling update.
			var total int64
			for _, n := range want {
				total += n
			}
			if int64(len(updates)) != total {
				t.Fatalf("%d updates, want %d", len(updates), total)
			}
			checkCounts(t, finalCounts(updates), want)
		})
	}
}

func TestWordCountFromFilesWithSplits(t *testing.T) {
	dir := t.TempDir()
	lines := randomText(2, 20000)
	// Two files, the second without a final newline; the splits are small,
	// so lines cross split boundaries (at 31 bytes, about one line: many splits start
	// inside a line, some hold no line start at all). No line may be cut
	// or read twice.
	half := len(lines) / 2
	for i, part := range [][]string{lines[:half], lines[half:]} {
		text := strings.Join(part, "\n")
		if i == 0 {
			text += "\n"
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("in-%d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, size := range []int64{31, 100, 64 << 10} {
		t.Run(fmt.Sprintf("split=%d", size), func(t *testing.T) {
			defer weir.SetTextSplitSize(size)()
			env := weir.NewEnv(weir.WithParallelism(3))
			updates, err := weir.Collect(context.Background(), countWords(weir.ReadTextFile(env, dir)))
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, finalCounts(updates), referenceCounts(lines))
		})
	}
}

func TestWriteTextWritesOneFilePerSubtask(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	env := weir.NewEnv(weir.WithParallelism(2))
	weir.WriteText(weir.FromSlice(env, []int{1, 2, 3, 4, 5}), dir, func(v int) string { return fmt.Sprint(v) })
	if _, err := env.Execute(context.Background(), "write"); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, f := range []string{"part-0", "part-1"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, strings.Fields(string(b))...)
	}
	if len(all) != 5 {
		t.Fatalf("files hold %v, want the 5 elements", all)
	}
}
