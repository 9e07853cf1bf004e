// A job's page: its header and buttons, and tabs: the graph with live
// numbers per vertex, checkpoints, exceptions, scheduler, configuration.
import { h, replace, row, table } from "./dom.js";
import * as f from "./format.js";
import { get, optional } from "./http.js";
import { jobActions } from "./actions.js";
import { isTerminal } from "./cluster.js";
import { render } from "./graph.js";
import * as tabs from "./jobtabs.js";
const tabNames = [["overview", "Overview"], ["checkpoints", "Checkpoints"], ["exceptions", "Exceptions"],
    ["scheduler", "Scheduler"], ["configuration", "Configuration"]];
const liveMetrics = ["numRecordsInPerSecond", "numRecordsOutPerSecond", "busyTimeMsPerSecond", "backPressuredTimeMsPerSecond"];
/** vertexLive fetches what the graph shows of a vertex beyond the job's details; paths the server lacks are left out. */
async function vertexLive(jobId, v) {
    const base = `/jobs/${jobId}/vertices/${v.id}`;
    const [metrics, bp, wms] = await Promise.all([
        optional(`${base}/subtasks/metrics?get=${liveMetrics.join(",")}&agg=sum,max`),
        optional(`${base}/backpressure`),
        optional(`${base}/watermarks`),
    ]);
    const m = new Map((metrics ?? []).map((x) => [x.id, x]));
    const out = {
        id: v.id, name: v.name, status: v.status, parallelism: v.parallelism,
        recordsIn: v.metrics?.["read-records"], recordsOut: v.metrics?.["write-records"],
        inPerSecond: m.get("numRecordsInPerSecond")?.sum, outPerSecond: m.get("numRecordsOutPerSecond")?.sum,
    };
    const busy = m.get("busyTimeMsPerSecond")?.max;
    if (busy !== undefined)
        out.busy = busy / 1000;
    const bpTime = m.get("backPressuredTimeMsPerSecond")?.max;
    if (bpTime !== undefined)
        out.backPressure = bpTime / 1000;
    if (bp?.status === "ok" && bp.subtasks && bp.subtasks.length > 0) {
        out.backPressure = Math.max(...bp.subtasks.map((s) => s.ratio ?? 0));
        out.backPressureLevel = bp.backpressureLevel;
        const busyRatios = bp.subtasks.map((s) => s.busyRatio).filter((x) => x !== undefined);
        if (out.busy === undefined && busyRatios.length > 0)
            out.busy = Math.max(...busyRatios);
    }
    // The vertex's low watermark is the least of its subtasks' input watermarks.
    const values = (wms ?? []).filter((w) => w.id.endsWith(".currentInputWatermark") && w.value !== undefined).map((w) => Number(w.value));
    if (values.length > 0)
        out.watermark = Math.min(...values);
    return out;
}
function vertexTable(vs, details) {
    const tasks = new Map(details.map((d) => [d.id, d.tasks ?? {}]));
    return table("vertices", ["Vertex", "Status", "Parallelism", "Records in", "Records out", "In/s", "Out/s", "Busy", "Back-pressured", "Low watermark", "Subtasks"], vs.map((v) => row({ "data-vertex-id": v.id }, v.name, h("span", { class: f.stateClass(v.status) }, v.status), f.num(v.parallelism), f.num(v.recordsIn), f.num(v.recordsOut), f.rate(v.inPerSecond), f.rate(v.outPerSecond), f.percent(v.busy), f.percent(v.backPressure), f.watermark(v.watermark), Object.entries(tasks.get(v.id) ?? {}).filter(([k, n]) => n > 0 && k !== "total").map(([k, n]) => `${k.toLowerCase()} ${n}`).join(", "))));
}
/** graphTab draws the job graph and the vertex table. */
async function graphTab(job, box) {
    const plan = await get(`/jobs/${job.jid}/plan`);
    const vertices = await Promise.all(job.vertices.map((v) => vertexLive(job.jid, v)));
    const edges = [];
    for (const n of plan.plan.nodes) {
        for (const i of n.inputs ?? [])
            edges.push({ from: i.id, to: n.id, shipStrategy: i.ship_strategy });
    }
    box.replaceChildren(h("div", { class: "graph" }, render(vertices, edges)), vertexTable(vertices, job.vertices));
}
/** showFailure shows the root exception of a job that failed or is failing, as the REST API words it. */
async function showFailure(job, box) {
    if (!["FAILED", "FAILING", "RESTARTING"].includes(job.state)) {
        box.hidden = true;
        return;
    }
    const ex = await get(`/jobs/${job.jid}/exceptions`);
    const cause = ex["root-exception"] ?? ex.exceptionHistory?.entries[0]?.stacktrace;
    box.hidden = !cause;
    replace(box, cause ?? "");
}
/** jobPage is the page of job jobId, on tab (default overview). */
export function jobPage(jobId, tab) {
    if (!tabNames.some(([t]) => t === tab))
        tab = "overview";
    const header = h("div", { class: "job-header" });
    const failure = h("div", { id: "job-failure", class: "result error", hidden: true });
    const actions = jobActions(jobId);
    const nav = h("nav", { class: "tabs" }, ...tabNames.map(([t, label]) => h("a", { href: `#/job/${jobId}/${t}`, class: t === tab ? "active" : undefined, id: `tab-${t}` }, label)));
    const content = h("div", { id: `job-${tab}`, class: "tab" });
    const formBox = h("div", { id: "resource-requirements" });
    const loaded = { done: false };
    const el = h("section", { id: "job" }, header, failure, actions.el, nav, content);
    if (tab === "scheduler")
        el.append(formBox);
    return {
        el,
        async refresh() {
            const job = await get(`/jobs/${jobId}`);
            actions.setRunning(!isTerminal(job.state));
            replace(header, h("h1", {}, job.name, " ", h("span", { id: "job-state", class: f.stateClass(job.state) }, job.state)), h("div", { class: "meta" }, "Job ", h("code", { id: "job-id" }, job.jid), ` · ${job["job-type"] ?? ""} · started ${f.time(job["start-time"])} · ` +
                `${isTerminal(job.state) ? "ran" : "running for"} ${f.duration(job.duration)}`, ...(job["scheduler-state"] ? [" · adaptive scheduler ", h("span", { id: "job-scheduler-state", class: f.stateClass(job["scheduler-state"]) }, job["scheduler-state"])] : [])));
            await showFailure(job, failure);
            switch (tab) {
                case "overview":
                    return graphTab(job, content);
                case "checkpoints":
                    return tabs.checkpoints(jobId, content);
                case "exceptions":
                    return tabs.exceptions(jobId, content);
                case "scheduler":
                    return tabs.scheduler(job, content, formBox, loaded);
                default:
                    return tabs.configuration(jobId, content);
            }
        },
    };
}
