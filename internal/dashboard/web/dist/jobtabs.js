// The tabs of a job's page other than its graph: checkpoints, exceptions,
// scheduler and configuration.
import { h, row, table } from "./dom.js";
import * as f from "./format.js";
import { get, optional } from "./http.js";
import { resourceForm } from "./actions.js";
function kv(id, pairs) {
    return h("table", { id, class: "kv" }, h("tbody", {}, ...pairs.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v)))));
}
function checkpointRow(c) {
    const kind = c.is_savepoint ? "savepoint" : "checkpoint";
    return row({ "data-checkpoint-id": c.id, "data-status": c.status, class: "checkpoint" }, f.num(c.id), h("span", { class: f.stateClass(c.status) }, c.status), c.checkpoint_type ?? kind, f.time(c.trigger_timestamp), f.duration(c.end_to_end_duration), f.bytes(c.checkpointed_size), f.bytes(c.state_size), f.bytes(c.alignment_buffered), f.bytes(c.processed_data), f.bytes(c.persisted_data), `${f.num(c.num_acknowledged_subtasks)}/${f.num(c.num_subtasks)}`, c.failure_message ? h("span", { class: "error-text" }, c.failure_message) : h("code", {}, c.external_path ?? f.NONE));
}
function summaryRow(name, s, fmt) {
    return row({}, name, s ? fmt(s.min) : f.NONE, s ? fmt(s.avg) : f.NONE, s ? fmt(s.max) : f.NONE);
}
/** checkpoints draws the checkpoint tab: counts, summary, latest ones, history and configuration. */
export async function checkpoints(jobId, box) {
    const [st, cfg] = await Promise.all([
        get(`/jobs/${jobId}/checkpoints`),
        optional(`/jobs/${jobId}/checkpoints/config`),
    ]);
    const c = st.counts;
    const latest = st.latest;
    const sum = st.summary ?? {};
    const history = [...st.history].sort((a, b) => b.id - a.id);
    const latestPath = (x) => (x ? h("code", {}, `#${x.id} ${x.external_path ?? ""}`) : f.NONE);
    box.replaceChildren(h("h2", {}, "Counts"), kv("checkpoint-counts", [["Triggered", f.num(c.total)], ["In progress", f.num(c.in_progress)], ["Completed", f.num(c.completed)],
        ["Failed", f.num(c.failed)], ["Restored", f.num(c.restored)]]), h("h2", {}, "Latest"), kv("checkpoint-latest", [
        ["Completed", latestPath(latest.completed)],
        ["Savepoint", latestPath(latest.savepoint)],
        ["Failed", latest.failed ? `#${latest.failed.id} at ${f.time(latest.failed.failure_timestamp)}: ${latest.failed.failure_message ?? ""}` : f.NONE],
        ["Restored from", latest.restored ? h("code", { id: "restored-from" }, `#${latest.restored.id} ${latest.restored.is_savepoint ? "savepoint" : "checkpoint"} ${latest.restored.external_path} at ${f.time(latest.restored.restore_timestamp)}`) : f.NONE],
    ]), h("h2", {}, "Summary"), table("checkpoint-summary", ["", "Min", "Average", "Max"], [
        summaryRow("End-to-end duration", sum.end_to_end_duration, f.duration),
        summaryRow("Checkpointed size", sum.checkpointed_size, f.bytes),
        summaryRow("Full state size", sum.state_size, f.bytes),
        summaryRow("Alignment buffered", sum.alignment_buffered, f.bytes),
        summaryRow("Processed in-flight data", sum.processed_data, f.bytes),
        summaryRow("Persisted in-flight data", sum.persisted_data, f.bytes),
    ]), h("h2", {}, "History"), table("checkpoint-history", ["Id", "Status", "Type", "Triggered", "End to end", "Checkpointed", "State size", "Aligned (buffered)", "Processed", "Persisted", "Acknowledged", "Path or failure"], history.map(checkpointRow), "no checkpoint yet"), h("h2", {}, "Configuration"), cfg ? kv("checkpoint-config", [["Mode", cfg.mode], ["Interval", f.duration(cfg.interval)], ["Timeout", f.duration(cfg.timeout)],
        ["Minimum pause", f.duration(cfg.min_pause)], ["Max concurrent", f.num(cfg.max_concurrent)],
        ["Unaligned", String(cfg.unaligned_checkpoints ?? false)], ["Tolerable failures", f.num(cfg.tolerable_failed_checkpoints)],
        ["State backend", cfg.state_backend ?? f.NONE], ["Storage", cfg.checkpoint_storage ?? f.NONE]])
        : h("p", {}, "The job does not checkpoint."));
}
/** exceptions draws the exception tab: the root cause and the failures, each with its operator and stack. */
export async function exceptions(jobId, box) {
    const ex = await get(`/jobs/${jobId}/exceptions`);
    const entries = ex.exceptionHistory?.entries ?? [];
    box.replaceChildren(h("h2", {}, "Root exception"), ex["root-exception"] ? h("pre", { id: "root-exception", class: "stack" }, ex["root-exception"]) : h("p", {}, "The job has not failed."), h("h2", {}, "Exception history"), entries.length === 0 ? h("p", { id: "no-exceptions" }, "No exception.") :
        h("div", { id: "exception-history" }, ...entries.map((e) => h("details", { class: "exception" }, h("summary", {}, h("span", { class: "time" }, f.time(e.timestamp)), " ", h("b", { class: "task" }, e.taskName ?? "(job)"), " ", e.endpoint ? h("span", { class: "endpoint" }, e.endpoint) : "", " ", h("span", { class: "error-text" }, e.exceptionName)), h("pre", { class: "stack" }, e.stacktrace)))));
}
/** rescaleChanges writes a rescale's parallelism per vertex, "name 2 → 1", one vertex a line. */
function rescaleChanges(r, names) {
    const changed = new Set([...Object.keys(r.from), ...Object.keys(r.to)]);
    const ids = [...[...names.keys()].filter((id) => changed.has(id)), ...[...changed].filter((id) => !names.has(id))];
    return h("div", { class: "changes" }, ...ids.map((id) => h("div", { class: "change", "data-vertex-id": id, "data-from": r.from[id], "data-to": r.to[id] }, `${names.get(id) ?? id} ${f.num(r.from[id])} → ${f.num(r.to[id])}`)));
}
/** rescaleRow is a rescale of the history: when, the parallelism before and after, why, how long it took. */
function rescaleRow(r, names) {
    const done = r.duration >= 0;
    return row({ class: "rescale", "data-reason": r.reason, "data-duration": r.duration, "data-timestamp": r.timestamp }, f.time(r.timestamp), rescaleChanges(r, names), r.reason, done ? f.duration(r.duration) : h("span", { class: "state state-in_progress" }, "in progress"));
}
/**
 * scheduler draws the scheduler tab: the job's and the adaptive
 * scheduler's states, its rescales and, where the server has them, its
 * resource requirements.
 */
