// `npm run soak`: sustained mixed traffic against a throwaway stack, opt-in (not part of CI).
//
// Starts its own Postgres (temp folder, free port) and `api` function, seeds accounts, keys and
// teams as the operator, then for --duration seconds runs whole tournament lifecycles in
// parallel (create, read, register, start, report every match round by round, complete, read
// the standings, delete), readers over the kept tournaments, and one "hot" key sending a little
// more than its limit so that it meets 429 on purpose. Every request states the answer it
// must get; anything else is an unexpected error. The function's RSS is sampled throughout.
//
// It passes with zero unexpected errors (the hot key's 429s are expected; the other keys are
// paced below their limit, so a 429 there is unexpected) and flat memory: the average RSS of
// the last quarter within 20% of the second quarter's. Exit code 0 on a pass, 1 otherwise.
//
// It shares the bench's helpers (bench/lib): the throwaway stack and its teardown by PID
// (stack.mjs), the paced keys and the request (client.mjs), the seeding (seed.mjs) and the
// process measurement (measure.mjs).
//
//   npm run soak                          # 10 minutes
//   npm run soak -- --duration 60         # a quick run
//   npm run soak -- --duration 600 --concurrency 12
import { parseArgs } from "node:util";
import pg from "pg";
import { KEY_BUDGET, KeyRing, send } from "./lib/client.mjs";
import { rssMb } from "./lib/measure.mjs";
import { createAccounts, createKeys, createTeams, GAMES } from "./lib/seed.mjs";
import { startThrowawayStack } from "./lib/stack.mjs";

const { values: opt } = parseArgs({
  options: {
    duration: { type: "string", default: "600" },
    concurrency: { type: "string", default: "8" },
    readers: { type: "string", default: "2" },
  },
});
const DURATION_S = Number(opt.duration);
const CONCURRENCY = Number(opt.concurrency);
const READERS = Number(opt.readers);
if (!(DURATION_S > 0) || !(CONCURRENCY > 0) || !(READERS >= 0)) {
  console.error("usage: node bench/soak.mjs [--duration seconds] [--concurrency lifecycles] [--readers n]");
  process.exit(2);
}

const ACCOUNTS = 8;
const KEYS_PER_ACCOUNT = 200; // 8 × 200 keys × KEY_BUDGET (90) per minute: enough for ~2,400 requests/s
const TEAMS = 64;
const FLATNESS = 0.2;
const SAMPLE_MS = Math.min(5000, Math.max(1000, (DURATION_S * 1000) / 60));

// The stack (bench/lib/stack.mjs), torn down by PID whatever happens
let stack = null;
const KEY_RATE = (ACCOUNTS * KEYS_PER_ACCOUNT * KEY_BUDGET) / 60; // requests/s the paced keys allow

// ---------------------------------------------------------------------------------------------
// Traffic
// ---------------------------------------------------------------------------------------------
const stats = {
  tried: 0,
  byStatus: new Map(), // "201" -> n
  byRoute: new Map(), // "POST /tournaments 201" -> n
  unexpected: [],
  unexpectedCount: 0,
  hot429: 0,
  hotOk: 0,
  waitsForKey: 0,
  latencies: [],
};
const bump = (map, k) => map.set(k, (map.get(k) ?? 0) + 1);

let base = "";
let deadline = 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends one request and checks it got one of the answers it must get: `expect` maps an
 * allowed status to its error code (null for a success). Returns the parsed body.
 */
async function call(key, method, route, pathname, body, expect) {
  stats.tried++;
  const res = await send(base, key, method, pathname, body);
  const { status, body: parsed } = res;
  let problem = null;
  if (status === null) {
    problem = `no response: ${res.error}`;
  } else if (parsed === undefined) {
    problem = `not JSON: ${res.text.slice(0, 120)}`;
  } else {
    const want = expect[status];
    const code = parsed?.success === false ? parsed.error?.code : null;
    if (want === undefined) problem = `unexpected ${status} ${code ?? ""} ${parsed?.error?.message ?? ""}`.trim();
    else if (want !== code) problem = `expected ${status} ${want ?? "success"}, got ${code ?? "success"}`;
    else if (parsed.meta?.request_id !== res.headers.get("x-request-id")) problem = "meta.request_id differs from X-Request-Id";
    else if (status === 429 && !(Number(res.headers.get("retry-after")) >= 1)) problem = "429 without Retry-After";
  }
  stats.latencies.push(res.ms);
  const label = status === null ? "none" : String(status);
  bump(stats.byStatus, label);
  bump(stats.byRoute, `${method} ${route} ${label}`);
  if (problem) {
    stats.unexpectedCount++;
    if (stats.unexpected.length < 25) stats.unexpected.push(`${method} ${pathname}: ${problem}`);
    return null;
  }
  return parsed;
}

