// The bracket pictures in the function itself (issue 32, part 3): hosted Supabase gives a function
// 2 s of CPU and 256 MB per worker. On the public bracket of bench/lib/public.mjs (a best-of-three
// 1,024-team double elimination, two thirds played), each figure is measured on a function
// instance of its own, started for it (scripts/stack.mjs startFunction: Deno with the flags the
// bench and `npm start` use) on the stack's database:
// - the first PNG in a fresh instance: the process's CPU (utime + stime of every thread, from
//   /proc/<pid>/stat) just before and just after its first request, GET .../bracket.png (the
//   largest picture the route draws), on three instances that draw it (nothing kept in
//   app.pictures at this version: the wasm's compilation and the fonts' reading happen in that
//   request, they are lazy) and three that find it kept by another. Everything else a first
//   request runs cold is counted too; the instance's start is not. The main thread's own CPU is
//   printed beside (/proc/<pid>/task/<pid>/stat).
// - the function's RSS while it draws 50 of the largest pictures one after another (the
//   tournament's version moved by a PATCH between them, so that each is drawn, never sent from
//   the instance's cache), and, on another instance, 10 different ones at once (both themes,
//   five round ranges, each at the route's pixel cap): the peak is the kernel's VmHWM.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { freePort, startFunction } from "../../scripts/stack.mjs";
import { send } from "./client.mjs";
import { bracket, nextAddress } from "./public.mjs";

const TICKS = 100; // USER_HZ
const FRESH_RUNS = 3;
const SEQUENTIAL = 50;
const CONCURRENT = [
  ["light", "1-10"],
  ["dark", "1-10"],
  ["light", "2-10"],
  ["dark", "2-10"],
  ["light", "3-10"],
  ["dark", "3-10"],
  ["light", "4-10"],
  ["dark", "4-10"],
  ["light", "5-10"],
  ["dark", "5-10"],
];
export const MAX_FIRST_PNG_CPU_MS = 1000;
export const MAX_RSS_MB = 200;

