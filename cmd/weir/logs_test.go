package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// `weir run --log-format json` writes the engine's log as one JSON object
// per line, and a subtask's failure carries the job id, the vertex and the
// subtask.
func TestJSONLogs(t *testing.T) {
	r := runWeir(t, "run", "--log-format", "json", "--verbose", "sequence", "--keys", "2", "--records-per-key", "300",
		"--parallelism", "2", "--checkpoint-interval", "50ms", "--output", t.TempDir(), "--fail-after", "100")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	jobID := regexp.MustCompile(`^[0-9a-f]{32}$`)
	var failed map[string]any
	records := 0
	for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue // the command's own summary line
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line that is not JSON: %q: %v", line, err)
		}
		records++
		if rec["msg"] == "subtask failed" {
			failed = rec
		}
	}
	if records == 0 || failed == nil {
		t.Fatalf("%d JSON records, no \"subtask failed\" among them:\n%s", records, r.stderr)
	}
	id, _ := failed["job"].(string)
	if !jobID.MatchString(id) || failed["vertex"] != float64(1) || failed["subtask"] == nil || failed["level"] != "INFO" ||
		!strings.HasPrefix(failed["task"].(string), "count") {
		t.Errorf("the failure's record %v: want the job id, vertex 1, its subtask and task name", failed)
	}
}
