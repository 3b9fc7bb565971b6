// The live figures (issue 23, contract section 14), on the throwaway stack or a running one:
// - conditional reads: the server time of a read answered 304 (If-None-Match naming the current
//   version) against the same read answered whole, for a tournament and a 256-team bracket's
//   results (pg_stat_statements, the function role's statements);
// - open streams on one tournament (1, 100, 1,000): the database statements per second the
//   function instance makes for them while nothing changes (target: the same whatever the
//   number of streams), and the latency from a result's request to its event on every stream
//   (p50, p99; target p99 < 1 s), both measured from outside the function.
import { performance } from "node:perf_hooks";
import * as seed from "./seed.mjs";
import { api } from "./client.mjs";
import { resetStats, timeServer } from "./measure.mjs";

const STREAMS = [1, 100, 1000];
const IDLE_S = 10; // seconds of quiet in which the polls are counted
const CHANGES = 10; // results reported while the streams are open

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : null;
};

/** A tournament's keyed stream read from outside (openStream). */
const keyedStream = (base, key, tournamentId) =>
  openStream(`${base}/tournaments/${tournamentId}/stream`, { authorization: `Bearer ${key}` });

/**
 * A stream (`url`, with `headers`) read from outside: every event's id and when it arrived;
 * `onEvent(version)` is called on each event after the first.
 */
export function openStream(url, headers, onEvent = null) {
  const ctl = new AbortController();
  const arrivals = new Map(); // version -> ms (performance.now)
  const ready = (async () => {
    const res = await fetch(url, { headers, signal: ctl.signal });
    if (res.status !== 200) throw new Error(`stream: ${res.status} ${await res.text()}`);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let first = true;
    let resolveFirst;
    const firstEvent = new Promise((r) => (resolveFirst = r));
    (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const m = /^id: (\d+)$/m.exec(buffer.slice(0, end));
            if (m) arrivals.set(Number(m[1]), performance.now());
            if (m && !first && onEvent) onEvent(Number(m[1]));
            buffer = buffer.slice(end + 2);
            if (m && first) {
              first = false;
              resolveFirst();
            }
          }
        }
      } catch {
        // aborted
      }
    })();
    await firstEvent;
  })();
  return { ready, arrivals, close: () => ctl.abort() };
}

/** Calls of api.stream_poll by the function's role since the last reset. */
async function polls(db, view) {
  const { rows: [r] } = await db.query(
    `select coalesce(sum(calls), 0)::float8 as calls from ${view}
      where userid = 'tournament_api'::regrole and query like '%stream_poll%'`,
  );
  return r.calls;
}

// Each conditional read against its whole read (issue 39: a 304 at most 0.6x a whole read's
// server time). The whole results are kept by the instance, which then asks the database with
// the kept version: a 304 to the instance, the same work as the client's 304. So the results'
// whole read is also timed as Postgres builds it (`?since=0`, the same matches and standings,
// which no instance keeps), and that is the one a 304 is judged against; the kept read is printed.
async function conditionalReads({ db, view, base, key, tournamentId }) {
  const timed = (path, etag) =>
    timeServer(db, view, async () => {
      const res = await fetch(base + path, { headers: { authorization: `Bearer ${key()}`, ...(etag ? { "if-none-match": etag } : {}) } });
      const text = await res.text();
      if (res.status !== (etag ? 304 : 200)) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
      return text.length;
    }, 20);
  const out = {};
  const reads = [
    ["tournament", `/tournaments/${tournamentId}`],
    ["registrations", `/tournaments/${tournamentId}/registrations?limit=100`],
    ["results_256", `/tournaments/${tournamentId}/results`, `/tournaments/${tournamentId}/results?since=0`],
  ];
  for (const [name, path, built] of reads) {
    const head = await fetch(base + path, { headers: { authorization: `Bearer ${key()}` } });
    const etag = head.headers.get("etag");
    await head.text();
    const full = await timed(path, null);
    const whole = built ? await timed(built, null) : full;
    const notModified = await timed(path, etag);
    out[name] = {
      etag,
      full_ms: whole.warm_mean_ms,
      kept_ms: built ? full.warm_mean_ms : null,
      not_modified_ms: notModified.warm_mean_ms,
      ratio: notModified.warm_mean_ms / whole.warm_mean_ms,
      full_bytes: whole.response_bytes,
    };
  }
  return out;
}