export async function scheduler(job, box, formBox, loaded) {
    const states = Object.entries(job.timestamps ?? {}).filter(([, t]) => t > 0).sort((a, b) => a[1] - b[1]);
    const names = new Map(job.vertices.map((v) => [v.id, v.name]));
    const rescales = [...(job.rescales ?? [])].reverse();
    const adaptive = job["scheduler-state"];
    box.replaceChildren(h("h2", {}, "Job state"), kv("scheduler-state", [["State", h("span", { class: f.stateClass(job.state) }, job.state)],
        ["Adaptive scheduler", adaptive ? h("span", { id: "adaptive-state", class: f.stateClass(adaptive) }, adaptive) : "not in use"],
        ["Job type", job["job-type"] ?? f.NONE], ["Max parallelism", f.num(job.maxParallelism)]]), h("h2", {}, "State transitions"), table("state-history", ["State", "Since"], states.map(([s, t]) => row({}, h("span", { class: f.stateClass(s) }, s), f.time(t))), "none"), h("h2", {}, "Parallelism"), table("vertex-parallelism", ["Vertex", "Parallelism", "Max parallelism"], job.vertices.map((v) => row({ "data-vertex-id": v.id, "data-parallelism": v.parallelism }, v.name, f.num(v.parallelism), f.num(v.maxParallelism)))), h("h2", {}, "Rescales"), table("rescale-history", ["Time", "Parallelism", "Reason", "Took"], rescales.map((r) => rescaleRow(r, names)), adaptive ? "no rescale yet" : "none (the job is not on the adaptive scheduler)"));
    // The form is built once (a refresh must not lose what was typed), and
    // only when the server answers GET resource-requirements.
    if (loaded.done)
        return;
    const req = await optional(`/jobs/${job.jid}/resource-requirements`);
    loaded.done = true;
    formBox.replaceChildren(h("h2", {}, "Resource requirements"), req === undefined
        ? h("p", {}, "This server does not serve the job's resource requirements.")
        : resourceForm(job.jid, req, names));
}
/** configuration draws the configuration tab. */
export async function configuration(jobId, box) {
    const c = await get(`/jobs/${jobId}/config`);
    const e = c["execution-config"] ?? {};
    box.replaceChildren(kv("job-config", [["Job id", h("code", {}, c.jid)], ["Name", c.name], ["Execution mode", e["execution-mode"] ?? f.NONE],
        ["Restart strategy", e["restart-strategy"] ?? f.NONE], ["Default parallelism", f.num(e["job-parallelism"])]]));
}
