package main

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	slices.Sort(lines)
	return lines
}

// The example prints exactly the counts checked in beside the sample.
func TestWordcountExample(t *testing.T) {
	want, err := os.ReadFile("../../testdata/words.expected")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{1, 3} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var out bytes.Buffer
		err := run(ctx, &out, "../../testdata/words.txt", p)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if got := sortedLines(out.String()); !slices.Equal(got, sortedLines(string(want))) {
			t.Errorf("parallelism %d: output differs from testdata/words.expected:\n%s", p, out.String())
		}
	}
}
