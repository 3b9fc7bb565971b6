// `npm start` as a developer or a process manager runs it: the real command, its own data folder
// (TOURNAMENT_DATA_DIR) and free ports, stopped by signals sent the ways terminals and process
// managers send them. After each stop no process of that run may remain (checked in /proc) and
// both ports must be free; the next start reuses the data. One data folder serves the whole
// sequence, so only the first start pays for initdb.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, startPostgres } from "../../scripts/stack.mjs";
import { descendants, type Proc, running } from "../support/procs.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const START_TIMEOUT_MS = 120_000;
const STOP_LIMIT_MS = 10_000;

/** Whether 127.0.0.1:port can be listened on (nothing holds it). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Run {
  npm: ChildProcess;
  pid: number;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-start-test-"));
fs.chmodSync(dataDir, 0o755); // as root, Postgres runs as the postgres user, who must reach the folder
const runs: Run[] = [];
const seen: Proc[] = [];

/** `npm start` in its own process group (as a terminal would run it), with the test's folder and ports. */
function npmStart(env: Record<string, string>): Run {
  const base = { ...process.env };
  for (const name of ["DATABASE_URL", "DB_PORT", "API_PORT", "API_HOST", "TOURNAMENT_DATA_DIR"]) delete base[name];
  const npm = spawn("npm", ["start"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...base, NO_COLOR: "1", TOURNAMENT_DATA_DIR: dataDir, ...env },
  });
  let out = "";
  let err = "";
  npm.stdout!.on("data", (d) => (out += d));
  npm.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    npm.on("exit", (code, signal) => resolve({ code, signal, at: Date.now() }))
  );
  const run = { npm, pid: npm.pid!, out: () => out, err: () => err, exited };
  runs.push(run);
  return run;
}

interface Stack {
  run: Run;
  key: string;
  base: string;
  procs: Proc[];
  node: Proc;
}

/** Starts the stack and waits for its banner; returns the printed key and URL and its processes. */
async function startStack(ports: { db: number; api: number }): Promise<Stack> {
  const run = npmStart({ DB_PORT: String(ports.db), API_PORT: String(ports.api) });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!run.out().includes("Tournament API is running")) {
    const ended = await Promise.race([run.exited, sleep(100).then(() => null)]);
    if (ended || Date.now() > deadline) {
      throw new Error(`npm start ${ended ? `exited (${ended.code ?? ended.signal})` : "did not start"}:\n${run.out()}\n${run.err()}`);
    }
  }
  const key = /Demo API key\s+(tmk_\S+)/.exec(run.out())?.[1];
  const base = /Base URL\s+(\S+)/.exec(run.out())?.[1];
  expect(key).toMatch(/^tmk_[0-9A-Za-z]{49}$/);
  expect(base).toBe(`http://127.0.0.1:${ports.api}/functions/v1/api/v1`);
  const procs = descendants(run.pid);
  seen.push(...procs);
  // The run's processes: node (start.mjs), Postgres and its backends, Deno (the function).
  const node = procs.find((p) => p.cmdline.includes("scripts/start.mjs"));
  expect(node, "node scripts/start.mjs").toBeDefined();
  expect(procs.some((p) => p.comm === "postgres" && p.cmdline.includes(`-p ${ports.db}`)), "postgres").toBe(true);
  expect(procs.some((p) => p.cmdline.includes("functions/api/index.ts")), "deno").toBe(true);
  return { run, key: key!, base: base!, procs, node: node! };
}

/**
 * After a stop signal sent at `sentAt`: npm exits within 10 s, every process of the run is gone
 * within 10 s, and both ports are free again.
 */
async function expectStopped(stack: Stack, sentAt: number, ports: { db: number; api: number }) {
  const exit = await Promise.race([stack.run.exited, sleep(STOP_LIMIT_MS).then(() => null)]);
  if (!exit) throw new Error(`npm did not exit within ${STOP_LIMIT_MS / 1000} s:\n${stack.run.out()}\n${stack.run.err()}`);
  expect(exit.at - sentAt).toBeLessThan(STOP_LIMIT_MS);
  while (stack.procs.some(running) && Date.now() - sentAt < STOP_LIMIT_MS) await sleep(50);
  const left = stack.procs.filter(running);
  expect(left.map((p) => `${p.pid} ${p.cmdline}`), "processes left").toEqual([]);
  expect(await portIsFree(ports.db), `port ${ports.db} (database) free`).toBe(true);
  expect(await portIsFree(ports.api), `port ${ports.api} (API) free`).toBe(true);
  expect(stack.run.err()).not.toMatch(/^\s+at /m);
  return exit;
}

