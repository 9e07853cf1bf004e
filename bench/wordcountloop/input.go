package wordcountloop

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/weir-engine/weir/jobs/wordcount"
)

// WriteInput writes mb MB of words drawn from a Zipf-like vocabulary of
// 200,000 words, mixed case and punctuation, so the tokenizer and the
// per-word state both do real work. The same mb always gives the same
// text.
func WriteInput(w io.Writer, mb int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(42, 42))
	zipf := rand.NewZipf(r, 1.2, 1, 200_000)
	written := 0
	for written < mb<<20 {
		var line strings.Builder
		for n := 5 + r.IntN(10); n > 0; n-- {
			word := fmt.Sprintf("w%x", zipf.Uint64())
			if r.IntN(10) == 0 {
				word = strings.ToUpper(word)
			}
			line.WriteString(word)
			line.WriteString([]string{" ", ", ", ". ", " -- "}[r.IntN(4)])
		}
		line.WriteByte('\n')
		n, err := bw.WriteString(line.String())
		if err != nil {
			return err
		}
		written += n
	}
	return bw.Flush()
}

// Count is the hand-written single-goroutine program: read the lines of
// the file at path, split them with the job's tokenizer, count in a map.
func Count(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := make(map[string]int64)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var words []string
	for sc.Scan() {
		words = wordcount.AppendWords(words[:0], sc.Text())
		for _, w := range words {
			counts[w]++
		}
	}
	return counts, sc.Err()
}
