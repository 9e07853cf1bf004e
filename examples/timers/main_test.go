package main

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reference cuts the clicks into sessions with a plain loop.
func reference(clicks int64) []string {
	byUser := map[string][]int64{}
	for i := range clicks {
		c := click(i)
		byUser[c.User] = append(byUser[c.User], c.Time)
	}
	var lines []string
	for user, times := range byUser {
		start := 0
		for i := 1; i <= len(times); i++ {
			if i == len(times) || times[i]-times[i-1] >= gap.Milliseconds() {
				lines = append(lines, fmt.Sprintf("session user=%s start=%dms end=%dms clicks=%d", user, times[start], times[i-1], i-start))
				start = i
			}
		}
	}
	slices.Sort(lines)
	return lines
}

var alertLine = regexp.MustCompile(`^alert user=(ada|bob|cyd): session since (\d+)ms still open after 5ms of processing time$`)

func TestTimersExample(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out bytes.Buffer
	const clicks = 240 // 8 bursts
	if err := run(ctx, &out, clicks, 2000, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var sessions, alerts []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(l, "alert ") {
			alerts = append(alerts, l)
		} else {
			sessions = append(sessions, l)
		}
	}
	slices.Sort(sessions)
	// The sessions depend only on event time: exactly the reference.
	if want := reference(clicks); !slices.Equal(sessions, want) {
		t.Fatalf("sessions:\n%s\nwant:\n%s", strings.Join(sessions, "\n"), strings.Join(want, "\n"))
	}
	// Alerts depend on the wall clock; each names a session that exists,
	// at most once.
	seen := map[string]bool{}
	for _, a := range alerts {
		m := alertLine.FindStringSubmatch(a)
		if m == nil {
			t.Fatalf("malformed alert %q", a)
		}
		id := m[1] + "@" + m[2]
		if seen[id] || !slices.ContainsFunc(sessions, func(s string) bool {
			return strings.HasPrefix(s, "session user="+m[1]+" start="+m[2]+"ms ")
		}) {
			t.Errorf("alert %q: no such session, or alerted twice", a)
		}
		seen[id] = true
	}
	t.Logf("%d sessions, %d alerts", len(sessions), len(alerts))
}
