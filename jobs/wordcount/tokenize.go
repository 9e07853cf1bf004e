package wordcount

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// asciiWord marks the ASCII bytes that are word characters: letters and
// digits.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// isWordRune reports whether r belongs to a word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// NextWord returns the first word of line[i:] and the index just after it;
// ok is false when line[i:] holds no word. A word is a maximal run of
// Unicode letters and digits (unicode.IsLetter or unicode.IsDigit), lower
// cased. The word is a substring of line unless it had to be lower cased,
// so NextWord allocates only for words with upper-case letters.
func NextWord(line string, i int) (word string, next int, ok bool) {
	// Skip to the first word character.
	for i < len(line) {
		if c := line[i]; c < utf8.RuneSelf {
			if asciiWord[c] {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(line[i:])
		if isWordRune(r) {
			break
		}
		i += n
	}
	if i >= len(line) {
		return "", i, false
	}
	start, lower := i, true
	for i < len(line) {
		if c := line[i]; c < utf8.RuneSelf {
			if !asciiWord[c] {
				break
			}
			lower = lower && !('A' <= c && c <= 'Z')
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(line[i:])
		if !isWordRune(r) {
			break
		}
		lower = lower && unicode.ToLower(r) == r
		i += n
	}
	word = line[start:i]
	if !lower {
		word = strings.ToLower(word)
	}
	return word, i, true
}

// AppendWords appends the words of line, in order, to dst and returns the
// extended slice.
func AppendWords(dst []string, line string) []string {
	for i := 0; ; {
		w, next, ok := NextWord(line, i)
		if !ok {
			return dst
		}
		dst = append(dst, w)
		i = next
	}
}
