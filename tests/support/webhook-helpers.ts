// Webhook test harness: a real HTTP receiver on 127.0.0.1 that records every request (path,
// headers, raw body, arrival time) and answers per path as told (status, delay, redirect, or
// holding the request until released), and dispatchers (functions/webhooks) started and stopped
// by PID. Any dispatcher delivers every account's deliveries and applies every account's reports
// past their deadline, so the files that run dispatchers (tests/webhooks/delivery.test.ts,
// tests/participants/deadline.test.ts, reporting-contract.test.ts: it sweeps) take turns (dispatcherTurn), and the receiver routes by path
// (each endpoint gets its own /t/<random> path) and records requests for paths it does not know
// without failing.
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { startDispatcher } from "../../scripts/stack.mjs";
import { expectStatus, request, type Tenant } from "./helpers.ts";

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body as sent. */
  body: string;
  /** Date.now() when the request's body had arrived. */
  at: number;
}

/** How the receiver answers a path: a status (200 unless told), after a delay, with a Location. */
export interface Answer {
  status?: number;
  delayMs?: number;
  location?: string;
  /** Keep the request open until release(path) (or the client goes away). */
  hold?: boolean;
}

type Responder = Answer | ((req: Received, nth: number) => Answer);

export class Receiver {
  private server: http.Server;
  private records: Received[] = [];
  private answers = new Map<string, Responder>();
  private held = new Map<string, (() => void)[]>();
  private waiters = new Set<() => void>();
  private sockets = new Set<import("node:net").Socket>();
  /** TCP connections accepted, whatever came over them (a refused destination makes none). */
  connections = 0;
  port = 0;

