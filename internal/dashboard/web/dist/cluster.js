// The cluster's pages: the overview (TaskManagers, slots, jobs by state,
// the running jobs, the submit form) and the TaskManagers.
import { h, replace, row, table } from "./dom.js";
import * as f from "./format.js";
import { get, optional } from "./http.js";
import { submitForm } from "./actions.js";
function card(id, label, value) {
    return h("div", { class: "card" }, h("div", { class: "value", id }, value), h("div", { class: "label" }, label));
}
/** jobRows are the rows of a job table, each linking to the job's page. */
export function jobRows(jobs) {
    return jobs.map((j) => row({ "data-job-id": j.jid }, h("a", { href: `#/job/${j.jid}` }, j.name), h("code", {}, j.jid), h("span", { class: f.stateClass(j.state) }, j.state), f.time(j["start-time"]), f.duration(j.duration), f.num(j.tasks?.total)));
}
export const jobHead = ["Name", "Job id", "State", "Start", "Duration", "Subtasks"];
/** isTerminal says whether a job's state is final. */
export function isTerminal(state) {
    return ["FINISHED", "CANCELED", "FAILED"].includes(state);
}
/** overview is the cluster's overview page. */
export function overview(config) {
    const cards = h("div", { class: "cards" });
    const running = h("div", { class: "panel" });
    const el = h("section", { id: "overview" }, h("h1", {}, "Overview"), cards, running);
    if (config.features?.["web-submit"])
        el.append(submitForm());
    return {
        el,
        async refresh() {
            const [o, jobs] = await Promise.all([get("/overview"), get("/jobs/overview")]);
            replace(cards, card("ov-taskmanagers", "TaskManagers", f.num(o.taskmanagers)), card("ov-slots-total", "Slots", f.num(o["slots-total"])), card("ov-slots-available", "Slots free", f.num(o["slots-available"])), card("ov-slots-used", "Slots used", f.num(o["slots-total"] - o["slots-available"])), card("ov-jobs-running", "Jobs running", f.num(o["jobs-running"])), card("ov-jobs-finished", "Jobs finished", f.num(o["jobs-finished"])), card("ov-jobs-cancelled", "Jobs cancelled", f.num(o["jobs-cancelled"])), card("ov-jobs-failed", "Jobs failed", f.num(o["jobs-failed"])));
            const live = jobs.jobs.filter((j) => !isTerminal(j.state));
            replace(running, h("h2", {}, "Running jobs"), table("running-jobs", jobHead, jobRows(live), "no running job"));
        },
    };
}
/** jobList is the page of all jobs, running and ended. */
export function jobList() {
    const el = h("section", { id: "jobs" });
    return {
        el,
        async refresh() {
            const jobs = (await get("/jobs/overview")).jobs;
            jobs.sort((a, b) => b["start-time"] - a["start-time"]);
            replace(el, h("h1", {}, "Jobs"), h("h2", {}, "Running"), table("running-jobs", jobHead, jobRows(jobs.filter((j) => !isTerminal(j.state))), "no running job"), h("h2", {}, "Completed"), table("completed-jobs", jobHead, jobRows(jobs.filter((j) => isTerminal(j.state))), "no completed job"));
        },
    };
}
/** taskManagers is the page of the TaskManagers and their slots, and of the cached data sets where the server has them. */
export function taskManagers() {
    const el = h("section", { id: "taskmanagers-page" });
    return {
        el,
        async refresh() {
            const [list, sets] = await Promise.all([get("/taskmanagers"), optional("/datasets")]);
            const tms = list.taskmanagers;
            const rows = tms.map((tm) => row({ "data-taskmanager-id": tm.id }, h("code", {}, tm.id), tm.path, f.num(tm.slotsNumber), f.num(tm.freeSlots), f.num(tm.slotsNumber - tm.freeSlots), f.duration(tm.timeSinceLastHeartbeat), f.bytes(tm.totalResource?.networkMemory !== undefined ? tm.totalResource.networkMemory * 1024 * 1024 : undefined), f.num(tm.hardware?.cpuCores)));
            replace(el, h("h1", {}, "TaskManagers"), table("taskmanagers", ["Id", "Address", "Slots", "Free", "Used", "Last heartbeat", "Network memory", "CPU cores"], rows, "no TaskManager"), h("h2", {}, "Cached data sets"), sets === undefined ? h("p", {}, "This server does not serve GET /datasets.") :
                table("datasets", ["Id", "Complete"], sets.dataSets.map((d) => row({ "data-dataset-id": d.id }, h("code", {}, d.id), d.isComplete ? "yes" : "no")), "no cached data set"));
        },
    };
}
