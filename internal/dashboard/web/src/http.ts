// Requests to the REST API at the page's own origin. An answer with an
// error status becomes an ApiError carrying the API's own message
// (Flink's {"errors": [...]}), which the pages show as it is.

/** An error answer of the REST API. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { Accept: "application/json", "Content-Type": "application/json" };
  }
  const resp = await fetch(path, init);
  const text = await resp.text();
  let parsed: unknown = undefined;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!resp.ok) {
    const errors = (parsed as { errors?: unknown } | undefined)?.errors;
    const message = Array.isArray(errors) && errors.length > 0 ? errors.join("; ") : `${method} ${path}: ${resp.status} ${resp.statusText}`;
    throw new ApiError(resp.status, message);
  }
  return parsed as T;
}

/** GET path as T. */
export function get<T>(path: string): Promise<T> {
  return request<T>("GET", path);
}

/**
 * GET path as T, or undefined when the server does not serve the path
 * (404, 405, 501): a path another version of the server may lack.
 */
export async function optional<T>(path: string): Promise<T | undefined> {
  try {
    return await get<T>(path);
  } catch (e) {
    if (e instanceof ApiError && (e.status === 404 || e.status === 405 || e.status === 501)) {
      return undefined;
    }
    throw e;
  }
}

/** Sends body with method to path and returns the answer as T. */
export function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  return request<T>(method, path, body);
}

/** The message to show for a failed request. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
