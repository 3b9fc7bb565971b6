// The live stream's fan-out (contract section 14): Server-Sent Events for GET .../stream.
//
// api.call opens a stream (the key's checks, a lease, the first event's data); from then on each
// function instance asks Postgres every pollMs, in one statement for every tournament it streams
// (api.stream_poll, on any pooled connection: no LISTEN, no session), for each tournament's
// version and, where it has moved, the delta since, which it writes to every stream of that
// tournament. So a stream costs the database nothing of its own after it opens: one statement
// per instance per poll, however many viewers and tournaments it serves. The truth stays in
// Postgres: an instance that dies loses nothing a reconnect with Last-Event-ID cannot get back.
import type { Database } from "./db.ts";

/** The version a browser's EventSource reconnects with (the last event's id, Last-Event-ID), or undefined. */
export function lastEventVersion(req: Request): number | undefined {
  const last = req.headers.get("last-event-id")?.trim();
  return last && /^[0-9]{1,15}$/.test(last) ? Number(last) : undefined;
}

export interface LiveOptions {
  /** How often a tournament's version is polled (ms). */
  pollMs: number;
  /** A comment line at least this often (ms). */
  keepAliveMs: number;
  /** The server ends a stream after this long (ms), with `retry: 1000`. */
  maxMs: number;
}

export const LIVE_DEFAULTS: LiveOptions = { pollMs: 250, keepAliveMs: 10_000, maxMs: 110_000 };

/** A stream falling further behind than this many events is ended (it reconnects and catches up). */
const MAX_QUEUED = 64;

const encoder = new TextEncoder();

/**
 * One SSE event: `id`, `event` and one `data:` line. JSON text never holds a raw line break
 * inside a string (it is escaped there), so the breaks Postgres puts between elements go and
 * every event's data is one line, for the simplest of parsers.
 */
