package wordcount

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// TestCountTableModel checks the table against a map[string]int64 over
// random sequences of counts and resets: words of every length around
// the inline limit, the empty word, and words that share a prefix, enough
// of them to grow the table several times.
func TestCountTableModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tab, model := newCountTable(), map[string]int64{}
		word := rapid.OneOf(
			rapid.StringMatching(`[a-c]{0,4}`),
			rapid.StringMatching(`w[0-9a-f]{1,6}`),
			rapid.StringOfN(rapid.RuneFrom([]rune("xyé")), inlineWord-3, inlineWord+2, -1),
		)
		steps := rapid.IntRange(1, 3000).Draw(t, "steps")
		for range steps {
			if rapid.IntRange(0, 60).Draw(t, "op") == 0 {
				tab.reset()
				clear(model)
			} else {
				w := word.Draw(t, "word")
				n := rapid.Int64Range(1, 3).Draw(t, "n")
				tab.add(w, n)
				model[w] += n
			}
			if tab.len() != len(model) {
				t.Fatalf("len %d, the map has %d", tab.len(), len(model))
			}
		}
		if got := maps.Collect(tab.all()); !maps.Equal(got, model) {
			t.Fatalf("the table holds %v, the map %v", got, model)
		}
	})
}

// TestCountTableKeepsNoLine counts words that are substrings of a line
// whose bytes are then overwritten (as a reader reuses its buffer): the
// counts keep their words.
func TestCountTableKeepsNoLine(t *testing.T) {
	buf := []byte("short " + strings.Repeat("long", 8))
	line := unsafe.String(&buf[0], len(buf)) // shares buf's bytes
	tab := newCountTable()
	tab.add(line[:5], 1)
	tab.add(line[6:], 2)
	for i := range buf {
		buf[i] = 'x'
	}
	want := map[string]int64{"short": 1, strings.Repeat("long", 8): 2}
	if got := maps.Collect(tab.all()); !maps.Equal(got, want) {
		t.Fatalf("the table holds %v, want %v", got, want)
	}
}

// TestCountTableGrows counts far more words than the table's first size
// holds and finds every count again.
func TestCountTableGrows(t *testing.T) {
	tab := newCountTable()
	const n = 50_000
	want := map[string]int64{}
	for i := range n {
		w := fmt.Sprintf("w%x", i)
		if i%7 == 0 {
			w = strings.Repeat("long", 8) + w
		}
		tab.add(w, int64(i))
		tab.add(w, 1)
		want[w] = int64(i) + 1
	}
	if 4*tab.used > 3*len(tab.slots) {
		t.Fatalf("%d slots hold %d inline words: the table did not grow", len(tab.slots), tab.used)
	}
	if got := maps.Collect(tab.all()); !maps.Equal(got, want) {
		t.Fatalf("the table holds %d words, want %d, or counts differ", len(got), len(want))
	}
}

// BenchmarkLocalCount counts a Zipf-distributed text of word-count's
// vocabulary with the table and, in the same run, with a map[string]int64.
func BenchmarkLocalCount(b *testing.B) {
	words := zipfWords(4_000_000)
	b.Run("table", func(b *testing.B) {
		for b.Loop() {
			tab := newCountTable()
			for _, w := range words {
				tab.add(w, 1)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	})
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			m := map[string]int64{}
			for _, w := range words {
				m[w]++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(words)), "ns/word")
	})
}

// zipfWords returns n words drawn as the word-count benchmarks' input
// draws them (bench/wordcountloop): 200,000 words, Zipf exponent 1.2.
func zipfWords(n int) []string {
	r := rand.New(rand.NewPCG(42, 42))
	zipf := rand.NewZipf(r, 1.2, 1, 200_000)
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("w%x", zipf.Uint64())
	}
	return words
}
