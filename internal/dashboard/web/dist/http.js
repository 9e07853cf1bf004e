// Requests to the REST API at the page's own origin. An answer with an
// error status becomes an ApiError carrying the API's own message
// (Flink's {"errors": [...]}), which the pages show as it is.
/** An error answer of the REST API. */
export class ApiError extends Error {
    constructor(status, message) {
        super(message);
        this.status = status;
    }
}
async function request(method, path, body) {
    const init = { method, headers: { Accept: "application/json" } };
    if (body !== undefined) {
        init.body = JSON.stringify(body);
        init.headers = { Accept: "application/json", "Content-Type": "application/json" };
    }
    const resp = await fetch(path, init);
    const text = await resp.text();
    let parsed = undefined;
    if (text !== "") {
        try {
            parsed = JSON.parse(text);
        }
        catch {
            parsed = undefined;
        }
    }
    if (!resp.ok) {
        const errors = parsed?.errors;
        const message = Array.isArray(errors) && errors.length > 0 ? errors.join("; ") : `${method} ${path}: ${resp.status} ${resp.statusText}`;
        throw new ApiError(resp.status, message);
    }
    return parsed;
}
/** GET path as T. */
export function get(path) {
    return request("GET", path);
}
/**
 * GET path as T, or undefined when the server does not serve the path
 * (404, 405, 501): a path another version of the server may lack.
 */
export async function optional(path) {
    try {
        return await get(path);
    }
    catch (e) {
        if (e instanceof ApiError && (e.status === 404 || e.status === 405 || e.status === 501)) {
            return undefined;
        }
        throw e;
    }
}
/** Sends body with method to path and returns the answer as T. */
export function send(method, path, body) {
    return request(method, path, body);
}
/** The message to show for a failed request. */
export function messageOf(e) {
    return e instanceof Error ? e.message : String(e);
}
