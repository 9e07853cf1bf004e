// Draws a job's graph as SVG: one box per vertex with its parallelism,
// records in and out with their rates, back-pressure, busy time and low
// watermark, and the edges between them labelled with their partitioning.
import { s } from "./dom.js";
import * as f from "./format.js";
import { layout } from "./layout.js";
const size = { nodeWidth: 250, nodeHeight: 140, gapX: 90, gapY: 36 };
const pad = 12;
/** clip shortens a name to fit a box, with an ellipsis. */
function clip(name, max) {
    return name.length <= max ? name : name.slice(0, max - 1) + "…";
}
/** level is the back-pressure level of a vertex: Flink's, or from its ratio. */
function level(v) {
    if (v.backPressureLevel)
        return v.backPressureLevel.toLowerCase();
    if (v.backPressure === undefined)
        return "unknown";
    return v.backPressure > 0.5 ? "high" : v.backPressure > 0.1 ? "low" : "ok";
}
/** line is a text line of a vertex box, with its value in data-value for tests and tools. */
function line(y, cls, label, text, value) {
    return s("text", { x: 10, y, class: "line " + cls, "data-value": value === undefined ? undefined : String(value) }, s("tspan", { class: "label" }, label + " "), text);
}
/** render draws the graph into a new SVG element. */
export function render(vertices, edges) {
    const lay = layout(vertices.map((v) => v.id), edges, size);
    const svg = s("svg", {
        id: "job-graph", xmlns: "http://www.w3.org/2000/svg",
        viewBox: `${-pad} ${-pad} ${lay.width + 2 * pad} ${lay.height + 2 * pad}`,
        width: lay.width + 2 * pad, height: lay.height + 2 * pad, role: "img", "aria-label": "job graph",
    });
    svg.append(s("defs", {}, s("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: "auto-start-reverse" }, s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrow" }))));
    for (const e of edges) {
        const a = lay.nodes.get(e.from);
        const b = lay.nodes.get(e.to);
        if (!a || !b)
            continue;
        const x1 = a.x + size.nodeWidth, y1 = a.y + size.nodeHeight / 2;
        const x2 = b.x, y2 = b.y + size.nodeHeight / 2;
        const dx = Math.max(30, (x2 - x1) / 2);
        svg.append(s("g", { class: "edge", "data-from": e.from, "data-to": e.to }, s("path", { d: `M ${x1} ${y1} C ${x1 + dx} ${y1}, ${x2 - dx} ${y2}, ${x2} ${y2}`, "marker-end": "url(#arrow)" }), s("text", { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 6, "text-anchor": "middle", class: "ship" }, e.shipStrategy)));
    }
    for (const v of vertices) {
        const p = lay.nodes.get(v.id);
        if (!p)
            continue;
        const bp = level(v);
        const g = s("g", { class: `vertex bp-${bp}`, "data-vertex-id": v.id, transform: `translate(${p.x} ${p.y})` }, s("title", {}, v.name), s("rect", { width: size.nodeWidth, height: size.nodeHeight, rx: 6 }), s("text", { x: 10, y: 20, class: "name" }, clip(v.name, 32)), line(40, "parallelism", "Parallelism", `${v.parallelism} · ${v.status}`, v.parallelism), line(58, "records-in", "Records in", `${f.num(v.recordsIn)} (${f.rate(v.inPerSecond)})`, v.recordsIn), line(76, "records-out", "Records out", `${f.num(v.recordsOut)} (${f.rate(v.outPerSecond)})`, v.recordsOut), line(94, "backpressure", "Back-pressured", `${f.percent(v.backPressure)} (${bp})`, v.backPressure), line(112, "busy", "Busy", f.percent(v.busy), v.busy), line(128, "watermark", "Low watermark", f.watermark(v.watermark), v.watermark));
        svg.append(g);
    }
    return svg;
}
