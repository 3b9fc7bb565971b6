// The in-process HTTP client of the bench (seeding through the API, walking the cursor) and of
// the soak (all of its traffic): one request with its status, parsed body and time, and keys
// paced under the rate limit. The bench's measured load runs in its own process (loadgen.mjs).

/** Requests per key per rolling 60 s that a paced client sends: under the limit of 100. */
export const KEY_BUDGET = 90;

/**
 * Sends one request: { status, body (parsed JSON, or undefined), text, headers, ms }, or
 * { status: null, error } when no response came.
 */
export async function send(base, key, method, path, body, { timeoutMs = 30_000 } = {}) {
  const started = performance.now();
  try {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, headers: res.headers, ms: performance.now() - started };
  } catch (err) {
    return { status: null, error: `${err?.cause?.code ?? err?.name ?? ""} ${err?.message ?? err}`.trim(), ms: performance.now() - started };
  }
}

/** Sends one request as a client would; returns the whole envelope, throws unless it succeeds. */
export async function apiEnvelope(base, key, method, path, body) {
  const res = await send(base, key, method, path, body);
  if (res.status === null) throw new Error(`${method} ${path}: no response (${res.error})`);
  if (res.status >= 300) {
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body?.error ?? res.text.slice(0, 200))}`);
  }
  return res.body;
}

/** Sends one request as a client would; returns its `data`, throws unless it succeeds. */
export async function api(base, key, method, path, body) {
  return (await apiEnvelope(base, key, method, path, body)).data;
}

/** Keys, each paced to KEY_BUDGET requests per rolling 60 s; `take()` waits for one. */
export class KeyRing {
  constructor(keys, { budget = KEY_BUDGET, onWait = () => {} } = {}) {
    this.keys = keys.map((key) => ({ key, sent: [] }));
    this.next = 0;
    this.budget = budget;
    this.onWait = onWait;
  }

  async take() {
    for (;;) {
      const now = performance.now();
      for (let i = 0; i < this.keys.length; i++) {
        const k = this.keys[(this.next + i) % this.keys.length];
        while (k.sent.length && k.sent[0] <= now - 61_000) k.sent.shift();
        if (k.sent.length < this.budget) {
          this.next = (this.next + i + 1) % this.keys.length;
          k.sent.push(now);
          return k.key;
        }
      }
      this.onWait();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Follows the list's cursor from page 1 (`?limit=<limit>`) through `pagination.next_cursor`
 * `pages - 1` times, so the last request is the `pages`-th page. Returns { query } (the query
 * string of that page, e.g. "?cursor=…&limit=2") and the walk's figures, or { unavailable }
 * with the reason when the API does not return `next_cursor` (the field absent) or the walk
 * ends early. `ring` is a KeyRing of the account's keys.
 */
export async function walkCursor(base, ring, { limit, pages }) {
  const t0 = performance.now();
  const first = await apiEnvelope(base, await ring.take(), "GET", `/tournaments?limit=${limit}`);
  if (!first.pagination || !("next_cursor" in first.pagination)) {
    return { unavailable: "the list returns no pagination.next_cursor" };
  }
  let cursor = first.pagination.next_cursor;
  let withLimit = true; // the cursor with the page size beside it; without, if the API refuses both
  let query = null;
  for (let page = 2; page <= pages; page++) {
    if (cursor === null) return { unavailable: `next_cursor was null after page ${page - 1} (limit ${limit})` };
    query = `?cursor=${encodeURIComponent(cursor)}${withLimit ? `&limit=${limit}` : ""}`;
    let res = await send(base, await ring.take(), "GET", `/tournaments${query}`);
    if (res.status === 400 && page === 2) {
      withLimit = false;
      query = `?cursor=${encodeURIComponent(cursor)}`;
      res = await send(base, await ring.take(), "GET", `/tournaments${query}`);
    }
    if (res.status !== 200) {
      return {
        unavailable: `GET /tournaments${query.slice(0, 60)}… on page ${page}: ${res.status} ` +
          `${JSON.stringify(res.body?.error ?? res.error ?? "").slice(0, 200)}`,
      };
    }
    if (res.body.data.length === 0) return { unavailable: `page ${page} of the cursor is empty` };
    cursor = res.body.pagination?.next_cursor ?? null;
  }
  return { query, pages, limit, with_limit: withLimit, walk_ms: Math.round(performance.now() - t0) };
}
