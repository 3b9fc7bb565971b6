// A database the function cannot reach answers 503 with a log line saying why, never 500. Each
// case starts the real function with its own DATABASE_URL: nothing listening, a wrong password,
// a database that does not exist, a server without TLS under sslmode=require, a server whose
// certificate chain is self-signed (as Supabase's is: pg 8 treats sslmode=require as
// verify-full), a host name that does not resolve, a database without the migrations, and a
// server that accepts and never answers; and a URL pg cannot parse (the function refuses to serve).
// Every keyed request answers 503 service_unavailable in the envelope; its one log line names
// the kind (db_error) and the driver's code (db_code); the password and the URL appear nowhere.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { base62, crc32 } from "../../functions/api/keys.ts";
import { freePort, startFunction } from "../../scripts/stack.mjs";
import { type ApiResponse, expectError } from "../support/helpers.ts";

const CONNECT_TIMEOUT_MS = 1000;
/** The 8-byte SSLRequest: length 8, then the code 1234 5679. */
const SSL_REQUEST_CODE = 80877103;

type Fn = Awaited<ReturnType<typeof startFunction>>;
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  await Promise.all(cleanups.map((stop) => stop()));
});

/** A key of the right shape and checksum (it exists nowhere): the function must ask the database. */
function wellFormedKey(): string {
  let body = "tmk_";
  for (const b of crypto.randomBytes(43)) body += base62(b % 62, 1);
  return body + base62(crc32(new TextEncoder().encode(body)), 6);
}

const secret = () => `pw${crypto.randomBytes(12).toString("hex")}`;

/** A TCP server on 127.0.0.1 that runs `onSocket` for each connection; closed after the file. */
async function listen(onSocket: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

/** A leaf certificate for localhost signed by a throwaway self-signed CA: the chain, and the leaf's key. */
function selfSignedChain(): { cert: Buffer; key: Buffer } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-unreachable-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  openssl("req", "-x509", ...ec, "-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "1", "-subj", "/CN=Test Root CA");
  openssl("req", ...ec, "-keyout", file("leaf.key"), "-out", file("leaf.csr"), "-subj", "/CN=localhost");
  openssl(
    "x509",
    "-req",
    "-in",
    file("leaf.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-days",
    "1",
    "-out",
    file("leaf.pem"),
  );
  return {
    cert: Buffer.concat([fs.readFileSync(file("leaf.pem")), fs.readFileSync(file("ca.pem"))]),
    key: fs.readFileSync(file("leaf.key")),
  };
}

/** Just enough of Postgres to start TLS: 'S' to the SSLRequest, then a handshake with `chain`. */
function tlsPostgres(chain: { cert: Buffer; key: Buffer }): Promise<number> {
  return listen((socket) => {
    socket.once("data", (request: Buffer) => {
      if (request.length !== 8 || request.readInt32BE(4) !== SSL_REQUEST_CODE) return socket.destroy();
      socket.write("S");
      new tls.TLSSocket(socket, { isServer: true, ...chain }).on("error", () => {});
    });
  });
}

/** A URL on the test database with another user, password or database (and query). */
function testDbUrl(change: { password: string; database?: string; search?: string }): string {
  const url = new URL(inject("adminDbUrl"));
  url.username = "tournament_api";
  url.password = change.password;
  if (change.database) url.pathname = `/${change.database}`;
  if (change.search) url.search = change.search;
  return url.toString();
}

interface Case {
  name: string;
  /** The DATABASE_URL and the password in it (both must stay out of responses and logs). */
  target: () => Promise<{ url: string; password: string }>;
  failure: string;
  /** The driver's code as logged (db_code): exact, one of a list, or null. */
  code: string | string[] | null;
}

const cases: Case[] = [
  {
    name: "nothing listens on the port",
    target: async () => {
      const password = secret();
      return { url: `postgres://tournament_api:${password}@127.0.0.1:${await freePort()}/postgres`, password };
    },
    failure: "refused",
    code: "ECONNREFUSED",
  },
  {
    name: "the password is wrong",
    target: async () => {
      const password = secret();
      return { url: testDbUrl({ password }), password };
    },
    failure: "auth",
    code: "28P01",
  },
  {
    name: "the database does not exist",
    target: async () => ({ url: testDbUrl({ password: "tournament_api", database: "no_such_db" }), password: "tournament_api" }),
    failure: "auth",
    code: "3D000",
  },
  {
    name: "sslmode=require and the server does not offer TLS",
    target: async () => {
      const password = secret();
      return { url: testDbUrl({ password, search: "?sslmode=require" }), password };
    },
    failure: "tls",
    code: null,
  },
  {
    name: "sslmode=require and the server's certificate chain is self-signed",
    target: async () => {
      const password = secret();
      const port = await tlsPostgres(selfSignedChain());
      return { url: `postgres://tournament_api:${password}@localhost:${port}/postgres?sslmode=require`, password };
    },
    failure: "tls",
    code: "SELF_SIGNED_CERT_IN_CHAIN",
  },
  {
    name: "the host name does not resolve",
    target: async () => {
      const password = secret();
      return { url: `postgres://tournament_api:${password}@nonexistent.invalid:5432/postgres`, password };
    },
    failure: "dns",
    // ENOTFOUND where a resolver answers; EAI_AGAIN where none can be reached.
    code: ["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL"],
  },
  {
    name: "the database was never migrated (no api.call)",
    target: async () => {
      // A database of the test cluster's own, without the migrations: what a DATABASE_URL naming
      // the wrong database, or a project whose push failed, looks like.
      const database = `unmigrated_${crypto.randomBytes(4).toString("hex")}`;
      const admin = new pg.Client({ connectionString: inject("adminDbUrl") });
      await admin.connect();
      await admin.query(`create database ${database}`);
      await admin.end();
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: inject("adminDbUrl") });
        await c.connect();
        await c.query(`drop database if exists ${database} with (force)`);
        await c.end();
      });
      return { url: testDbUrl({ password: "tournament_api", database }), password: "tournament_api" };
    },
    failure: "not_deployed",
    code: ["3F000", "42883"],
  },
  {
    name: "the server accepts and never answers",
    target: async () => {
      const password = secret();
      return { url: `postgres://tournament_api:${password}@127.0.0.1:${await listen(() => {})}/postgres`, password };
    },
    failure: "timeout",
    code: null,
  },
];

