// How numbers, times, sizes and states are written on the pages. A value
// the server did not send is shown as "–".
export const NONE = "–";
/** num writes a count with thousands separators. */
export function num(n) {
    if (n === undefined || n === null || !isFinite(n))
        return NONE;
    return Math.round(n).toLocaleString("en-US");
}
/** rate writes a per-second rate. */
export function rate(n) {
    if (n === undefined || n === null || !isFinite(n))
        return NONE;
    return (n >= 100 ? Math.round(n).toLocaleString("en-US") : n.toFixed(1)) + "/s";
}
/** bytes writes a size in B, KiB, MiB or GiB. */
export function bytes(n) {
    if (n === undefined || n === null || !isFinite(n) || n < 0)
        return NONE;
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    let v = n;
    while (v >= 1024 && i < units.length - 1) {
        v /= 1024;
        i++;
    }
    return (i === 0 ? String(v) : v.toFixed(1)) + " " + units[i];
}
/** duration writes milliseconds as 850ms, 12.3s, 4m 05s or 2h 03m. */
export function duration(ms) {
    if (ms === undefined || ms === null || !isFinite(ms) || ms < 0)
        return NONE;
    if (ms < 1000)
        return Math.round(ms) + "ms";
    const sec = ms / 1000;
    if (sec < 60)
        return sec.toFixed(1) + "s";
    const m = Math.floor(sec / 60);
    if (m < 60)
        return `${m}m ${String(Math.floor(sec % 60)).padStart(2, "0")}s`;
    return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}
/** time writes milliseconds since the epoch as a local date and time. */
export function time(ms) {
    if (ms === undefined || ms === null || ms <= 0)
        return NONE;
    const d = new Date(ms);
    const p = (x, n = 2) => String(x).padStart(n, "0");
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}
/** percent writes a ratio in [0, 1] as a percentage. */
export function percent(r) {
    if (r === undefined || r === null || !isFinite(r))
        return NONE;
    return Math.round(r * 100) + "%";
}
/** watermark writes an event-time watermark; Long.MIN_VALUE means none yet. */
export function watermark(ms) {
    if (ms === undefined || ms === null || !isFinite(ms))
        return NONE;
    if (ms <= -9.2e18)
        return "no watermark";
    if (ms >= 9.2e18)
        return "end of time";
    return time(ms);
}
/** stateClass is the CSS class that colours a job, vertex or checkpoint state. */
export function stateClass(state) {
    return "state state-" + state.toLowerCase().replace(/[^a-z_]/g, "");
}
