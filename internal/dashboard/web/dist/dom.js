// Small helpers that build DOM and SVG elements. Text always goes in as
// text nodes, never as HTML, so names and messages from the server cannot
// inject markup.
function apply(el, attrs, children) {
    for (const [k, v] of Object.entries(attrs ?? {})) {
        if (v === undefined || v === false)
            continue;
        if (typeof v === "function") {
            el.addEventListener(k.replace(/^on/, ""), v);
        }
        else {
            el.setAttribute(k, v === true ? "" : String(v));
        }
    }
    for (const c of children) {
        if (c === null || c === undefined || c === false)
            continue;
        el.append(typeof c === "object" ? c : document.createTextNode(String(c)));
    }
}
/** h builds an HTML element. */
export function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    apply(el, attrs, children);
    return el;
}
/** s builds an SVG element. */
export function s(tag, attrs, ...children) {
    const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    apply(el, attrs, children);
    return el;
}
/** table builds a table with a header row and one row per entry of rows. */
export function table(id, head, rows, empty = "none") {
    const body = h("tbody");
    if (rows.length === 0) {
        body.append(h("tr", { class: "empty" }, h("td", { colspan: head.length }, empty)));
    }
    else {
        body.append(...rows);
    }
    return h("table", { id }, h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))), body);
}
/** row builds a table row of cells. */
export function row(attrs, ...cells) {
    return h("tr", attrs, ...cells.map((c) => h("td", {}, c)));
}
/** replace puts children in place of el's content. */
export function replace(el, ...children) {
    el.replaceChildren();
    apply(el, undefined, children);
}
