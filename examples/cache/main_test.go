package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// childEnv makes the test binary run the example's main instead of the
// tests: the process tests start the program as a real process without
// building it again.
const childEnv = "WEIR_CACHE_EXAMPLE_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// runProgram runs the example as a process with args and returns how
// often its expensive step ran, and its output.
func runProgram(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cache %q: %v\n%s", args, err, out)
	}
	m := regexp.MustCompile(`expensive step ran (\d+) times`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no count of the expensive step in the output:\n%s", out)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n, string(out)
}

// Caches survive the program with -cache-dir: a second process reads
// every step from the first one's caches (its expensive step never runs)
// with the same results, and a touched input file makes the next process
// compute again.
func TestCacheDirAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "sample.txt")
	if err := writeSample(input, 200); err != nil {
		t.Fatal(err)
	}
	args := []string{"-input", input, "-cache-dir", filepath.Join(dir, "caches"), "-work", "1"}
	const tokens = 200 * 8
	first, out1 := runProgram(t, args...)
	if first != tokens {
		t.Fatalf("first run: expensive step ran %d times, want %d\n%s", first, tokens, out1)
	}
	second, out2 := runProgram(t, args...)
	if second != 0 {
		t.Fatalf("second run: expensive step ran %d times, want 0 (read from the caches)\n%s", second, out2)
	}
	if results(out1) != results(out2) {
		t.Fatalf("results differ:\n%s\n%s", out1, out2)
	}
	if n := regexp.MustCompile(`read cache: true`).FindAllStringIndex(out2, -1); len(n) != 4 {
		t.Fatalf("second run: %d steps read a cache, want all 4\n%s", len(n), out2)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(input, later, later); err != nil {
		t.Fatal(err)
	}
	third, out3 := runProgram(t, args...)
	if third != tokens {
		t.Fatalf("after touching the input: expensive step ran %d times, want %d\n%s", third, tokens, out3)
	}
}

// results is the output without timings, cache flags and the count of
// the expensive step.
func results(out string) string {
	out = regexp.MustCompile(`expensive step ran \d+ times`).ReplaceAllString(out, "")
	return regexp.MustCompile(`(?m)\s+\S+\s+read cache: \w+$`).ReplaceAllString(out, "")
}

// The example's steps give the same results with and without Cache, and
// with it every step after the first reads a cache.
func TestExampleReadsCaches(t *testing.T) {
	ctx := context.Background()
	cfg := Config{Lines: 300, Work: 1, Parallelism: 2}
	var out bytes.Buffer
	withCache, err := Run(ctx, &out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.NoCache = true
	without, err := Run(ctx, &out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(withCache) != 4 || len(without) != 4 {
		t.Fatalf("steps: %d and %d, want 4\n%s", len(withCache), len(without), out.String())
	}
	for i := range withCache {
		if withCache[i].Result != without[i].Result {
			t.Fatalf("step %q: %s with the cache, %s without", withCache[i].Name, withCache[i].Result, without[i].Result)
		}
		if want := i > 0; withCache[i].ReadCache != want || without[i].ReadCache {
			t.Fatalf("step %q read a cache: %v with Cache (want %v), %v without", withCache[i].Name, withCache[i].ReadCache, want, without[i].ReadCache)
		}
	}
	if withCache[1].Result != "2400 tokens" {
		t.Fatalf("count = %s, want 2400 tokens (300 lines of 8 words)", withCache[1].Result)
	}
}
