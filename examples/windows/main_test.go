package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reference computes the windows' lines with a plain loop over the same
// purchases.
func reference(events int64) []string {
	type key struct {
		user  string
		start int64
	}
	totals := map[key]Totals{}
	sizeMs, slideMs := size.Milliseconds(), slide.Milliseconds()
	for i := range events {
		p := purchase(i)
		// Every window [start, start+size) with start a multiple of slide
		// that contains p.Time.
		for start := p.Time - p.Time%slideMs; start > p.Time-sizeMs; start -= slideMs {
			t := totals[key{p.User, start}]
			totals[key{p.User, start}] = Totals{Count: t.Count + 1, Sum: t.Sum + p.Amount}
		}
	}
	var lines []string
	for k, t := range totals {
		lines = append(lines, fmt.Sprintf("user=%s window=[%v,%v) purchases=%d total=%d", k.user,
			time.Duration(k.start)*time.Millisecond, time.Duration(k.start+sizeMs)*time.Millisecond, t.Count, t.Sum))
	}
	slices.Sort(lines)
	return lines
}

func TestWindowsExample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	const events = 1000
	if err := run(ctx, &out, events, 20000); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(got)
	want := reference(events)
	if !slices.Equal(got, want) {
		t.Fatalf("got %d windows, want %d:\ngot  %q\nwant %q", len(got), len(want), got, want)
	}
	// Every purchase is in two windows.
	var n int64
	for _, l := range got {
		var c int64
		if _, err := fmt.Sscanf(l[strings.Index(l, "purchases="):], "purchases=%d", &c); err != nil {
			t.Fatal(err)
		}
		n += c
	}
	if n != 2*events {
		t.Errorf("the windows hold %d purchases, want %d", n, 2*events)
	}
}
