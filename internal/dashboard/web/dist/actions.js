// The forms that change things: submit a job, cancel one, take a
// savepoint or stop with one, change resource requirements. Each shows the
// REST API's own message when the API refuses.
import { h, replace } from "./dom.js";
import { ApiError, messageOf, send, get } from "./http.js";
/** showResult writes an outcome into box: ok or an error, with a message. */
export function showResult(box, ok, message) {
    box.classList.add("result");
    box.classList.toggle("ok", ok);
    box.classList.toggle("error", !ok);
    box.hidden = false;
    replace(box, message);
}
function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
}
/** awaitSavepoint polls a savepoint operation until it completed; it returns its location or throws its failure. */
export async function awaitSavepoint(jobId, requestId) {
    for (;;) {
        const r = await get(`/jobs/${jobId}/savepoints/${requestId}`);
        if (r.status.id === "COMPLETED") {
            const cause = r.operation?.["failure-cause"];
            if (cause)
                throw new ApiError(200, cause.message || cause["stack-trace"] || "the savepoint failed");
            return r.operation?.location ?? "";
        }
        await sleep(250);
    }
}
/**
 * jobActions builds the buttons of a job: cancel (asking once more), and a
 * savepoint form that triggers a savepoint or stops the job with one (with
 * or without drain) and shows the savepoint's path.
 */
export function jobActions(jobId) {
    let running = true;
    const cancelResult = h("div", { id: "cancel-result", class: "result", hidden: true });
    const confirm = h("button", { id: "cancel-confirm", type: "button", class: "danger", hidden: true }, "Really cancel the job");
    const cancel = h("button", { id: "cancel-job", type: "button", class: "danger" }, "Cancel job");
    cancel.addEventListener("click", () => {
        confirm.hidden = false;
    });
    confirm.addEventListener("click", async () => {
        confirm.hidden = true;
        try {
            await send("PATCH", `/jobs/${jobId}?mode=cancel`);
            showResult(cancelResult, true, "Cancellation requested.");
        }
        catch (e) {
            showResult(cancelResult, false, messageOf(e));
        }
    });
    const dir = h("input", { name: "targetDirectory", type: "text", placeholder: "default: the job's savepoint directory", size: 40 });
    const drain = h("input", { name: "drain", type: "checkbox" });
    const result = h("div", { id: "savepoint-result", class: "result", hidden: true });
    const trigger = h("button", { id: "trigger-savepoint", type: "button" }, "Trigger savepoint");
    const stop = h("button", { id: "stop-job", type: "submit" }, "Stop with savepoint");
    const form = h("form", { id: "stop-form", class: "inline" }, h("label", {}, "Directory ", dir), h("label", {}, drain, " drain (end the input first)"), trigger, stop);
    async function run(path, body, what) {
        trigger.disabled = stop.disabled = true;
        showResult(result, true, `${what} in progress…`);
        result.removeAttribute("data-location");
        try {
            const t = await send("POST", path, body);
            const loc = await awaitSavepoint(jobId, t["request-id"]);
            showResult(result, true, `${what} completed: ${loc}`);
            result.dataset.location = loc;
        }
        catch (e) {
            showResult(result, false, `${what} failed: ${messageOf(e)}`);
        }
        finally {
            trigger.disabled = stop.disabled = !running;
        }
    }
    form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        void run(`/jobs/${jobId}/stop`, { targetDirectory: dir.value.trim() || undefined, drain: drain.checked }, "Stop with savepoint");
    });
    trigger.addEventListener("click", () => {
        void run(`/jobs/${jobId}/savepoints`, { "target-directory": dir.value.trim() || undefined, "cancel-job": false }, "Savepoint");
    });
    const el = h("div", { class: "actions" }, h("div", {}, cancel, confirm, cancelResult), form, result);
    return {
        el,
        setRunning(r) {
            running = r;
            for (const b of [cancel, confirm, trigger, stop])
                b.disabled = !running;
        },
    };
}
/** submitForm builds the form that submits a job registered in the JobManager's binary. */
export function submitForm() {
    const job = h("input", { name: "job", type: "text", placeholder: "wordcount", required: true });
    const args = h("input", { name: "args", type: "text", placeholder: "--input /data/words.txt", size: 40 });
    const parallelism = h("input", { name: "parallelism", type: "number", placeholder: "default" });
    const interval = h("input", { name: "checkpointInterval", type: "text", placeholder: "e.g. 10s", size: 8 });
    const from = h("input", { name: "fromSavepoint", type: "text", placeholder: "savepoint path", size: 30 });
    const result = h("div", { class: "result form-error", hidden: true });
    const form = h("form", { id: "submit-form", class: "grid" }, h("label", {}, "Job ", job), h("label", {}, "Arguments ", args), h("label", {}, "Parallelism ", parallelism), h("label", {}, "Checkpoint interval ", interval), h("label", {}, "From savepoint ", from), h("button", { type: "submit" }, "Submit"), result);
    form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        result.hidden = true;
        const body = { job: job.value.trim(), args: args.value.trim() === "" ? undefined : args.value.trim().split(/\s+/), options: {} };
        // The number goes to the API as typed: the API, not the page, says
        // what it accepts.
        if (parallelism.value !== "")
            body.options.parallelism = Number(parallelism.value);
        if (interval.value.trim() !== "")
            body.options.checkpointInterval = interval.value.trim();
        if (from.value.trim() !== "")
            body.options.fromSavepoint = from.value.trim();
        try {
            const r = await send("POST", "/jobs", body);
            location.hash = `#/job/${r.jobid}`;
        }
        catch (e) {
            showResult(result, false, messageOf(e));
        }
    });
    return h("div", { class: "panel" }, h("h2", {}, "Submit a job"), form);
}
/**
 * resourceForm builds the form of a job's resource requirements (Flink's
 * PUT /jobs/:jobid/resource-requirements): bounds of each vertex's
 * parallelism, for the adaptive scheduler.
 */
export function resourceForm(jobId, req, names) {
    const inputs = [];
    const rows = Object.entries(req).map(([id, r]) => {
        const lower = h("input", { type: "number", name: `lower-${id}`, value: r.parallelism.lowerBound });
        const upper = h("input", { type: "number", name: `upper-${id}`, value: r.parallelism.upperBound });
        inputs.push({ id, lower, upper });
        return h("tr", {}, h("td", {}, names.get(id) ?? id), h("td", {}, lower), h("td", {}, upper));
    });
    const result = h("div", { class: "result form-error", hidden: true });
    const form = h("form", { id: "resource-form" }, h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Vertex"), h("th", {}, "Lower bound"), h("th", {}, "Upper bound"))), h("tbody", {}, ...rows)), h("button", { type: "submit" }, "Apply"), result);
    form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const body = {};
        for (const i of inputs)
            body[i.id] = { parallelism: { lowerBound: Number(i.lower.value), upperBound: Number(i.upper.value) } };
        try {
            await send("PUT", `/jobs/${jobId}/resource-requirements`, body);
            showResult(result, true, "Resource requirements changed.");
        }
        catch (e) {
            showResult(result, false, messageOf(e));
        }
    });
    return form;
}
