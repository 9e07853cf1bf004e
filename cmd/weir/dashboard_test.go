package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
)

// The web dashboard, in a headless browser, against a JobManager process
// with two TaskManager processes and a running job (see browser_test.go).

// dashboardJob starts a cluster of a JobManager (with jmFlags) and two
// TaskManagers of two slots, and a throttled sequence job on it at
// parallelism 2 with checkpoints; it returns the JobManager's REST API as
// a restJob of that job.
func dashboardJob(t *testing.T, jmFlags ...string) *restJob {
	t.Helper()
	c := startCluster(t, t.TempDir(), jmFlags...)
	c.startTaskManager(t, "2")
	c.startTaskManager(t, "2")
	r := runWeir(t, "run", "--jobmanager", c.rest, "--detach", "--parallelism", "2", "--checkpoint-interval", "200ms",
		"sequence", "--keys", "4", "--records-per-key", "1000000", "--rate", "2000", "--output", t.TempDir())
	if r.code != 0 || !jobID.MatchString(r.stdout) {
		t.Fatalf("run --detach: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	return &restJob{p: c.jm, base: "http://" + c.rest, id: strings.TrimSpace(r.stdout)}
}

// TestDashboard walks the dashboard of a running job as a user would: the
// overview counts the TaskManagers, the TaskManagers page lists them, the
// job page draws the graph with record counts that grow, a completed
// checkpoint appears in the history, a savepoint into a path that cannot
// be a directory shows the REST API's failure, and the stop button ends
// the job with a savepoint whose path the page shows.
func TestDashboard(t *testing.T) {
	b := newBrowser(t)
	j := dashboardJob(t)
	page := j.base + "/?refresh=200"

	b.open(page + "#/overview")
	b.await("two TaskManagers on the overview", `document.querySelector("#ov-taskmanagers")?.textContent === "2"`)
	b.await("four slots", `document.querySelector("#ov-slots-total")?.textContent === "4"`)
	b.await("the job among the running ones", `document.querySelector("#running-jobs tr[data-job-id='`+j.id+`']") !== null`)
	b.screenshot("dashboard-overview")

	var tms api.TaskManagers
	j.get(t, "/taskmanagers", &tms)
	if len(tms.TaskManagers) != 2 {
		t.Fatalf("GET /taskmanagers: %+v, want the two TaskManagers", tms)
	}
	b.open(page + "#/taskmanagers")
	for _, tm := range tms.TaskManagers {
		b.await("TaskManager "+tm.ID, `document.querySelector("#taskmanagers tr[data-taskmanager-id='`+tm.ID+`']") !== null`)
	}

	var d api.JobDetails
	j.get(t, "/jobs/"+j.id, &d)
	if len(d.Vertices) != 2 {
		t.Fatalf("vertices %+v, want the source and the counting sink", d.Vertices)
	}
	source := d.Vertices[0].ID
	b.open(page + "#/job/" + j.id)
	b.await("the graph's vertices", `document.querySelectorAll("#job-graph g.vertex").length === 2`)
	if ship := b.await("the keyBy edge", `document.querySelector("#job-graph g.edge[data-from='`+source+`'] text.ship")?.textContent`); ship != "HASH" {
		t.Errorf("edge from the source labelled %q, want HASH (the keyBy)", ship)
	}
	outOf := `Number(document.querySelector("#job-graph g.vertex[data-vertex-id='` + source + `'] .records-out")?.dataset.value ?? 0)`
	first, err := strconv.ParseFloat(b.await("records out of the source", outOf+` > 0 && String(`+outOf+`)`), 64)
	if err != nil {
		t.Fatal(err)
	}
	b.await("more records out of the source", outOf+` > `+strconv.FormatFloat(first, 'f', -1, 64))
	b.screenshot("dashboard-job")

	b.open(page + "#/job/" + j.id + "/checkpoints")
	cp := b.await("a completed checkpoint in the history", `document.querySelector("#checkpoint-history tr[data-status=COMPLETED]")?.dataset.checkpointId`)
	var cs api.CheckpointingStatistics
	j.get(t, "/jobs/"+j.id+"/checkpoints", &cs)
	if !historyHas(cs, cp) {
		t.Errorf("the page's checkpoint %s is not in the REST history %+v", cp, cs.History)
	}
	b.screenshot("dashboard-checkpoints")

	// A savepoint under a regular file fails; the page shows the failure
	// cause that GET .../savepoints/:triggerid answers.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "savepoints")
	b.do("trigger a savepoint under a file",
		setValue(`#stop-form input[name=targetDirectory]`, bad), click(`#trigger-savepoint`))
	msg := b.await("the savepoint's failure", `document.querySelector("#savepoint-result.error")?.textContent`)
	if !strings.HasPrefix(msg, "Savepoint failed: ") || !strings.Contains(msg, bad) || !strings.Contains(msg, "not a directory") {
		t.Errorf("the page says %q, want the REST API's failure cause for %s", msg, bad)
	}

	dir := t.TempDir()
	b.do("stop with a savepoint",
		setValue(`#stop-form input[name=targetDirectory]`, dir), click(`#stop-job`))
	loc := b.await("the savepoint's path", `document.querySelector("#savepoint-result.ok[data-location]")?.dataset.location`)
	if !strings.HasPrefix(loc, dir+string(filepath.Separator)) {
		t.Errorf("savepoint at %q, want under %s", loc, dir)
	}
	if _, err := os.Stat(filepath.Join(loc, "_metadata")); err != nil {
		t.Errorf("the savepoint the page shows: %v", err)
	}
	b.await("the job finished", `document.querySelector("#job-state")?.textContent === "FINISHED"`)
	b.await("the buttons of a running job off", `document.querySelector("#stop-job").disabled && document.querySelector("#cancel-job").disabled`)
	if text := b.eval(`document.querySelector("#savepoint-result").textContent`); text != "Stop with savepoint completed: "+loc {
		t.Errorf("the page says %q", text)
	}
	var st api.JobStatus
	j.get(t, "/jobs/"+j.id+"/status", &st)
	if st.Status != "FINISHED" {
		t.Errorf("status %q after stop, want FINISHED", st.Status)
	}
	b.screenshot("dashboard-stopped")
}

// historyHas says whether the checkpoint history has checkpoint id.
func historyHas(cs api.CheckpointingStatistics, id string) bool {
	for _, h := range cs.History {
		if strconv.FormatInt(h.ID, 10) == id {
			return true
		}
	}
	return false
}

// postJSON POSTs body to url and returns the status and the REST API's
// error message (empty for a success).
func postJSON(t *testing.T, url string, body any) (int, string) {
	t.Helper()
	return sendJSON(t, http.MethodPost, url, body)
}

// sendJSON sends body to url with method and returns the status and the
// REST API's error message (empty for a success).
func sendJSON(t *testing.T, method, url string, body any) (int, string) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e api.ErrorResponse
	_ = json.NewDecoder(resp.Body).Decode(&e)
	return resp.StatusCode, strings.Join(e.Errors, "; ")
}

// TestDashboardFormErrors submits bad values through the dashboard's
// submit form: a negative parallelism shows the message of POST /jobs
// word for word, and a savepoint to start from that is a missing
// directory shows the job's failure as GET /jobs/:jobid/exceptions words
// it (the submission is accepted and the restore fails, as in Flink).
func TestDashboardFormErrors(t *testing.T) {
	b := newBrowser(t)
	c := startCluster(t, t.TempDir())
	c.startTaskManager(t, "2")
	base := "http://" + c.rest
	input, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	b.open(base + "/?refresh=200#/overview")
	b.await("the submit form", `document.querySelector("#submit-form") !== null`)
	fill := func(parallelism, from string) {
		b.do("fill the submit form",
			setValue(`#submit-form input[name=job]`, "wordcount"),
			setValue(`#submit-form input[name=args]`, "--input "+input),
			setValue(`#submit-form input[name=parallelism]`, parallelism),
			setValue(`#submit-form input[name=fromSavepoint]`, from),
			click(`#submit-form button[type=submit]`))
	}

	fill("-1", "")
	got := b.await("the refusal", `(e => e && !e.hidden && e.textContent)(document.querySelector("#submit-form .form-error"))`)
	status, want := postJSON(t, base+"/jobs", api.JobSubmission{Job: "wordcount", Args: []string{"--input", input}, Options: api.EngineOptions{Parallelism: -1}})
	if status != http.StatusBadRequest || want == "" || got != want {
		t.Errorf("the page says %q; POST /jobs answers %d %q", got, status, want)
	}
	b.screenshot("dashboard-form-error")

	missing := filepath.Join(t.TempDir(), "no-such-savepoint")
	fill("2", missing)
	id := b.await("the new job's page", `location.hash.startsWith("#/job/") && location.hash.slice(6)`)
	got = b.await("the job's failure", `(e => e && !e.hidden && e.textContent)(document.querySelector("#job-failure"))`)
	var ex api.JobExceptions
	(&restJob{base: base, id: id}).get(t, "/jobs/"+id+"/exceptions", &ex)
	if ex.RootException == nil || got != *ex.RootException || !strings.Contains(got, missing) {
		t.Errorf("the page says %q; GET /jobs/%s/exceptions: %v", got, id, fmt.Sprint(ex.RootException))
	}
	// wordcount's graph, three vertices in a row: no box overlaps
	// another, and every edge runs from left to right.
	b.await("wordcount's graph", `document.querySelectorAll("#job-graph g.vertex").length === 3 && document.querySelectorAll("#job-graph g.edge").length === 2`)
	if bad := b.eval(graphProblems); bad != "" {
		t.Errorf("the graph's layout: %s", bad)
	}
	b.open(base + "/?refresh=200#/job/" + id + "/exceptions")
	got = b.await("the exceptions tab", `document.querySelector("#root-exception")?.textContent`)
	if got != *ex.RootException {
		t.Errorf("the exceptions tab says %q, want %q", got, *ex.RootException)
	}
	b.screenshot("dashboard-exceptions")
}

// graphProblems is a script that returns what is wrong with the drawn
// job graph's layout: overlapping boxes, edges that run right to left.
const graphProblems = `(() => {
	const boxes = [...document.querySelectorAll("#job-graph g.vertex")].map(g => [g.dataset.vertexId, g.querySelector("rect").getBoundingClientRect()]);
	const at = Object.fromEntries(boxes);
	const out = [];
	for (const [i, [a, ra]] of boxes.entries())
		for (const [b, rb] of boxes.slice(i + 1))
			if (ra.left < rb.right && rb.left < ra.right && ra.top < rb.bottom && rb.top < ra.bottom) out.push(a + " overlaps " + b);
	for (const e of document.querySelectorAll("#job-graph g.edge"))
		if (!(at[e.dataset.from].right <= at[e.dataset.to].left)) out.push("edge " + e.dataset.from + " -> " + e.dataset.to + " runs backwards");
	return out.join("; ");
})()`

// TestDashboardEmbedded: `weir run --rest-addr` serves the dashboard too,
// which lists its one job.
func TestDashboardEmbedded(t *testing.T) {
	b := newBrowser(t)
	j := startRESTJob(t)
	b.open(j.base + "/?refresh=200#/jobs")
	b.await("the job in the job list", `document.querySelector("#running-jobs tr[data-job-id='`+j.id+`']") !== null`)
	b.open(j.base + "/?refresh=200#/job/" + j.id)
	b.await("the graph", `document.querySelectorAll("#job-graph g.vertex").length === 2 && document.querySelectorAll("#job-graph g.edge").length === 1`)
	j.cancel(t)
}
