package main

import (
	"os"
	"testing"
)

// wordcount's stdout is sorted by word, so that runs compare equal byte for
// byte whatever the parallelism: each run's output is exactly the expected
// file, which is sorted.
func TestWordcountStdoutSorted(t *testing.T) {
	want, err := os.ReadFile(expected)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"1", "4"} {
		r := runWeir(t, "run", "wordcount", "--input", sample, "--parallelism", p)
		if r.code != 0 {
			t.Fatalf("parallelism %s: exit %d, stderr %q", p, r.code, r.stderr)
		}
		if r.stdout != string(want) {
			t.Errorf("parallelism %s: stdout (%d bytes) is not %s (%d bytes) byte for byte", p, len(r.stdout), expected, len(want))
		}
	}
}
