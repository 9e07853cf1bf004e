package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A short run of every job, load and buffer timeout prints one row each,
// with latencies measured on the records after the warm-up; the jobs'
// checks (every record of the stateless job arrives, window results
// arrive) pass, and each row says the rate the source achieved.
func TestRunPrintsTable(t *testing.T) {
	c := config{duration: 300 * time.Millisecond, warmup: 100 * time.Millisecond, maxRecords: 50_000, keys: 10, window: 20 * time.Millisecond}
	if err := c.parse("stateless,windowed", "0.5", "default,1ms,0"); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := c.run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if want := 1 + 2*(1+3); len(lines) != want {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), want, out.String())
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if f[1] == "max" {
			continue
		}
		if strings.Contains(l, " 0  ") || !strings.Contains(l, "ms") {
			t.Errorf("a row without samples or latencies: %q", l)
		}
		// From the right: the load average's three fields, samples, max,
		// p99.9, p99, p50, then the achieved rate.
		if achieved, err := strconv.ParseFloat(f[len(f)-9], 64); err != nil || achieved <= 0 {
			t.Errorf("no achieved rate in %q: %q, %v", l, f[len(f)-9], err)
		}
	}
}

func TestParseRejectsBadFlags(t *testing.T) {
	tests := []struct{ jobs, loads, timeouts, want string }{
		{"nope", "0.5", "1ms", "unknown job"},
		{"stateless", "1.5", "1ms", "not a fraction"},
		{"stateless", "0.5", "-1ms", "not default or a duration"},
	}
	for _, tt := range tests {
		c := config{duration: time.Second, maxRecords: 1, keys: 1, window: time.Second}
		if err := c.parse(tt.jobs, tt.loads, tt.timeouts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parse(%q, %q, %q) = %v, want an error with %q", tt.jobs, tt.loads, tt.timeouts, err, tt.want)
		}
	}
}
