// Small helpers that build DOM and SVG elements. Text always goes in as
// text nodes, never as HTML, so names and messages from the server cannot
// inject markup.

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | undefined | ((ev: Event) => void)>;

function apply(el: Element, attrs: Attrs | undefined, children: Child[]): void {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") {
      el.addEventListener(k.replace(/^on/, ""), v);
    } else {
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

/** h builds an HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

/** s builds an SVG element. */
export function s<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  apply(el, attrs, children);
  return el;
}

/** table builds a table with a header row and one row per entry of rows. */
export function table(id: string, head: string[], rows: HTMLTableRowElement[], empty = "none"): HTMLTableElement {
  const body = h("tbody");
  if (rows.length === 0) {
    body.append(h("tr", { class: "empty" }, h("td", { colspan: head.length }, empty)));
  } else {
    body.append(...rows);
  }
  return h("table", { id }, h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))), body);
}

/** row builds a table row of cells. */
export function row(attrs: Attrs, ...cells: Child[]): HTMLTableRowElement {
  return h("tr", attrs, ...cells.map((c) => h("td", {}, c)));
}

/** replace puts children in place of el's content. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  apply(el, undefined, children);
}