function cpuMs(pid, task = null) {
  const stat = fs.readFileSync(task ? `/proc/${pid}/task/${task}/stat` : `/proc/${pid}/stat`, "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(f[11]) + Number(f[12])) / TICKS) * 1000;
}

function memory(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"))[1]);
  return { rss_mb: kb("VmRSS") / 1024, peak_mb: kb("VmHWM") / 1024 };
}

async function instance(fnDbUrl) {
  return startFunction({
    port: await freePort(),
    databaseUrl: fnDbUrl,
    env: { CLIENT_ADDRESS_HEADERS: "x-forwarded-for", LOG_REQUESTS: "false" },
  });
}

/** GET a picture from `origin` as a client of its own address; the status, type, bytes and headers. */
async function picture(url) {
  const res = await fetch(url, { headers: { "x-forwarded-for": nextAddress() } });
  const body = new Uint8Array(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    etag: res.headers.get("etag"),
    clipped: res.headers.get("x-bracket-clipped"),
    bytes: body.byteLength,
    size: body.byteLength > 24 ? [new DataView(body.buffer).getUint32(16), new DataView(body.buffer).getUint32(20)] : null,
  };
}

function expectPng(p, what) {
  if (p.status !== 200 || p.type !== "image/png") throw new Error(`${what}: ${p.status} ${p.type}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const settle = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The figures; `base` is the stack's API (for the PATCHes), `fnDbUrl` the function role's database URL. */
export async function picturesBench({ db, base, fnDbUrl, basePath, teams, log }) {
  const { id, slug, key } = await bracket(db, base, teams, log, "pictures");
  const path = `${basePath}/public/tournaments/${slug}/bracket.png`;

  // Each fresh instance's first PNG twice over: drawn there (nothing kept at this version: the
  // kept pictures deleted first), and kept by the instance before it (app.pictures).
  const fresh = [];
  for (const [i, mode] of [...Array(FRESH_RUNS).fill("drawn"), ...Array(FRESH_RUNS).fill("kept")].entries()) {
    if (mode === "drawn") await db.query("delete from app.pictures where tournament_id = $1", [id]);
    const fn = await instance(fnDbUrl);
    try {
      await settle(500); // whatever the start left running on other threads
      const before = cpuMs(fn.pid), mainBefore = cpuMs(fn.pid, fn.pid), t0 = performance.now();
      const p = await picture(`${fn.url}${path}`);
      const wall = performance.now() - t0;
      const cpu = cpuMs(fn.pid) - before, main = cpuMs(fn.pid, fn.pid) - mainBefore;
      expectPng(p, "the first PNG");
      fresh.push({
        mode,
        cpu_ms: cpu,
        main_thread_ms: main,
        wall_ms: wall,
        bytes: p.bytes,
        size: p.size,
        clipped: p.clipped && decodeURIComponent(p.clipped),
        rss_mb: memory(fn.pid).rss_mb,
      });
      log(
        `pictures: first PNG in fresh instance ${i + 1} (${mode}) ${cpu.toFixed(0)} ms CPU (main thread ${main.toFixed(0)}), ${p.bytes} B`,
      );
    } finally {
      await fn.stop();
    }
  }

  log(`pictures: ${SEQUENTIAL} of the largest one after another…`);
  const sequential = { cpu_ms: [], bytes: [], rss_mb_after: [] };
  let fn = await instance(fnDbUrl);
  try {
    sequential.rss_mb_idle = memory(fn.pid).rss_mb;
    let etag = null;
    for (let i = 0; i < SEQUENTIAL; i++) {
      const patched = await send(base, key, "PATCH", `/tournaments/${id}`, { description: `bench picture ${i}` });
      if (patched.status !== 200) throw new Error(`PATCH: ${patched.status} ${patched.text}`);
      const before = cpuMs(fn.pid);
      const p = await picture(`${fn.url}${path}`);
      sequential.cpu_ms.push(cpuMs(fn.pid) - before);
      expectPng(p, `picture ${i + 1}`);
      if (p.etag === etag) throw new Error(`picture ${i + 1}: the version did not move (${etag})`);
      etag = p.etag;
      sequential.bytes.push(p.bytes);
      sequential.rss_mb_after.push(memory(fn.pid).rss_mb);
    }
    Object.assign(sequential, memory(fn.pid));
  } finally {
    await fn.stop();
  }

  log(`pictures: ${CONCURRENT.length} at once…`);
  const concurrent = {};
  fn = await instance(fnDbUrl);
  try {
    const t0 = performance.now();
    const all = await Promise.all(CONCURRENT.map(([theme, round]) => picture(`${fn.url}${path}?theme=${theme}&round=${round}`)));
    concurrent.wall_ms = performance.now() - t0;
    all.forEach((p, i) => expectPng(p, `concurrent picture ${i + 1}`));
    concurrent.sizes = all.map((p) => p.size.join("×"));
    concurrent.bytes = all.map((p) => p.bytes);
    Object.assign(concurrent, memory(fn.pid));
  } finally {
    await fn.stop();
  }

  const firstPng = (mode, what) => {
    const runs = fresh.filter((f) => f.mode === mode);
    const cpus = runs.map((f) => f.cpu_ms);
    return {
      target:
        `the first PNG in a fresh function instance < ${MAX_FIRST_PNG_CPU_MS} ms of process CPU, ${what} (every thread; worst of ${runs.length} instances)`,
      value: `${cpus.map((c) => c.toFixed(0)).join(", ")} ms (main thread ${runs.map((f) => f.main_thread_ms.toFixed(0)).join(", ")}; ${
        runs[0].size?.join("×")
      } px, ${(runs[0].bytes / 1024).toFixed(0)} KiB)`,
      result: Math.max(...cpus) < MAX_FIRST_PNG_CPU_MS ? "MET" : "NOT MET",
    };
  };
  const targets = [
    firstPng("kept", "kept at this version by another instance (app.pictures)"),
    firstPng("drawn", "drawn there: nothing kept at this version (the wasm compiled and the fonts read in that request)"),
    {
      target: `the function's peak RSS < ${MAX_RSS_MB} MB drawing ${SEQUENTIAL} of the largest pictures one after another`,
      value: `${sequential.peak_mb.toFixed(0)} MB (after: ${sequential.rss_mb.toFixed(0)} MB; ${
        median(sequential.cpu_ms).toFixed(0)
      } ms CPU each, median)`,
      result: sequential.peak_mb < MAX_RSS_MB ? "MET" : "NOT MET",
    },
    {
      target: `the function's peak RSS < ${MAX_RSS_MB} MB drawing ${CONCURRENT.length} of the largest pictures at once (all 200 image/png)`,
      value: `${concurrent.peak_mb.toFixed(0)} MB (after: ${concurrent.rss_mb.toFixed(0)} MB; all answered in ${
        (concurrent.wall_ms / 1000).toFixed(1)
      } s)`,
      result: concurrent.peak_mb < MAX_RSS_MB ? "MET" : "NOT MET",
    },
  ];
  return { fresh, sequential, concurrent, targets };
}

export function picturesReport(out) {
  const s = out.sequential, c = out.concurrent;
  return [
    "Pictures in the function (issue 32): the largest PNG of a best-of-three 1,024-team double elimination",
    ...out.fresh.map((f, i) =>
      `  fresh instance ${i + 1}, ${f.mode}: first PNG ${f.cpu_ms.toFixed(0)} ms CPU (main thread ${f.main_thread_ms.toFixed(0)}), ` +
      `wall ${f.wall_ms.toFixed(0)} ms, ${f.size?.join("×")} px, ${(f.bytes / 1024).toFixed(0)} KiB, RSS after ${f.rss_mb.toFixed(0)} MB`
    ),
    `  ${s.cpu_ms.length} one after another: peak RSS ${s.peak_mb.toFixed(0)} MB, CPU per picture median ${
      median(s.cpu_ms).toFixed(0)
    } ms (max ${Math.max(...s.cpu_ms).toFixed(0)})`,
    `    RSS idle ${s.rss_mb_idle.toFixed(0)} MB, after pictures 1, 2, 5, 10, 20, 30, 40, 50: ` +
    [1, 2, 5, 10, 20, 30, 40, 50].map((n) => s.rss_mb_after[n - 1]?.toFixed(0)).join(", ") + " MB",
    `  ${c.sizes.length} at once: peak RSS ${c.peak_mb.toFixed(0)} MB, ${(c.wall_ms / 1000).toFixed(1)} s, sizes ${
      [...new Set(c.sizes)].join(", ")
    }`,
  ].join("\n");
}
