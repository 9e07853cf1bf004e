// The dashboard's entry: the navigation, the routes (in the URL's hash, so
// that every REST path stays the API's) and the refresh loop.
import { h, replace } from "./dom.js";
import { get, messageOf } from "./http.js";
import { jobList, overview, taskManagers } from "./cluster.js";
import { jobPage } from "./job.js";
let config = { "refresh-interval": 3000 };
let current;
let timer;
let generation = 0;
/** interval is the refresh interval: ?refresh=MS in the page's address, else the server's. */
function interval() {
    const asked = Number(new URLSearchParams(location.search).get("refresh"));
    return asked > 0 ? asked : Math.max(500, config["refresh-interval"] || 3000);
}
function route() {
    const parts = location.hash.replace(/^#\/?/, "").split("/");
    switch (parts[0]) {
        case "jobs":
            return jobList();
        case "job":
            return jobPage(parts[1] ?? "", parts[2] ?? "overview");
        case "taskmanagers":
            return taskManagers();
        default:
            return overview(config);
    }
}
/** refresh redraws the current view and schedules the next refresh; a failure shows in the banner. */
async function refresh(gen) {
    const banner = document.getElementById("error");
    const view = current;
    if (!view)
        return;
    try {
        await view.refresh();
        banner.hidden = true;
        document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed ?? "0") + 1);
    }
    catch (e) {
        banner.hidden = false;
        replace(banner, messageOf(e));
    }
    if (gen === generation)
        timer = window.setTimeout(() => void refresh(gen), interval());
}
function show() {
    generation++;
    if (timer !== undefined)
        window.clearTimeout(timer);
    current = route();
    const name = location.hash.replace(/^#\/?/, "").split("/")[0] || "overview";
    for (const a of document.querySelectorAll("header nav a")) {
        a.classList.toggle("active", a.getAttribute("data-route") === name || (name === "job" && a.getAttribute("data-route") === "jobs"));
    }
    document.getElementById("main").replaceChildren(current.el);
    void refresh(generation);
}
async function start() {
    try {
        config = await get("/config");
    }
    catch {
        // The defaults serve; the first refresh shows what is wrong.
    }
    const version = document.getElementById("version");
    if (version)
        version.textContent = [config["flink-version"], config["flink-revision"]?.slice(0, 8)].filter(Boolean).join(" ");
    window.addEventListener("hashchange", show);
    show();
}
document.getElementById("nav")?.replaceChildren(h("a", { href: "#/overview", "data-route": "overview" }, "Overview"), h("a", { href: "#/jobs", "data-route": "jobs" }, "Jobs"), h("a", { href: "#/taskmanagers", "data-route": "taskmanagers" }, "TaskManagers"));
void start();