interface Started {
  fn: Fn;
  lines: string[];
  url: string;
  password: string;
}

const started = new Map<string, Promise<Started>>();
// Every case's function starts at once (about a second each); each test awaits its own.
beforeAll(() => {
  for (const c of cases) {
    const launch = (async () => {
      const { url, password } = await c.target();
      const lines: string[] = [];
      const fn = await startFunction({
        port: await freePort(),
        databaseUrl: url,
        onLine: (line: string) => lines.push(line),
        env: { DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), DB_POOL_SIZE: "1" },
      });
      cleanups.push(() => fn.stop());
      return { fn, lines, url, password };
    })();
    launch.catch(() => {}); // reported by the test that awaits it
    started.set(c.name, launch);
  }
});

async function get(fn: Fn, key: string): Promise<ApiResponse> {
  const res = await fetch(`${fn.url}/functions/v1/api/v1/tournaments`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS + 4000),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** The JSON log lines that name `requestId`, once at least one has been printed. */
async function linesFor(lines: string[], requestId: string): Promise<Record<string, unknown>[]> {
  let found: Record<string, unknown>[] = [];
  for (let attempt = 0; attempt < 40 && found.length === 0; attempt++) {
    await new Promise((r) => setTimeout(r, 50));
    found = lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)).filter((l) => l.request_id === requestId);
  }
  return found;
}

describe("a database the function cannot reach", () => {
  it.each(cases)("answers 503 service_unavailable and logs db_error $failure when $name", async (c) => {
    const { fn, lines, url, password } = await started.get(c.name)!;
    const key = wellFormedKey();
    // Twice: the first failure leaves the process and its pool able to answer the next request.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const began = performance.now();
      const res = await get(fn, key);
      expectError(res, 503, "service_unavailable");
      expect(res.body.meta.request_id).toBe(res.headers.get("x-request-id"));
      expect(performance.now() - began, "bounded by the connect timeout").toBeLessThan(CONNECT_TIMEOUT_MS + 2000);

      const logged = await linesFor(lines, res.body.meta.request_id);
      expect(logged, lines.join("\n")).toHaveLength(1);
      expect(logged[0], JSON.stringify(logged[0])).toMatchObject({
        level: "error",
        msg: "request",
        status: 503,
        error_code: "service_unavailable",
        db_error: c.failure,
      });
      if (Array.isArray(c.code)) expect(c.code, JSON.stringify(logged[0])).toContain(logged[0].db_code);
      else expect(logged[0].db_code, JSON.stringify(logged[0])).toBe(c.code);
      expect(typeof logged[0].error).toBe("string");

      for (const [where, text] of [["response", res.text], ["log", lines.join("\n")]]) {
        expect(text, `${where} holds the password`).not.toContain(password);
        expect(text, `${where} holds the URL`).not.toContain(url);
        expect(text, `${where} holds the key`).not.toContain(key);
      }
    }
  });
});

describe("a DATABASE_URL that pg cannot parse (an unencoded password)", () => {
  it("refuses to serve: 503 on every request, and logs why without the URL or the password", async () => {
    const password = `Xy7#q/${crypto.randomBytes(6).toString("hex")}`;
    const url = `postgres://tournament_api:${password}@127.0.0.1:${await freePort()}/postgres`;
    const lines: string[] = [];
    const fn = await startFunction({ port: await freePort(), databaseUrl: url, onLine: (line: string) => lines.push(line) });
    cleanups.push(() => fn.stop());
    const res = await get(fn, wellFormedKey());
    expectError(res, 503, "service_unavailable");
    const logged = await linesFor(lines, res.body.meta.request_id);
    expect(logged, lines.join("\n")).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: "error", status: 503, error_code: "service_unavailable" });
    expect(String(logged[0].error)).toMatch(/DATABASE_URL cannot be parsed/);
    expect(lines.some((l) => /refusing to serve: DATABASE_URL cannot be parsed/.test(l)), lines.join("\n")).toBe(true);
    for (const [where, text] of [["response", res.text], ["log", lines.join("\n")]]) {
      expect(text, `${where} holds the password`).not.toContain(password);
      expect(text, `${where} holds the password's start`).not.toContain("Xy7#q");
    }
  });
});
