package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/weir-engine/weir/internal/rest/api"
)

// TestDashboardResourceRequirements changes a running job's parallelism
// through the scheduler tab of the dashboard, as a user would, on a
// JobManager process with two TaskManagers: the tab shows the adaptive
// scheduler's state and each vertex at parallelism 2; a lower bound of 0
// in the resource requirements form shows the message of PUT
// /jobs/:jobid/resource-requirements word for word and changes nothing;
// an upper bound of 1 rescales the job, and the tab shows every vertex at
// 1 and the rescale in its history (2 → 1 per vertex, the reason, how
// long it took), as GET /jobs/:jobid records it.
func TestDashboardResourceRequirements(t *testing.T) {
	b := newBrowser(t)
	j := dashboardJob(t, "--cooldown-after-rescaling", "100ms")
	j.awaitParallelism(t, 2)
	var req api.JobResourceRequirements
	j.get(t, "/jobs/"+j.id+"/resource-requirements", &req)
	if len(req) != 2 {
		t.Fatalf("requirements %+v, want the source and the sink", req)
	}

	b.open(j.base + "/?refresh=200#/job/" + j.id + "/scheduler")
	b.await("the adaptive scheduler executing", `document.querySelector("#adaptive-state")?.textContent === "Executing" && document.querySelector("#job-scheduler-state")?.textContent === "Executing"`)
	b.await("every vertex at 2", atParallelism(2))
	b.await("the resource requirements form", `document.querySelectorAll("#resource-form input[type=number]").length === 4`)
	b.await("no rescale yet", `document.querySelector("#rescale-history tr.empty") !== null`)

	// A lower bound of 0 on one vertex: the API's refusal, as it words it.
	var some string
	for v := range req {
		some = v
		break
	}
	bad := make(api.JobResourceRequirements, len(req))
	for v, r := range req {
		bad[v] = r
	}
	bad[some] = api.VertexResourceRequirements{Parallelism: api.ParallelismBounds{LowerBound: 0, UpperBound: req[some].Parallelism.UpperBound}}
	b.do("a lower bound of 0", setValue(`#resource-form input[name="lower-`+some+`"]`, "0"), click(`#resource-form button[type=submit]`))
	got := b.await("the refusal", `(e => e && !e.hidden && e.textContent)(document.querySelector("#resource-form .result.error"))`)
	status, want := sendJSON(t, http.MethodPut, j.base+"/jobs/"+j.id+"/resource-requirements", bad)
	if status != http.StatusBadRequest || want == "" || got != want {
		t.Errorf("the page says %q; PUT answers %d %q", got, status, want)
	}
	var after api.JobResourceRequirements
	j.get(t, "/jobs/"+j.id+"/resource-requirements", &after)
	if !sameRequirements(after, req) {
		t.Errorf("requirements %+v after the refusals, want %+v unchanged", after, req)
	}
	b.screenshot("dashboard-resource-error")

	// An upper bound of 1 everywhere rescales the job down.
	var steps []string
	for v := range req {
		steps = append(steps, `#resource-form input[name="lower-`+v+`"]`, `#resource-form input[name="upper-`+v+`"]`)
	}
	for _, sel := range steps {
		b.do("bounds 1 to 1", setValue(sel, "1"))
	}
	b.do("apply", click(`#resource-form button[type=submit]`))
	b.await("the change accepted", `(e => e && !e.hidden && e.textContent)(document.querySelector("#resource-form .result.ok"))`)
	b.await("every vertex at 1", atParallelism(1))
	row := `document.querySelector("#rescale-history tr.rescale")`
	b.await("the rescale done in the history", row+`?.dataset.duration >= 0`)
	var d api.JobDetails
	j.get(t, "/jobs/"+j.id, &d)
	if len(d.Rescales) != 1 {
		t.Fatalf("rescales %+v, want the one down", d.Rescales)
	}
	r := d.Rescales[0]
	if got := b.eval(row + `.dataset.reason`); got != r.Reason || r.Reason != "parallelism must decrease" {
		t.Errorf("the page's reason %q, REST's %q, want parallelism must decrease", got, r.Reason)
	}
	if got := b.eval(row + `.dataset.timestamp + " " + ` + row + `.dataset.duration`); got != strconv.FormatInt(r.Timestamp, 10)+" "+strconv.FormatInt(r.Duration, 10) {
		t.Errorf("the page's rescale at/took %q, REST's %d/%d", got, r.Timestamp, r.Duration)
	}
	changes := b.eval(`JSON.stringify([...` + row + `.querySelectorAll(".change")].map(c => [c.dataset.vertexId, Number(c.dataset.from), Number(c.dataset.to)]))`)
	var seen [][3]any
	if err := json.Unmarshal([]byte(changes), &seen); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(req) {
		t.Errorf("the page's changes %s, want one per vertex", changes)
	}
	for _, c := range seen {
		v, _ := c[0].(string)
		if c[1] != float64(2) || c[2] != float64(1) || r.From[v] != 2 || r.To[v] != 1 {
			t.Errorf("the page's change %v, REST's %d -> %d, want 2 -> 1", c, r.From[v], r.To[v])
		}
	}
	b.screenshot("dashboard-scheduler")
}

// atParallelism is a script that is true when the scheduler tab shows
// every vertex at parallelism n.
func atParallelism(n int) string {
	return `(rs => rs.length > 0 && rs.every(r => r.dataset.parallelism === "` + strconv.Itoa(n) + `"))([...document.querySelectorAll("#vertex-parallelism tr[data-vertex-id]")])`
}

// sameRequirements says whether a and b bound every vertex alike.
func sameRequirements(a, b api.JobResourceRequirements) bool {
	if len(a) != len(b) {
		return false
	}
	for v, r := range a {
		if b[v] != r {
			return false
		}
	}
	return true
}