  private constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const path = (req.url ?? "/").split("?")[0];
        const record: Received = {
          method: req.method ?? "",
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now(),
        };
        this.records.push(record);
        const nth = this.records.filter((r) => r.path === path).length;
        const responder = this.answers.get(path) ?? {};
        const answer = typeof responder === "function" ? responder(record, nth) : responder;
        for (const wake of this.waiters) wake();
        const reply = () => {
          if (res.destroyed) return;
          const headers: Record<string, string> = { "content-type": "text/plain" };
          if (answer.location) headers.location = answer.location;
          res.writeHead(answer.status ?? 200, headers);
          res.end("ok");
        };
        if (answer.hold) {
          const list = this.held.get(path) ?? [];
          list.push(reply);
          this.held.set(path, list);
        } else if (answer.delayMs) {
          setTimeout(reply, answer.delayMs);
        } else {
          reply();
        }
      });
    });
    this.server.on("connection", (socket) => {
      this.connections++;
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    this.server.on("clientError", (_err, socket) => socket.destroy());
  }

  /** Starts a receiver on 127.0.0.1 at a free port. */
  static async start(): Promise<Receiver> {
    const r = new Receiver();
    await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
    r.port = (r.server.address() as AddressInfo).port;
    return r;
  }

  /** A new path of its own: /t/<random>. */
  newPath(prefix = "t"): string {
    return `/${prefix}/${randomBytes(8).toString("hex")}`;
  }

  /** The http:// URL of a path on this receiver. */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Sets how a path is answered from now on (a function gets each request and its number on the path, from 1). */
  answer(path: string, responder: Responder): void {
    this.answers.set(path, responder);
  }

  /** Answers the requests held on a path (or every path). */
  release(path?: string): void {
    for (const [p, list] of this.held) {
      if (path && p !== path) continue;
      for (const reply of list.splice(0)) reply();
    }
  }

  /** What arrived, on one path or on all. */
  received(path?: string): Received[] {
    return path === undefined ? [...this.records] : this.records.filter((r) => r.path === path);
  }

  /** Resolves once `path` has received at least `n` requests; rejects after `timeoutMs`, saying what arrived. */
  async waitFor(path: string, n: number, timeoutMs = 10_000): Promise<Received[]> {
    return await this.waitUntil(
      () => this.received(path).length >= n,
      timeoutMs,
      () => `${n} requests on ${path}; got ${this.received(path).length}: ${this.received(path).map((r) => typeOf(r)).join(", ")}`,
    )
      .then(() => this.received(path));
  }

  /** Resolves once `done()` holds (checked on every request and every 50 ms); rejects after `timeoutMs`. */
  waitUntil(done: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        cleanup();
        resolve();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      const poll = setInterval(check, 50);
      const cleanup = () => {
        clearTimeout(timer);
        clearInterval(poll);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Stops listening and drops every open connection. */
  async close(): Promise<void> {
    this.release();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A received request's body as JSON. */
// deno-lint-ignore no-explicit-any
export function payloadOf(r: Received): any {
  return JSON.parse(r.body);
}

/** A received request's event type (or "?" when the body is not an event). */
export function typeOf(r: Received): string {
  try {
    return String(JSON.parse(r.body).type);
  } catch {
    return "?";
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// dispatchers

export interface TestDispatcher {
  pid: number;
  /** Every line it printed. */
  lines: string[];
  /** SIGTERM (SIGKILL if it lingers), waiting for the exit. */
  stop: () => Promise<void>;
  /** SIGKILL at once, waiting for the exit. */
  kill: () => Promise<void>;
}

const running = new Set<TestDispatcher>();

/**
 * Starts a dispatcher over the test database (as tournament_webhooks, with the function's
 * WEBHOOK_ENCRYPTION_KEY); `env` overrides its settings (WEBHOOK_RETRY_SECONDS, ...). Resolves
 * once it listens for commits. Stop it with stop() or stopDispatchers().
 */
export async function startTestDispatcher(
  env: Record<string, string> = {},
  databaseUrl = inject("dispatcherDbUrl"),
): Promise<TestDispatcher> {
  const lines: string[] = [];
  const d = await startDispatcher({
    databaseUrl,
    encryptionKey: inject("webhookEncryptionKey"),
    env: { WEBHOOK_RETRY_SECONDS: "1,1", ...env },
    onLine: (l: string) => lines.push(l),
  });
  const child = d.child as import("node:child_process").ChildProcess;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const handle: TestDispatcher = {
    pid: d.pid as number,
    lines,
    stop: async () => {
      running.delete(handle);
      await d.stop();
    },
    kill: async () => {
      running.delete(handle);
      if (child.exitCode === null && child.signalCode === null) process.kill(d.pid as number, "SIGKILL");
      await exited;
    },
  };
  running.add(handle);
  return handle;
}

/**
 * Waits for this file's turn to run dispatchers, and holds it until the returned function is
 * called: a session advisory lock of the test database, on a connection of its own. A file that
 * runs dispatchers takes it in beforeAll (with a hook timeout that outlasts the other such files)
 * and gives it back in afterAll, so no other file's dispatcher delivers its deliveries with other
 * settings, or applies its reports, meanwhile.
 */
export async function dispatcherTurn(): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: inject("adminDbUrl") });
  client.on("error", () => {});
  await client.connect();
  await client.query("select pg_advisory_lock(hashtextextended('tests: dispatchers take turns', 0))");
  return async () => {
    await client.query("select pg_advisory_unlock(hashtextextended('tests: dispatchers take turns', 0))").catch(() => {});
    await client.end().catch(() => {});
  };
}

/** Stops every dispatcher still running (afterAll/afterEach). */
export async function stopDispatchers(): Promise<void> {
  await Promise.all([...running].map((d) => d.stop()));
}

// ---------------------------------------------------------------------------------------------
// API shortcuts

export interface Endpoint {
  id: string;
  url: string;
  events: string[];
  tournament_id: string | null;
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  secret: string;
}

export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  status: "pending" | "succeeded" | "failed" | "exhausted";
  attempts: number;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  // deno-lint-ignore no-explicit-any
  payload: any;
  created_at: string;
  delivered_at: string | null;
}

/** Creates an endpoint through the API (201 expected) and returns it with its secret. */
export async function createEndpoint(t: Tenant, body: Record<string, unknown>): Promise<Endpoint> {
  const res = await t.request("POST", "/webhooks", { body });
  expectStatus(res, 201);
  return res.body.data;
}

/** Every delivery of an endpoint (newest first), through the API. */
export async function deliveries(t: Tenant, webhookId: string, query = ""): Promise<{ total: number; data: Delivery[] }> {
  const res = await t.request("GET", `/webhooks/${webhookId}/deliveries?limit=100${query}`);
  expectStatus(res, 200);
  return { total: res.body.pagination.total, data: res.body.data };
}

/** Polls the endpoint's deliveries until `done` holds; rejects after `timeoutMs`, showing them. */
export async function waitForDeliveries(
  t: Tenant,
  webhookId: string,
  done: (list: Delivery[]) => boolean,
  timeoutMs = 10_000,
): Promise<Delivery[]> {
  const until = Date.now() + timeoutMs;
  // A key of its own, renewed before its 100 requests a minute run out.
  let key = (await t.newKey(["read:webhooks"])).key;
  for (let polls = 1;; polls++) {
    if (polls % 80 === 0) key = (await t.newKey(["read:webhooks"])).key;
    const res = await request("GET", `/webhooks/${webhookId}/deliveries?limit=100`, { key });
    expectStatus(res, 200);
    const data: Delivery[] = res.body.data;
    if (done(data)) return data;
    if (Date.now() > until) {
      throw new Error(
        `deliveries not as awaited after ${timeoutMs} ms: ${
          JSON.stringify(
            data.map((d) => ({
              type: d.event_type,
              status: d.status,
              attempts: d.attempts,
              code: d.last_status_code,
              error: d.last_error,
            })),
          )
        }`,
      );
    }
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// a database that can go away

/**
 * A TCP proxy on 127.0.0.1 in front of Postgres: `down()` cuts every connection through it and
 * refuses new ones (the database is away for whoever connects through it, and for no one else),
 * `up()` lets connections through again.
 */
export class DatabaseProxy {
  private server: net.Server;
  private sockets = new Set<net.Socket>();
  private isDown = false;
  port = 0;

  private constructor(private target: { host: string; port: number }) {
    this.server = net.createServer((client) => {
      if (this.isDown) {
        client.destroy();
        return;
      }
      const upstream = net.connect(this.target.port, this.target.host);
      for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
        this.sockets.add(a);
        a.on("error", () => b.destroy());
        a.on("close", () => {
          this.sockets.delete(a);
          b.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  /** Starts a proxy to the database of `url`. */
  static async start(url: string): Promise<DatabaseProxy> {
    const u = new URL(url);
    const proxy = new DatabaseProxy({ host: u.hostname, port: Number(u.port) });
    await new Promise<void>((resolve) => proxy.server.listen(0, "127.0.0.1", resolve));
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  /** `url` with the proxy in place of the database's address. */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    return u.toString();
  }

  down(): void {
    this.isDown = true;
    for (const s of this.sockets) s.destroy();
  }

  up(): void {
    this.isDown = false;
  }

  async close(): Promise<void> {
    this.down();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