export function sseEvent(event: string, data: string, id?: number): Uint8Array {
  return encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${data.replace(/\r\n|\r|\n/g, " ")}\n\n`);
}

const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");
const GOODBYE = encoder.encode("retry: 1000\n\n");

interface Viewer {
  /** The stream's lease; null for a public stream (section 15), which has none. */
  streamId: string | null;
  /** The version of the last event written. */
  last: number;
  controller: ReadableStreamDefaultController<Uint8Array>;
  timers: ReturnType<typeof setTimeout>[];
  closed: boolean;
}

/** A tournament's streams on this instance (its keyed ones, or its public ones). */
interface Poller {
  tournamentId: string;
  /** Public streams: asked by the tournament's id, and they end when it is no longer public. */
  public: boolean;
  viewers: Set<Viewer>;
}

/** One question of a tick: a tournament's streams that last saw version `since`, asked through one of their leases. */
interface Ask {
  poller: Poller;
  since: number;
  viewers: Viewer[];
}

/** Every open stream of this function instance, by tournament. */
export class LiveHub {
  private pollers = new Map<string, Poller>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The database failed the last poll (logged once per streak, not four times a second). */
  private failing = false;

  constructor(readonly db: Database, readonly options: LiveOptions = LIVE_DEFAULTS, readonly log?: (message: string) => void) {}

  private schedule(): void {
    if (this.timer === null && this.pollers.size > 0) this.timer = setTimeout(() => this.tick(), this.options.pollMs);
  }

  private async tick(): Promise<void> {
    try {
      await this.poll();
      if (this.failing) this.log?.("live: polling works again");
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.log?.(`live: polling failed: ${(err as Error).message}`);
      this.failing = true;
    }
    this.timer = null;
    for (const [id, p] of this.pollers) if (p.viewers.size === 0) this.pollers.delete(id);
    this.schedule();
  }

  /**
   * One statement for every tournament this instance streams: per tournament, one question per
   * distinct last version of its streams (normally one), asked through one of their leases.
   */
  private async poll(): Promise<void> {
    const asks: Ask[] = [];
    for (const poller of this.pollers.values()) {
      const bySince = new Map<number, Viewer[]>();
      for (const v of poller.viewers) {
        if (v.closed) continue;
        const group = bySince.get(v.last);
        if (group) group.push(v);
        else bySince.set(v.last, [v]);
      }
      for (const [since, viewers] of bySince) asks.push({ poller, since, viewers });
    }
    if (asks.length === 0) return;
    const answers = await this.db.streamPoll(
      asks.map((a) =>
        a.poller.public ? { public: a.poller.tournamentId, since: a.since } : { stream: a.viewers[0].streamId!, since: a.since }
      ),
    );
    answers.forEach((res, i) => {
      const { poller, viewers } = asks[i];
      if (res.state === "ended") {
        this.end(viewers[0], true); // its lease is gone: this viewer ends (and comes back), the next tick asks another
      } else if (res.state === "deleted") {
        const bytes = sseEvent("deleted", JSON.stringify({ id: poller.tournamentId }));
        for (const v of poller.viewers) this.end(v, false, bytes);
      } else if (res.state === "changed" && res.data !== null && res.version !== null) {
        const bytes = sseEvent("results", res.data, res.version);
        for (const v of viewers) this.write(v, bytes, res.version);
      }
    });
  }

  /**
   * The answer to a stream api.call opened (`result`: its lease, version and first event's data):
   * text/event-stream; HEAD gets the headers, and the stream ends there.
   */
  response(method: string, result: string, headers: Headers): Response {
    const opened = JSON.parse(result) as { stream: string; version: number; data: { tournament: { id: string } } };
    return this.respond(method, headers, opened.data.tournament.id, opened.stream, opened.version, opened.data);
  }

  /** The answer to a public stream api.public_call opened (`result`: the tournament, version and first event's data). */
  publicResponse(method: string, result: string, headers: Headers): Response {
    const opened = JSON.parse(result) as { tournament_id: string; version: number; data: unknown };
    return this.respond(method, headers, opened.tournament_id, null, opened.version, opened.data);
  }

  private respond(
    method: string,
    headers: Headers,
    tournamentId: string,
    streamId: string | null,
    version: number,
    data: unknown,
  ): Response {
    headers.set("Content-Type", "text/event-stream");
    headers.delete("ETag"); // each event carries its version as its id
    headers.set("X-Accel-Buffering", "no"); // no proxy may hold events back
    if (method === "HEAD") {
      if (streamId !== null) this.db.streamClose(streamId).catch(() => {});
      return new Response(null, { status: 200, headers });
    }
    return new Response(this.open(tournamentId, streamId, version, JSON.stringify(data)), { status: 200, headers });
  }

  /** The event stream of a stream api.call (or api.public_call) opened: its first event, then the deltas. */
  open(tournamentId: string, streamId: string | null, version: number, firstData: string): ReadableStream<Uint8Array> {
    let viewer: Viewer;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        viewer = { streamId, last: version, controller, timers: [], closed: false };
        controller.enqueue(sseEvent("results", firstData, version));
        viewer.timers.push(
          setInterval(() => this.write(viewer, KEEP_ALIVE), this.options.keepAliveMs),
          setTimeout(() => this.end(viewer, true), this.options.maxMs),
        );
        const key = `${streamId === null ? "public" : "keyed"}:${tournamentId}`;
        let poller = this.pollers.get(key);
        if (!poller) this.pollers.set(key, poller = { tournamentId, public: streamId === null, viewers: new Set() });
        poller.viewers.add(viewer);
        this.schedule();
      },
      cancel: () => this.end(viewer, false), // the client went away
    }, { highWaterMark: MAX_QUEUED });
  }

  write(viewer: Viewer, bytes: Uint8Array, version?: number): void {
    if (viewer.closed) return;
    if ((viewer.controller.desiredSize ?? 0) <= 0) {
      this.end(viewer, true); // too far behind: it reconnects with Last-Event-ID and catches up
      return;
    }
    viewer.controller.enqueue(bytes);
    if (version !== undefined) viewer.last = version;
  }

  /** Ends a stream: a last event (or `retry: 1000` when asked), its timers, its lease. */
  end(viewer: Viewer, goodbye: boolean, last?: Uint8Array): void {
    if (viewer.closed) return;
    viewer.closed = true;
    for (const t of viewer.timers) clearTimeout(t);
    for (const p of this.pollers.values()) p.viewers.delete(viewer);
    try {
      if (last) viewer.controller.enqueue(last);
      if (goodbye) viewer.controller.enqueue(GOODBYE);
      viewer.controller.close();
    } catch {
      // already cancelled by the client
    }
    if (viewer.streamId !== null) this.db.streamClose(viewer.streamId).catch(() => {}); // else its lease expires by itself
  }
}
