// A layered layout of a job graph (a DAG), written for the dashboard: the
// Sugiyama scheme in its simplest form. Each vertex goes to the layer of
// its longest path from a source, left to right; the vertices of a layer
// are ordered by a few sweeps of the barycenter heuristic to keep edges
// from crossing; layers are centred on one another.
/** layers assigns each vertex its longest-path depth from a source. */
export function layers(ids, edges) {
    const layer = new Map(ids.map((id) => [id, 0]));
    // Relax at most |V| times: enough for any DAG, and a cycle (which a job
    // graph has not) cannot loop forever.
    for (let round = 0; round < ids.length; round++) {
        let changed = false;
        for (const e of edges) {
            const from = layer.get(e.from);
            const to = layer.get(e.to);
            if (from === undefined || to === undefined)
                continue;
            if (to < from + 1) {
                layer.set(e.to, from + 1);
                changed = true;
            }
        }
        if (!changed)
            break;
    }
    return layer;
}
/** barycenter is the mean position of the neighbours, or keep when none has one. */
function barycenter(neighbours, pos, keep) {
    let sum = 0;
    let n = 0;
    for (const v of neighbours) {
        const p = pos.get(v);
        if (p !== undefined) {
            sum += p;
            n++;
        }
    }
    return n === 0 ? keep : sum / n;
}
/** layout places the vertices ids (in their given order) joined by edges. */
export function layout(ids, edges, size) {
    const layer = layers(ids, edges);
    const depth = Math.max(0, ...layer.values());
    const byLayer = Array.from({ length: depth + 1 }, () => []);
    for (const id of ids)
        byLayer[layer.get(id) ?? 0].push(id);
    const preds = new Map(ids.map((id) => [id, []]));
    const succs = new Map(ids.map((id) => [id, []]));
    for (const e of edges) {
        preds.get(e.to)?.push(e.from);
        succs.get(e.from)?.push(e.to);
    }
    const pos = new Map();
    const index = () => byLayer.forEach((l) => l.forEach((id, i) => pos.set(id, i)));
    index();
    for (let sweep = 0; sweep < 4; sweep++) {
        const down = sweep % 2 === 0;
        const order = down ? byLayer.slice(1) : byLayer.slice(0, -1).reverse();
        for (const l of order) {
            const key = new Map(l.map((id) => [id, barycenter((down ? preds : succs).get(id) ?? [], pos, pos.get(id) ?? 0)]));
            // A stable sort keeps the given order among equals: the layout of a
            // graph does not change from one refresh to the next.
            l.sort((a, b) => (key.get(a) ?? 0) - (key.get(b) ?? 0));
            l.forEach((id, i) => pos.set(id, i));
        }
    }
    const tallest = Math.max(1, ...byLayer.map((l) => l.length));
    const height = tallest * size.nodeHeight + (tallest - 1) * size.gapY;
    const nodes = new Map();
    byLayer.forEach((l, li) => {
        const own = l.length * size.nodeHeight + (l.length - 1) * size.gapY;
        const top = (height - own) / 2;
        l.forEach((id, i) => {
            nodes.set(id, { x: li * (size.nodeWidth + size.gapX), y: top + i * (size.nodeHeight + size.gapY), layer: li });
        });
    });
    const width = (depth + 1) * size.nodeWidth + depth * size.gapX;
    return { nodes, width, height };
}