const OK = { 200: null };
const CREATED = { 201: null };
const pick = (arr) => arr[Math.floor(Math.random() * arr.length)];
function shuffled(arr) {
  const a = [...arr];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** A bad answer: the lifecycle cannot go on, the error is counted, the loop starts over. */
class Broken extends Error {}
const must = (body) => {
  if (body === null) throw new Broken();
  return body;
};
/** A response whose content is wrong: counted as unexpected, and the lifecycle starts over. */
function wrong(message) {
  stats.unexpectedCount++;
  if (stats.unexpected.length < 25) stats.unexpected.push(message);
  return new Broken();
}

let lifecycles = 0;
let reports = 0;

/** One tournament from creation to deletion, through the API only. */
async function lifecycle(account, n) {
  const k = () => account.ring.take();
  const size = pick([2, 3, 4, 6, 8, 11, 16]);
  const created = must(
    await call(await k(), "POST", "/tournaments", "/tournaments", {
      name: `Soak ${account.index}-${n}`,
      game_id: GAMES[0],
      team_size: 5,
      max_teams: size,
      entry_fee: n % 3 === 0 ? 10 : 0,
      prize_pool: 250.5,
      starts_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    }, CREATED),
  ).data;
  const id = created.id;
  const t = `/tournaments/${id}`;
  must(await call(await k(), "GET", "/tournaments/{id}", t, null, OK));

  const teams = shuffled(account.teams).slice(0, size + 1);
  for (const team of teams.slice(0, size)) {
    must(await call(await k(), "POST", "/tournaments/{id}/registrations", `${t}/registrations`, { team_id: team }, CREATED));
  }
  if (n % 2 === 0) {
    must(
      await call(await k(), "POST", "/tournaments/{id}/registrations", `${t}/registrations`, { team_id: teams[0] }, {
        409: "already_registered",
      }),
    );
    must(
      await call(await k(), "POST", "/tournaments/{id}/registrations", `${t}/registrations`, { team_id: teams[size] }, {
        409: "tournament_full",
      }),
    );
  }
  const regs = must(await call(await k(), "GET", "/tournaments/{id}/registrations", `${t}/registrations`, null, OK)).data;
  if (regs.length !== size) throw wrong(`${t}/registrations: ${regs.length} registrations, expected ${size}`);

  must(await call(await k(), "PATCH", "/tournaments/{id}", t, { status: "ongoing" }, OK));
  must(
    await call(await k(), "POST", "/tournaments/{id}/registrations", `${t}/registrations`, { team_id: teams[size] }, {
      409: "registration_closed",
    }),
  );

  for (;;) {
    const results = must(await call(await k(), "GET", "/tournaments/{id}/results", `${t}/results`, null, OK)).data;
    const ready = results.matches.filter((m) => m.status === "ready");
    const final = results.matches.find((m) => m.next_match_id === null);
    if (final.status === "completed") break;
    if (ready.length === 0) {
      throw wrong(`${t}: no ready match, and the final is not completed`);
    }
    for (const m of ready) {
      const first = Math.random() < 0.5;
      must(
        await call(await k(), "PATCH", "/tournaments/{id}/matches/{match_id}", `${t}/matches/${m.id}`, {
          team1_score: first ? 2 : 0,
          team2_score: first ? 1 : 3,
        }, OK),
      );
      reports++;
    }
  }
  must(await call(await k(), "PATCH", "/tournaments/{id}", t, { status: "completed", name: `Soak ${account.index}-${n} (done)` }, OK));
  const standings = must(await call(await k(), "GET", "/tournaments/{id}/results", `${t}/results`, null, OK)).data.standings;
  if (standings.length !== size || standings[0].position !== 1) {
    throw wrong(`${t}: ${standings.length} standings for ${size} teams`);
  }
  if (n % 5 === 0) {
    account.kept.push(id); // a few stay, so that the lists grow a little and readers have work
  } else {
    must(await call(await k(), "DELETE", "/tournaments/{id}", t, null, OK));
    must(await call(await k(), "GET", "/tournaments/{id}", t, null, { 404: "not_found" }));
  }
  lifecycles++;
}

async function lifecycleActor(account) {
  let n = 0;
  while (performance.now() < deadline) {
    try {
      await lifecycle(account, n++);
    } catch (err) {
      if (!(err instanceof Broken)) throw err;
    }
  }
}

async function readerActor(accounts) {
  while (performance.now() < deadline) {
    const account = pick(accounts);
    const key = await account.ring.take();
    const r = Math.random();
    if (r < 0.4 || account.kept.length === 0) {
      const q = pick(["?limit=20", "?status=completed&limit=5", "?page=2&limit=10", "?status=ongoing"]);
      await call(key, "GET", "/tournaments", `/tournaments${q}`, null, OK);
    } else if (r < 0.7) {
      await call(key, "GET", "/tournaments/{id}", `/tournaments/${pick(account.kept)}`, null, OK);
    } else if (r < 0.85) {
      await call(key, "GET", "/tournaments/{id}/results", `/tournaments/${pick(account.kept)}/results`, null, OK);
    } else {
      await call(key, "GET", "/tournaments/{id}/registrations", `/tournaments/${pick(account.kept)}/registrations`, null, OK);
    }
  }
}

/** One key, 3 requests a second: over its 100 per 60 s, so once warm about 45% meet 429 on purpose. */
async function hotKeyActor(hotKey) {
  while (performance.now() < deadline) {
    const body = await call(hotKey, "GET", "/tournaments (hot key)", "/tournaments?limit=1", null, { 200: null, 429: "rate_limited" });
    if (body?.success === false) stats.hot429++;
    else if (body) stats.hotOk++;
    await sleep(333);
  }
}

// ---------------------------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------------------------
const rss = []; // [seconds since start, KiB]
function sampleRss(pid, t0) {
  const mb = rssMb(pid); // null once the process is gone: the traffic reports it
  if (mb) rss.push([(performance.now() - t0) / 1000, mb * 1024]);
}

const avg = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------
async function seed(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const teams = await createTeams(client, TEAMS, { prefix: "Soak team", tag: "S" });
    const ids = await createAccounts(client, ACCOUNTS, 0, { prefix: "Soak account" });
    const keys = await createKeys(client, ids, ACCOUNTS * KEYS_PER_ACCOUNT, "soak");
    const accounts = ids.map((id, i) => ({
      index: i,
      id,
      teams,
      kept: [],
      ring: new KeyRing(keys.filter((k) => k.account === i).map((k) => k.key), { onWait: () => stats.waitsForKey++ }),
    }));
    const [hotAccount] = await createAccounts(client, 1, 0, { prefix: "Soak hot key" });
    const [{ key: hotKey }] = await createKeys(client, [hotAccount], 1, "hot", { scopes: ["read:tournaments"] });
    return { accounts, hotKey };
  } finally {
    await client.end();
  }
}