async function streams({ db, view, base, accountId, teams, log }) {
  const keys = (await seed.createKeys(db, [accountId], Math.max(...STREAMS) / 10 + 20, "live")).map((k) => k.key);
  const writer = keys.pop();
  const id = await seed.startBracket(db, base, writer, accountId, teams.slice(0, 64), { tag: "live" });
  const out = [];
  let keyAt = 0;
  for (const n of STREAMS) {
    const t0 = performance.now();
    const opened = [];
    for (let i = 0; i < n; i += 50) {
      const batch = Array.from({ length: Math.min(50, n - i) }, (_, j) => keyedStream(base, keys[keyAt + Math.floor((i + j) / 10)], id));
      await Promise.all(batch.map((s) => s.ready));
      opened.push(...batch);
    }
    keyAt += Math.ceil(n / 10);
    const openMs = performance.now() - t0;
    await resetStats(db, view);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idlePolls = await polls(db, view);
    const latencies = [];
    const afterResponse = [];
    for (let c = 0; c < CHANGES; c++) {
      const { matches } = await api(base, writer, "GET", `/tournaments/${id}/results`);
      const m = matches.find((x) => x.status === "ready");
      const sent = performance.now();
      await api(base, writer, "PATCH", `/tournaments/${id}/matches/${m.id}`, { team1_score: 2, team2_score: 1 });
      const answered = performance.now();
      const { version } = await api(base, writer, "GET", `/tournaments/${id}`);
      const deadline = performance.now() + 5000;
      while (opened.some((s) => !s.arrivals.has(version)) && performance.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const s of opened) {
        const at = s.arrivals.get(version);
        latencies.push(at === undefined ? Infinity : at - sent);
        afterResponse.push(at === undefined ? Infinity : Math.max(0, at - answered));
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    for (const s of opened) s.close();
    const row = {
      streams: n,
      open_ms: Math.round(openMs),
      polls_per_s: idlePolls / IDLE_S,
      latency_ms: { p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.max(...latencies) },
      after_response_ms: { p50: pct(afterResponse, 50), p99: pct(afterResponse, 99) },
      missed: latencies.filter((x) => x === Infinity).length,
    };
    log(
      `live: ${n} streams: ${row.polls_per_s.toFixed(1)} polls/s idle, request-to-event p50 ${row.latency_ms.p50?.toFixed(0)} ms, ` +
        `p99 ${row.latency_ms.p99?.toFixed(0)} ms, missed ${row.missed}`,
    );
    out.push(row);
    await new Promise((r) => setTimeout(r, 1000)); // the closed streams' leases end
  }
  return out;
}

/** Ten tournaments with ten open streams each, on one instance: the statements per second while idle. */
async function manyTournaments({ db, view, base, accountId, teams }) {
  const keys = (await seed.createKeys(db, [accountId], 11, "live many")).map((k) => k.key);
  const opened = [];
  for (let t = 0; t < 10; t++) {
    const id = await seed.startBracket(db, base, keys[10], accountId, teams.slice(t * 8, t * 8 + 8), { tag: `live-many-${t}` });
    const batch = Array.from({ length: 10 }, (_, i) => keyedStream(base, keys[i], id));
    await Promise.all(batch.map((s) => s.ready));
    opened.push(...batch);
  }
  await resetStats(db, view);
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  const idlePolls = await polls(db, view);
  for (const s of opened) s.close();
  return { tournaments: 10, streams: opened.length, polls_per_s: idlePolls / IDLE_S };
}

/** The live figures: conditional reads, then streams. */
export async function liveBench({ db, view, base, teams, log }) {
  const [accountId] = await seed.createAccounts(db, 1, 1, { prefix: `Bench ${seed.RUN} live` });
  const ring = (await seed.createKeys(db, [accountId], 10, "conditional")).map((k) => k.key);
  let next = 0;
  const key = () => ring[next++ % ring.length];
  const tournamentId = await seed.startBracket(db, base, ring[0], accountId, teams.slice(0, 256), { tag: "etag" });
  log("live: conditional reads (If-None-Match) against whole ones…");
  const reads = await conditionalReads({ db, view, base, key, tournamentId });
  log("live: 1, 100 and 1,000 open streams on one tournament…");
  const rows = await streams({ db, view, base, accountId, teams, log });
  const many = await manyTournaments({ db, view, base, accountId, teams });
  log(`live: ${many.streams} streams over ${many.tournaments} tournaments: ${many.polls_per_s.toFixed(1)} polls/s idle`);
  const one = rows.find((r) => r.streams === 1);
  const most = rows.at(-1);
  const targets = [
    ...[["tournament", "GET tournament"], ["registrations", "GET registrations (256)"], [
      "results_256",
      "GET results (256 teams, as built)",
    ]]
      .map(([name, label]) => ({
        target: `${label} with a matching If-None-Match: ≤ 0.6× a whole read's server time`,
        value: `${reads[name].not_modified_ms.toFixed(3)} ÷ ${reads[name].full_ms.toFixed(3)} ms = ${reads[name].ratio.toFixed(2)}`,
        result: reads[name].ratio <= 0.6 ? "MET" : "NOT MET",
      })),
    {
      target: `database polls per second per instance independent of the streams (${most.streams} vs 1)`,
      value: `${most.polls_per_s.toFixed(1)} vs ${one.polls_per_s.toFixed(1)}`,
      result: most.polls_per_s <= one.polls_per_s * 1.25 + 0.5 ? "MET" : "NOT MET",
    },
    {
      target:
        `one statement per poll per instance, whatever the tournaments (${many.tournaments} tournaments, ${many.streams} streams vs 1)`,
      value: `${many.polls_per_s.toFixed(1)} vs ${one.polls_per_s.toFixed(1)} polls/s`,
      result: many.polls_per_s <= one.polls_per_s * 1.25 + 0.5 ? "MET" : "NOT MET",
    },
    {
      target: `request-to-event p99 < 1 s on ${most.streams} streams (an upper bound of commit-to-event)`,
      value: `p50 ${most.latency_ms.p50.toFixed(0)} ms, p99 ${most.latency_ms.p99.toFixed(0)} ms, missed ${most.missed}`,
      result: most.latency_ms.p99 < 1000 && most.missed === 0 ? "MET" : "NOT MET",
    },
  ];
  return { reads, streams: rows, many, targets };
}

export function liveReport(out) {
  const r = out.reads;
  const lines = [
    "Live (issue 23): conditional reads, server time per request (pg_stat_statements, 20 warm runs)",
    ...[["tournament", "GET tournament"], ["registrations", "GET registrations (256)"], ["results_256", "GET results, 256 teams"]].map((
      [name, label],
    ) =>
      `  ${label.padEnd(24)} whole ${r[name].full_ms.toFixed(3)} ms (${r[name].full_bytes} bytes${
        r[name].kept_ms === null ? "" : `; ${r[name].kept_ms.toFixed(3)} ms as the instance keeps it`
      }), 304 ${r[name].not_modified_ms.toFixed(3)} ms (ratio ${r[name].ratio.toFixed(2)})`
    ),
    "Live: open streams on one 64-team tournament, one function instance",
    "  streams  open (ms)  polls/s idle  request-to-event p50 / p99 / max (ms)  after the response p50 / p99  missed",
    ...out.streams.map((s) =>
      `  ${String(s.streams).padStart(7)}  ${String(s.open_ms).padStart(9)}  ${s.polls_per_s.toFixed(1).padStart(12)}  ` +
      `${s.latency_ms.p50.toFixed(0).padStart(20)} / ${s.latency_ms.p99.toFixed(0)} / ${s.latency_ms.max.toFixed(0)}` +
      `${String(s.after_response_ms.p50.toFixed(0)).padStart(22)} / ${s.after_response_ms.p99.toFixed(0)}  ${s.missed}`
    ),
    `  ${out.many.streams} streams over ${out.many.tournaments} tournaments (8 teams each): ${
      out.many.polls_per_s.toFixed(1)
    } polls/s idle`,
  ];
  return lines.join("\n");
}