async function api(stack: Stack, method: string, route: string, body?: unknown) {
  const res = await fetch(stack.base + route, {
    method,
    headers: { authorization: `Bearer ${stack.key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json() };
}

/** The lines a command printed on stderr, without npm's own (`npm error …`, `npm warn …`). */
const ownLines = (stderr: string) => stderr.split("\n").filter((l) => l.trim() && !/^npm (error|warn|notice)\b/.test(l));

let ports: { db: number; api: number };

beforeAll(async () => {
  ports = { db: await freePort(), api: await freePort() };
});

/** Whatever a failed test left: its process groups, then any of its processes still running. */
async function killLeftovers() {
  for (const run of runs) {
    if (run.npm.exitCode === null && run.npm.signalCode === null) {
      try {
        process.kill(-run.pid, "SIGKILL");
      } catch { /* gone */ }
    }
  }
  for (const p of seen.filter(running)) {
    try {
      process.kill(p.pid, p.comm === "postgres" ? "SIGQUIT" : "SIGKILL");
    } catch { /* gone */ }
  }
  for (let i = 0; i < 50 && seen.some(running); i++) await sleep(100);
}

afterEach(killLeftovers, 20_000);

afterAll(async () => {
  await killLeftovers();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 20_000);

describe("npm start", () => {
  let tournamentId: string;

  it("runs node in place of npm's shell, so that npm's forwarded SIGINT and SIGTERM reach it", () => {
    // npm 11 runs the script with `sh -c` and forwards SIGINT/SIGTERM to that shell. Debian's
    // dash does not exec the command and, while waiting, swallows SIGINT (and dies of SIGTERM
    // without passing it on): `exec` makes node npm's direct child.
    const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
    expect(pkg.scripts.start).toMatch(/^exec node scripts\/start\.mjs$/);
  });

  let firstKey: string;

  it("starts, serves the printed demo key, and stops on SIGTERM to npm's PID within 10 s", async () => {
    const stack = await startStack(ports);
    firstKey = stack.key;
    // A new data folder is built, not taken for one of an earlier version.
    expect(stack.run.out()).not.toContain("earlier version");
    expect(fs.readdirSync(dataDir).filter((f) => f.startsWith("postgres-before-"))).toEqual([]);
    expect((await api(stack, "GET", "/tournaments")).status).toBe(200);
    const created = await api(stack, "POST", "/tournaments", {
      name: "Restart Cup",
      game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
      team_size: 5,
      max_teams: 8,
      entry_fee: 0,
      prize_pool: 100,
      starts_at: "2031-03-01T18:00:00Z",
    });
    expect(created.status).toBe(201);
    tournamentId = created.body.data.id;

    const sentAt = Date.now();
    process.kill(stack.run.pid, "SIGTERM");
    const exit = await expectStopped(stack, sentAt, ports);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(stack.run.out()).toContain("Stopped.");
  }, START_TIMEOUT_MS + 30_000);

  it("restarts on the same data (same demo key, the tournament still there) and stops on SIGINT to npm's PID", async () => {
    const stack = await startStack(ports);
    expect(stack.key).toBe(firstKey);
    const read = await api(stack, "GET", `/tournaments/${tournamentId}`);
    expect(read.status).toBe(200);
    expect(read.body.data.name).toBe("Restart Cup");

    const sentAt = Date.now();
    process.kill(stack.run.pid, "SIGINT");
    const exit = await expectStopped(stack, sentAt, ports);
    expect(exit).toMatchObject({ code: 0, signal: null });
  }, START_TIMEOUT_MS + 30_000);

  it("stops on Ctrl-C in a terminal (SIGINT to the whole foreground process group)", async () => {
    const stack = await startStack(ports);
    const sentAt = Date.now();
    process.kill(-stack.run.pid, "SIGINT");
    const exit = await expectStopped(stack, sentAt, ports);
    expect(exit).toMatchObject({ code: 0, signal: null });
    // The same Ctrl-C arrives twice (from the terminal, and forwarded by npm): one orderly stop.
    expect(stack.run.out()).toContain("Stopped.");
    expect(stack.run.err()).not.toContain("Stopping at once");
  }, START_TIMEOUT_MS + 30_000);

  it("stops on SIGTERM to the node process (scripts/start.mjs) itself", async () => {
    const stack = await startStack(ports);
    const sentAt = Date.now();
    process.kill(stack.node.pid, "SIGTERM");
    const exit = await expectStopped(stack, sentAt, ports);
    expect(exit).toMatchObject({ code: 0, signal: null });
  }, START_TIMEOUT_MS + 30_000);

  it("stops when its parent dies (npm SIGKILLed)", async () => {
    const stack = await startStack(ports);
    const sentAt = Date.now();
    process.kill(stack.run.pid, "SIGKILL");
    await expectStopped(stack, sentAt, ports);
  }, START_TIMEOUT_MS + 30_000);

  it("leaves no Postgres or Deno behind when the node process itself is SIGKILLed", async () => {
    const stack = await startStack(ports);
    const sentAt = Date.now();
    process.kill(stack.node.pid, "SIGKILL");
    await expectStopped(stack, sentAt, ports);
    // Postgres was told to shut down, not killed: the next start comes up on the same data.
    const again = await startStack(ports);
    expect(again.key).toBe(firstKey);
    expect((await api(again, "GET", `/tournaments/${tournamentId}`)).status).toBe(200);
    const againAt = Date.now();
    process.kill(again.run.pid, "SIGTERM");
    await expectStopped(again, againAt, ports);
  }, 2 * START_TIMEOUT_MS + 30_000);
});

describe("npm start with a busy port", () => {
  for (const [which, variable, label] of [["db", "DB_PORT", "database"], ["api", "API_PORT", "API"]] as const) {
    it(`exits non-zero with one line naming the port and ${variable}, starting nothing`, async () => {
      const holder = net.createServer();
      const busy = await freePort();
      await new Promise<void>((resolve) => holder.listen(busy, "127.0.0.1", resolve));
      try {
        const other = await freePort();
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-start-busy-"));
        try {
          const run = npmStart({
            TOURNAMENT_DATA_DIR: dir,
            DB_PORT: String(which === "db" ? busy : other),
            API_PORT: String(which === "api" ? busy : other),
          });
          const exit = await Promise.race([run.exited, sleep(30_000).then(() => null)]);
          expect(exit, "exited").not.toBeNull();
          expect(exit!.code).not.toBe(0);
          expect(ownLines(run.err())).toEqual([`Port ${busy} (${label}) is already in use; set ${variable} to another port.`]);
          expect(run.err()).not.toMatch(/^\s+at |Error:/m);
          expect(run.out()).not.toContain("Starting Postgres");
          expect(fs.readdirSync(dir)).toEqual([]);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      } finally {
        holder.close();
      }
    }, 60_000);
  }
});

describe("npm start on a data folder made by an earlier version", () => {
  it("moves it aside with a message and builds a Supabase-shaped database in its place", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-start-old-"));
    fs.chmodSync(dir, 0o755);
    try {
      // Before, `postgres` was the cluster's superuser (no supabase_admin).
      const old = await startPostgres({ dataDir: path.join(dir, "postgres"), port: await freePort(), superuser: "postgres" });
      await old.stop();
      const own = { db: await freePort(), api: await freePort() };
      const run = npmStart({ TOURNAMENT_DATA_DIR: dir, DB_PORT: String(own.db), API_PORT: String(own.api) });
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (!run.out().includes("Tournament API is running")) {
        const ended = await Promise.race([run.exited, sleep(100).then(() => null)]);
        if (ended || Date.now() > deadline) throw new Error(`npm start did not start:\n${run.out()}\n${run.err()}`);
      }
      expect(run.out()).toMatch(/was made by an earlier version, whose `postgres` was a superuser.*Moved it to .*postgres-before-/s);
      const aside = fs.readdirSync(dir).filter((f) => f.startsWith("postgres-before-"));
      expect(aside).toHaveLength(1);
      expect(fs.existsSync(path.join(dir, aside[0], "PG_VERSION"))).toBe(true);
      const key = /Demo API key\s+(tmk_\S+)/.exec(run.out())![1];
      const res = await fetch(`http://127.0.0.1:${own.api}/functions/v1/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const sentAt = Date.now();
      process.kill(run.pid, "SIGTERM");
      const exit = await Promise.race([run.exited, sleep(STOP_LIMIT_MS).then(() => null)]);
      expect(exit, "stopped").not.toBeNull();
      expect(exit!.at - sentAt).toBeLessThan(STOP_LIMIT_MS);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, START_TIMEOUT_MS + 30_000);
});

describe("npm start with DATABASE_URL elsewhere", () => {
  it("refuses a database not on this machine (it would set known passwords and add demo data), starting nothing", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-start-remote-"));
    try {
      const run = npmStart({
        TOURNAMENT_DATA_DIR: dir,
        DATABASE_URL: "postgres://postgres:secret-pw@db.example.com:5432/postgres",
        API_PORT: String(await freePort()),
      });
      const exit = await Promise.race([run.exited, sleep(30_000).then(() => null)]);
      expect(exit, "exited").not.toBeNull();
      expect(exit!.code).not.toBe(0);
      expect(ownLines(run.err())).toEqual([expect.stringMatching(/^DATABASE_URL must name a database on this machine/)]);
      expect(run.err() + run.out()).not.toContain("secret-pw");
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