/** The database-wide invariants: capacity held, brackets whole and agreeing with the status. */
async function invariants(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`
      with t as (
        select t.id, t.status, t.max_teams,
               (select count(*) from app.registrations r where r.tournament_id = t.id) as regs,
               (select count(*) from app.matches m where m.tournament_id = t.id) as matches
          from app.tournaments t)
      select count(*)::int as tournaments,
             count(*) filter (where regs > max_teams
               or (status = 'registration' and matches <> 0)
               or (status <> 'registration' and (regs < 2 or matches <> (
                     select min(p) from (select 1 << g as p from generate_series(0, 11) g) x where p >= regs) - 1)))::int as broken,
             (select count(*)::int from app.rate_limits r
               where (select count(*) from unnest(r.slots) s where s > now() - interval '60 seconds') > 100
                  or exists (select from unnest(r.slots) s where s < r.slots[r.next_slot])) as over_limit
        from t`);
    return rows[0];
  } finally {
    await client.end();
  }
}

async function main() {
  stack = await startThrowawayStack({ name: "soak", log: (msg) => console.log(`soak: ${msg}`) });
  base = stack.base;
  const fn = { pid: stack.fnPid, child: stack.fnChild };
  const seeding = performance.now();
  const { accounts, hotKey } = await seed(stack.adminUrl);
  console.log(`soak: seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  let fnExited = null;
  fn.child.on("exit", (code, signal) => (fnExited = `${code ?? signal}`));
  console.log(
    `soak: function pid ${fn.pid}, ${ACCOUNTS} accounts × ${KEYS_PER_ACCOUNT} keys, ${TEAMS} teams; ` +
      `${CONCURRENCY} lifecycles + ${READERS} readers + 1 hot key for ${DURATION_S} s (keys paced to ${KEY_RATE.toFixed(0)} req/s)`,
  );

  const t0 = performance.now();
  deadline = t0 + DURATION_S * 1000;
  sampleRss(fn.pid, t0);
  const sampler = setInterval(() => sampleRss(fn.pid, t0), SAMPLE_MS);
  const progressEvery = Math.min(30_000, Math.max(10_000, DURATION_S * 100));
  let lastTried = 0;
  const progress = setInterval(() => {
    const s = (performance.now() - t0) / 1000;
    const rate = (stats.tried - lastTried) / (progressEvery / 1000);
    lastTried = stats.tried;
    console.log(
      `soak: ${s.toFixed(0)} s  ${stats.tried} requests (${rate.toFixed(0)}/s)  ` +
        `unexpected ${stats.unexpectedCount}  429 ${stats.hot429}  rss ${mib(rss.at(-1)?.[1] ?? 0)}`,
    );
  }, progressEvery);

  await Promise.all([
    ...Array.from({ length: CONCURRENCY }, (_, i) => lifecycleActor(accounts[i % accounts.length])),
    ...Array.from({ length: READERS }, () => readerActor(accounts)),
    hotKeyActor(hotKey),
  ]);
  clearInterval(sampler);
  clearInterval(progress);
  sampleRss(fn.pid, t0);
  const elapsed = (performance.now() - t0) / 1000;
  const exitedDuringRun = fnExited;
  const inv = await invariants(stack.adminUrl);
  await stack.stop();

  // Flatness: the last quarter's average RSS against the second quarter's (the first is warm-up).
  const quarter = (q) => rss.filter(([s]) => s >= (q - 1) * elapsed / 4 && s < q * elapsed / 4 + (q === 4 ? 1 : 0));
  const q2 = avg(quarter(2).map(([, k]) => k));
  const q4 = avg(quarter(4).map(([, k]) => k));
  const growth = (q4 - q2) / q2;
  const flat = Number.isFinite(growth) && growth <= FLATNESS;
  const lat = [...stats.latencies].sort((a, b) => a - b);
  const statusCounts = Object.fromEntries([...stats.byStatus].sort());
  const other429 = (stats.byStatus.get("429") ?? 0) - stats.hot429;

  console.log("\nsoak: results");
  console.log(`  duration            ${elapsed.toFixed(1)} s`);
  console.log(`  requests tried      ${stats.tried} (${(stats.tried / elapsed).toFixed(0)}/s)`);
  console.log(`  lifecycles          ${lifecycles} tournaments created → completed, ${reports} match reports`);
  console.log(`  status counts       ${JSON.stringify(statusCounts)}`);
  console.log(`  by route            ${JSON.stringify(Object.fromEntries([...stats.byRoute].sort()))}`);
  console.log(
    `  latency             p50 ${percentile(lat, 50).toFixed(1)} ms, p95 ${percentile(lat, 95).toFixed(1)} ms, ` +
      `p99 ${percentile(lat, 99).toFixed(1)} ms, max ${lat.at(-1).toFixed(1)} ms`,
  );
  console.log(
    `  429 (hot key)       ${stats.hot429} expected, ${stats.hotOk} accepted; other keys: ${other429} (paced; waits for a key ${stats.waitsForKey})`,
  );
  console.log(`  unexpected errors   ${stats.unexpectedCount}`);
  for (const u of stats.unexpected) console.log(`    - ${u}`);
  console.log(`  invariants          ${inv.tournaments} tournaments, ${inv.broken} broken, ${inv.over_limit} keys over the limit`);
  console.log(
    `  function RSS        first ${mib(rss[0][1])}, last ${mib(rss.at(-1)[1])}, max ${mib(Math.max(...rss.map(([, k]) => k)))} ` +
      `(${rss.length} samples every ${(SAMPLE_MS / 1000).toFixed(1)} s)`,
  );
  console.log(
    `  memory flatness     Q2 avg ${mib(q2)}, Q4 avg ${mib(q4)}: ${(growth * 100).toFixed(1)}% ` +
      `(limit +${FLATNESS * 100}%) → ${flat ? "flat" : "GROWING"}`,
  );
  if (exitedDuringRun) console.log(`  the function exited during the run (${exitedDuringRun})`);

  const pass = stats.tried > 0 && stats.unexpectedCount === 0 && inv.broken === 0 && inv.over_limit === 0 &&
    stats.hot429 > 0 && flat && !exitedDuringRun;
  console.log(`\nsoak: ${pass ? "PASS" : "FAIL"}`);
  return pass;
}

main().then(
  (pass) => process.exit(pass ? 0 : 1),
  async (err) => {
    console.error(`soak: ${err?.stack ?? err}`);
    await stack?.stop().catch(() => {});
    process.exit(1);
  },
);
