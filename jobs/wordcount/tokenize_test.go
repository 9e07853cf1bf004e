package wordcount

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unsafe"

	"pgregory.net/rapid"
)

// referenceWords is the definition of a word, written the obvious way.
func referenceWords(line string) []string {
	words := strings.FieldsFunc(line, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return words
}

func TestAppendWords(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"", nil},
		{"   \t ", nil},
		{"hello", []string{"hello"}},
		{"Hello, World!", []string{"hello", "world"}},
		{"don't stop-me now", []string{"don", "t", "stop", "me", "now"}},
		{"in 1848 and 42nd", []string{"in", "1848", "and", "42nd"}},
		{"snake_case", []string{"snake", "case"}},
		{"Café ZÜRICH naïve", []string{"café", "zürich", "naïve"}},
		{"ΛΌΓΟΣ Москва", []string{"λόγοσ", "москва"}}, // per-rune lower case: no final sigma
		{"a\xffb", []string{"a", "b"}},                // invalid UTF-8 separates
		{"x\u00a0y\u2014z", []string{"x", "y", "z"}},
		{"\r\nline\r", []string{"line"}},
	} {
		got := AppendWords(nil, tt.line)
		if !slices.Equal(got, tt.want) {
			t.Errorf("AppendWords(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestAppendWordsMatchesReference(t *testing.T) {
	alphabet := []rune("aZ09 ,.'-_\tÄöß界λΣМ\u00a0\u2014\u0301½")
	rapid.Check(t, func(t *rapid.T) {
		line := rapid.StringOfN(rapid.SampledFrom(alphabet), 0, 40, -1).Draw(t, "line")
		if got, want := AppendWords(nil, line), referenceWords(line); !slices.Equal(got, want) {
			t.Fatalf("AppendWords(%q) = %q, want %q", line, got, want)
		}
	})
}

func TestNextWordAllocatesOnlyToLowerCase(t *testing.T) {
	lower := "the quick brown fox jumps over the lazy dog, naïve café 1848"
	buf := make([]string, 0, 64)
	if n := testing.AllocsPerRun(100, func() { buf = AppendWords(buf[:0], lower) }); n != 0 {
		t.Errorf("AppendWords of a lower-case line: %v allocations, want 0", n)
	}
	// Words are substrings of the line when nothing needs lower-casing.
	words := AppendWords(nil, lower)
	if words[1] != "quick" || unsafe.StringData(words[1]) != unsafe.StringData(lower[4:]) {
		t.Fatalf("word %q is not the substring of the line", words[1])
	}
}

func BenchmarkAppendWords(b *testing.B) {
	line := "There was once a Miller who kept a mill on the river, below the old weir"
	buf := make([]string, 0, 64)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		buf = AppendWords(buf[:0], line)
	}
}
