// The rush hours of an event (issue 39), through the API as participants send them: each rush as
// fast as the machine takes it (CONCURRENCY requests in flight), with its throughput, p50/p99,
// statuses, the database's CPU and WAL per request, the function's peak RSS, and the exact outcome
// checked afterwards in the database.
// - (a) sign-up rush: 2,000 sign-ups (team, 5 players, registration) from 2,000 sign-up links
//   against 512 slots with the waitlist on: all answered within 30 s, p99 < 3 s; exactly 512
//   accepted and the other 1,488 waitlisted, in order (every accepted one registered before every
//   waitlisted one), no 5xx, no lost or doubled registration.
// - (b) check-in rush: 512 registration tokens checking in: p99 < 1 s; every check-in recorded.
// - (c) report rush: a 512-team round's 256 matches reported by both sides (registration tokens):
//   every confirmation applied within 2 s of its request, p99; every match decided once, as
//   reported, and the next round's matches holding their teams.
// - (d) the final: 1,000 open public streams and 50 public page loads a second (the HTML, then
//   the JSON view and the SVG, as the page's script asks them) while the final's games are
//   reported: request → event p99 < 1 s on every stream, page loads p99 < 500 ms, no 5xx. Then
//   again with the streams as open pages: each asks its JSON view and picture again after each
//   event, as page-script.ts does (2,000 requests an event), its answers judged as page loads.
import { api, KeyRing, send } from "./client.mjs";
import { openStream } from "./live.mjs";
import { nextAddress } from "./public.mjs";
import { latency, watch } from "./measure.mjs";
import { verdict } from "./report.mjs";
import * as seed from "./seed.mjs";

const CONCURRENCY = 32;
const SIGNUPS = 2000;
const SLOTS = 512;

/** Sends `requests` (each () => [method, path, body, key]) CONCURRENCY at a time; their answers, wall time and the machine's costs. */
async function rush(db, base, watched, requests) {
  const { rows: [{ lsn: before }] } = await db.query("select pg_current_wal_lsn() as lsn");
  const watcher = watch(watched);
  const answers = new Array(requests.length);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const [method, path, body, key] = requests[i]();
      const res = await send(base, key, method, path, body);
      answers[i] = { status: res.status, ms: res.ms, code: res.body?.error?.code ?? null, error: res.error ?? null };
    }
  }));
  const wallMs = performance.now() - t0;
  const costs = watcher.stop();
  const { rows: [{ wal }] } = await db.query("select pg_wal_lsn_diff(pg_current_wal_lsn(), $1)::float8 as wal", [before]);
  const statuses = {};
  for (const a of answers) {
    const k = a.status === null ? `no answer (${a.error})` : a.code ? `${a.status} ${a.code}` : String(a.status);
    statuses[k] = (statuses[k] ?? 0) + 1;
  }
  return {
    requests: requests.length,
    wall_s: wallMs / 1000,
    per_s: requests.length / (wallMs / 1000),
    ...latency(answers.map((a) => a.ms)),
    statuses,
    errors_5xx: answers.filter((a) => a.status === null || a.status >= 500).length,
    pg_cpu_ms_per_request: costs.pg_cpu_s === null ? null : (costs.pg_cpu_s * 1000) / requests.length,
    wal_bytes_per_request: wal / requests.length,
    fn_rss_peak_mb: costs.fn_rss_peak_mb,
  };
}

/** A tournament of the account in registration, inserted as the operator: `fields` its columns. */
async function tournament(db, accountId, tag, fields) {
  const { rows: [t] } = await db.query(
    `insert into app.tournaments (account_id, name, slug, game_id, format, format_options, team_size, max_teams,
                                  starts_at, registration_closes, waitlist, check_in_opens)
     values ($1, $2, $3, $4, 'single_elimination', app.format_options('single_elimination', '{}'), 5, $5,
             now() + interval '1 day', now() + interval '23 hours', $6, $7) returning id`,
    [
      accountId,
      `Bench rush ${tag}`,
      `bench-${seed.RUN}-rush-${tag}`,
      seed.GAMES[2],
      fields.max_teams,
      fields.waitlist ?? false,
      fields.check_in_opens ?? null,
    ],
  );
  return t.id;
}

/** One rush's figures in a line: wall, rate, p50/p99, statuses, costs a request. */
const describe = (r) =>
  `${r.wall_s.toFixed(1)} s (${r.per_s.toFixed(0)}/s), p50 ${r.median_ms.toFixed(0)} ms, p99 ${r.p99_ms.toFixed(0)} ms, ${
    JSON.stringify(r.statuses)
  }, Postgres CPU ${r.pg_cpu_ms_per_request?.toFixed(1)} ms and WAL ${
    (r.wal_bytes_per_request / 1024).toFixed(1)
  } KiB a request, function RSS peak ${r.fn_rss_peak_mb?.toFixed(0)} MB`;

/**
 * (c) A round ends: a 512-team single elimination with participant reporting, its 256 first-round
 * matches reported by one side each (in a shuffled order, as matches end), then confirmed by the
 * other, half by POST …/report/confirm and half by sending the same result (contract 18: both
 * confirm). Each match's confirmation is taken after its report has been answered (it comes 256
 * requests later, 32 in flight). The outcome is read back from the database.
 */
async function reportRush({ db, base, watched, account, teams, log }) {
  const keys = (await seed.createKeys(db, [account], 4, "rush report")).map((k) => k.key);
  const [id] = await seed.reportingBrackets(db, base, [new KeyRing(keys)], [account], teams.slice(0, SLOTS), 1, { tag: "rush-report" });
  const matches = await seed.readyMatches(db, [id]);
  const tokens = await seed.createTokens(
    db,
    matches.flatMap((m) => [{ tournament: id, registration: m.reg1 }, { tournament: id, registration: m.reg2 }]),
    "rush report",
  );
  // Match i: team1 wins 2–1 when i is even, team2 2–0 when odd; team1 reports when i % 4 < 2, else team2.
  const result = (i) => (i % 2 === 0 ? { team1_score: 2, team2_score: 1 } : { team1_score: 0, team2_score: 2 });
  const order = matches.map((_, i) => i).sort(() => Math.random() - 0.5);
  const reporter = (i) => tokens[2 * i + (i % 4 < 2 ? 0 : 1)].key;
  const other = (i) => tokens[2 * i + (i % 4 < 2 ? 1 : 0)].key;
  log(`rush (c): ${matches.length} reports, then their confirmations, ${CONCURRENCY} at a time…`);
  const reports = await rush(
    db,
    base,
    watched,
    order.map((i) => () => ["POST", `/participant/matches/${matches[i].match}/report`, result(i), reporter(i)]),
  );
  const confirmations = await rush(
    db,
    base,
    watched,
    order.map((i) => () =>
      i % 8 < 4
        ? ["POST", `/participant/matches/${matches[i].match}/report/confirm`, undefined, other(i)]
        : ["POST", `/participant/matches/${matches[i].match}/report`, result(i), other(i)]
    ),
  );
  const { rows: [c] } = await db.query(
    `select count(*) filter (where m.round = 1 and m.status = 'completed' and m.report_state = 'confirmed'
                               and m.winner_id = case when (x.i - 1) % 2 = 0 then m.team1_id else m.team2_id end)::int as decided_as_reported,
            count(*) filter (where m.round = 1)::int as first_round,
            count(*) filter (where m.round = 2 and m.team1_id is not null and m.team2_id is not null and m.status = 'ready')::int as second_round_ready,
            count(*) filter (where m.round > 2 and m.status <> 'pending')::int as later_not_pending
       from app.matches m
       left join unnest($2::uuid[]) with ordinality x(id, i) on x.id = m.id
      where m.tournament_id = $1`,
    [id, matches.map((m) => m.match)],
  );
  const outcome = { ...c };
  const ok = c.first_round === SLOTS / 2 && c.decided_as_reported === SLOTS / 2 && c.second_round_ready === SLOTS / 4 &&
    c.later_not_pending === 0;
  log(`rush (c): confirmations p99 ${confirmations.p99_ms.toFixed(0)} ms, ${JSON.stringify(outcome)}`);
  return { reports, confirmations, outcome, outcome_ok: ok };
}

const STREAMS = 1000;
const PAGE_LOADS_PER_S = 50;
const FINAL_GAMES = 4; // best of 5: team1 wins 3–1
const REFRESH_SPREAD_MS = 500; // functions/api/render/page-script.ts's

/**
 * (d) The final: a 16-team best-of-five single elimination, public, played up to its final
 * through the API; then 1,000 public streams opened (each from an address of its own) and page
 * loads started at 50 a second (each the page's HTML, then its JSON view and SVG in parallel, as
 * the page's script asks them), and the final's games reported one by one, 3 s apart. For each
 * game: from its request to its event on every stream.
 */
async function finalRush({ db, base, watched, account, teams, log, asPages }) {
  const keys = (await seed.createKeys(db, [account], 4, "rush final")).map((k) => k.key);
  const ring = new KeyRing(keys);
  const id = await seed.startBracket(db, base, await ring.take(), account, teams.slice(SLOTS, SLOTS + 16), {
    options: { best_of: 5 },
    tag: asPages ? "rush-final-pages" : "rush-final",
  });
  await api(base, await ring.take(), "PATCH", `/tournaments/${id}`, { visibility: "public" });
  await seed.reportRounds(base, ring, id, [1, 2, 3]);
  const { rows: [t] } = await db.query("select slug from app.tournaments where id = $1", [id]);
  const publicBase = `${base}/public/tournaments/${t.slug}`;
  const { matches } = await api(base, await ring.take(), "GET", `/tournaments/${id}/results`);
  const final = matches.find((m) => m.status === "ready");

  const statuses = {};
  const count = (status) => (statuses[status] = (statuses[status] ?? 0) + 1);
  const get = async (url, headers) => {
    try {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      count(res.status);
      return res.status;
    } catch (err) {
      count(`no answer (${err.message})`);
      return null;
    }
  };
  // An open page, on each event: its JSON view and its picture again, 100 ms plus a moment of its
  // own within REFRESH_SPREAD_MS later, as page-script.ts's stream listener does (then load()).
  const refreshes = [];
  const refresh = (headers) => () =>
    setTimeout(async () => {
      const t0 = performance.now();
      await Promise.all([get(publicBase, headers), get(`${publicBase}/bracket.svg`, headers)]);
      refreshes.push(performance.now() - t0);
    }, 100 + Math.floor(Math.random() * REFRESH_SPREAD_MS));

  log(`rush (d): opening ${STREAMS} public streams${asPages ? ", each an open page" : ""}…`);
  const streams = [];
  for (let i = 0; i < STREAMS; i += 50) {
    const batch = Array.from({ length: Math.min(50, STREAMS - i) }, () => {
      const headers = { "x-forwarded-for": nextAddress() };
      return openStream(`${publicBase}/stream`, headers, asPages ? refresh(headers) : null);
    });
    await Promise.all(batch.map((s) => s.ready));
    streams.push(...batch);
  }
  const watcher = watch(watched);
  const loads = [];
  const pageLoad = async () => {
    const headers = { "x-forwarded-for": nextAddress() };
    const t0 = performance.now();
    await get(`${publicBase}/page`, headers);
    await Promise.all([get(publicBase, headers), get(`${publicBase}/bracket.svg`, headers)]);
    loads.push(performance.now() - t0);
  };
  let loading = true;
  const pending = [];
  const pages = (async () => {
    const start = performance.now();
    for (let n = 0; loading; n++) {
      const due = start + (n * 1000) / PAGE_LOADS_PER_S;
      if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
      pending.push(pageLoad());
    }
  })();
  log(`rush (d): ${PAGE_LOADS_PER_S} page loads a second; the final's ${FINAL_GAMES} games, 3 s apart…`);
  const t0 = performance.now();
  const latencies = [];
  await new Promise((r) => setTimeout(r, 2000));
  for (let g = 1; g <= FINAL_GAMES; g++) {
    const sent = performance.now();
    const res = await send(base, await ring.take(), "PUT", `/tournaments/${id}/matches/${final.id}/games/${g}`, {
      team1_score: g === 2 ? 0 : 1,
      team2_score: g === 2 ? 1 : 0,
    });
    count(`game PUT ${res.status}`);
    if (res.status !== 200) {
      for (const _ of streams) latencies.push(Infinity); // not reported: no event to wait for
      continue;
    }
    const { version } = await api(base, await ring.take(), "GET", `/tournaments/${id}`);
    const deadline = performance.now() + 5000;
    while (streams.some((s) => !s.arrivals.has(version)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const s of streams) latencies.push(s.arrivals.has(version) ? s.arrivals.get(version) - sent : Infinity);
    await new Promise((r) => setTimeout(r, Math.max(0, sent + 3000 - performance.now())));
  }
  loading = false;
  await pages;
  await Promise.all(pending);
  while (asPages && refreshes.length < streams.length * FINAL_GAMES && performance.now() < t0 + 120_000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const wallS = (performance.now() - t0) / 1000;
  const costs = watcher.stop();
  for (const s of streams) s.close();
  const ev = [...latencies].sort((a, b) => a - b);
  const at = (q) => ev[Math.min(ev.length - 1, Math.ceil(q * ev.length) - 1)];
  const out = {
    streams: STREAMS,
    games: FINAL_GAMES,
    event: { p50: at(0.5), p99: at(0.99), max: ev.at(-1), missed: latencies.filter((x) => x === Infinity).length },
    as_pages: asPages,
    refreshes: asPages ? { ...latency(refreshes), expected: streams.length * FINAL_GAMES } : null,
    pages: {
      ...latency(loads),
      per_s: loads.length / wallS,
      statuses,
      errors_5xx: Object.entries(statuses).filter(([k]) => /(^| )5\d\d$/.test(k) || k.startsWith("no answer")).reduce(
        (n, [, v]) => n + v,
        0,
      ),
    },
    fn_rss_peak_mb: costs.fn_rss_peak_mb,
    cpu_s: { wall: wallS, fn: costs.fn_cpu_s, pg: costs.pg_cpu_s, machine: costs.machine_cpu_s },
  };
  log(
    `rush (d): request → event p99 ${out.event.p99.toFixed(0)} ms, missed ${out.event.missed}; page loads p99 ${
      out.pages.p99_ms.toFixed(0)
    } ms`,
  );
  return out;
}

/** (d)'s target line: the stream events and the page loads. */
const finalTarget = (f) => ({
  target: `(d) the final: ${f.streams} open public streams${
    f.as_pages ? " as open pages (each asks its JSON view and picture again after each event)" : ""
  } and ${PAGE_LOADS_PER_S} page loads a second while the final's games are reported: request → event p99 < 1 s on every stream, page loads p99 < 500 ms, no 5xx`,
  value: `request → event p50 ${f.event.p50.toFixed(0)} ms, p99 ${f.event.p99.toFixed(0)} ms, max ${
    f.event.max.toFixed(0)
  } ms over ${f.games} games, missed ${f.event.missed}; ${f.pages.runs} page loads (${f.pages.per_s.toFixed(0)}/s) p50 ${
    f.pages.median_ms.toFixed(0)
  } ms, p99 ${f.pages.p99_ms.toFixed(0)} ms; ${JSON.stringify(f.pages.statuses)}; function RSS peak ${
    f.fn_rss_peak_mb?.toFixed(0)
  } MB; CPU over ${f.cpu_s.wall.toFixed(1)} s: function ${f.cpu_s.fn?.toFixed(1)} s, Postgres ${f.cpu_s.pg?.toFixed(1)} s, machine ${
    f.cpu_s.machine?.toFixed(1)
  } s`,
  result: verdict(f.event.p99 < 1000 && f.event.missed === 0 && f.pages.p99_ms < 500 && f.pages.errors_5xx === 0),
});

/** (d)'s open pages: each one's refresh after an event, judged as a page load. */
const refreshTarget = (f) => ({
  target: `(d) the ${f.streams} open pages, each asking its JSON view and picture again within ${
    100 + REFRESH_SPREAD_MS
  } ms of each event (page-script.ts), answered p99 < 500 ms, every one`,
  value: `${f.refreshes.runs} of ${f.refreshes.expected} refreshes, p50 ${f.refreshes.median_ms?.toFixed(0)} ms, p99 ${
    f.refreshes.p99_ms?.toFixed(0)
  } ms, max ${f.refreshes.max_ms?.toFixed(0)} ms`,
  result: verdict(f.refreshes.runs === f.refreshes.expected && f.refreshes.p99_ms < 500),
});

export async function rushBench({ db, base, teams, watched, log }) {
  const t0 = performance.now();
  const [account] = await seed.createAccounts(db, 1, 1, { prefix: `Bench ${seed.RUN} rush account` });

  // (a) Sign-up rush.
  const signupId = await tournament(db, account, "signup", { max_teams: SLOTS, waitlist: true });
  const links = await seed.createTokens(
    db,
    Array.from({ length: SIGNUPS }, () => ({ tournament: signupId, registration: null })),
    "rush signup",
  );
  log(`rush (a): ${SIGNUPS} sign-ups against ${SLOTS} slots, ${CONCURRENCY} at a time…`);
  const signup = await rush(
    db,
    base,
    watched,
    links.map((k, n) => () => ["POST", "/participant/registrations", {
      team: { name: `Rush ${seed.RUN} ${n}`, tag: `R${n}` },
      lineup: Array.from(
        { length: 5 },
        (_, j) => ({ handle: `r${seed.RUN}_${n}_${j + 1}`, role: "player", ...(j === 0 ? { captain: true } : {}) }),
      ),
    }, k.key]),
  );
  const { rows: [a] } = await db.query(
    `select count(*)::int as total, count(*) filter (where state = 'accepted')::int as accepted,
            count(*) filter (where state = 'waitlisted')::int as waitlisted,
            coalesce(max(seq) filter (where state = 'accepted') < min(seq) filter (where state = 'waitlisted'), true) as in_order,
            count(distinct team_id)::int as teams
       from app.registrations where tournament_id = $1`,
    [signupId],
  );
  signup.outcome = a;
  signup.outcome_ok = a.total === SIGNUPS && a.accepted === SLOTS && a.waitlisted === SIGNUPS - SLOTS && a.in_order && a.teams === SIGNUPS;
  log(`rush (a): ${signup.per_s.toFixed(0)}/s, p99 ${signup.p99_ms.toFixed(0)} ms, ${JSON.stringify(a)}`);

  // (b) Check-in rush: 512 registrations (lineups of 5 copied from the teams' rosters are not needed: lineups off).
  const checkinId = await tournament(db, account, "checkin", {
    max_teams: SLOTS,
    check_in_opens: new Date(Date.now() - 60_000).toISOString(),
  });
  const { rows: regs } = await db.query(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.id, 'complete' from unnest($3::uuid[]) with ordinality u(id, i) order by i returning id`,
    [checkinId, account, teams.slice(0, SLOTS)],
  );
  const tokens = await seed.createTokens(db, regs.map((r) => ({ tournament: checkinId, registration: r.id })), "rush checkin");
  log(`rush (b): ${SLOTS} check-ins, ${CONCURRENCY} at a time…`);
  const checkin = await rush(
    db,
    base,
    watched,
    tokens.map((k) => () => ["PATCH", "/participant/registration", { checked_in: true }, k.key]),
  );
  const { rows: [b] } = await db.query(
    "select count(*) filter (where checked_in_at is not null)::int as checked_in, count(*)::int as total from app.registrations where tournament_id = $1",
    [checkinId],
  );
  checkin.outcome = b;
  checkin.outcome_ok = b.checked_in === SLOTS && b.total === SLOTS;
  log(`rush (b): ${checkin.per_s.toFixed(0)}/s, p99 ${checkin.p99_ms.toFixed(0)} ms, ${JSON.stringify(b)}`);

  const report = await reportRush({ db, base, watched, account, teams, log });
  const final = await finalRush({ db, base, watched, account, teams, log, asPages: false });
  const finalPages = await finalRush({ db, base, watched, account, teams: teams.slice(16), log, asPages: true });

  const out = { concurrency: CONCURRENCY, signup, checkin, report, final, final_pages: finalPages };
  out.targets = [
    {
      target:
        `(a) sign-up rush: ${SIGNUPS} sign-ups against ${SLOTS} slots (waitlist on), all answered within 30 s, p99 < 3 s, no 5xx, exactly ${SLOTS} accepted and the rest waitlisted in order`,
      value: `${signup.wall_s.toFixed(1)} s (${signup.per_s.toFixed(0)}/s), p50 ${signup.median_ms.toFixed(0)} ms, p99 ${
        signup.p99_ms.toFixed(0)
      } ms; ${JSON.stringify(signup.statuses)}; ${JSON.stringify(signup.outcome)}; Postgres CPU ${
        signup.pg_cpu_ms_per_request?.toFixed(1)
      } ms and WAL ${(signup.wal_bytes_per_request / 1024).toFixed(1)} KiB a request; function RSS peak ${
        signup.fn_rss_peak_mb?.toFixed(0)
      } MB`,
      result: verdict(signup.wall_s < 30 && signup.p99_ms < 3000 && signup.errors_5xx === 0 && signup.outcome_ok),
    },
    {
      target: `(b) check-in rush: ${SLOTS} registration tokens checking in, p99 < 1 s, no 5xx, every check-in recorded`,
      value: `${checkin.wall_s.toFixed(1)} s (${checkin.per_s.toFixed(0)}/s), p50 ${checkin.median_ms.toFixed(0)} ms, p99 ${
        checkin.p99_ms.toFixed(0)
      } ms; ${JSON.stringify(checkin.statuses)}; ${JSON.stringify(checkin.outcome)}; Postgres CPU ${
        checkin.pg_cpu_ms_per_request?.toFixed(1)
      } ms and WAL ${(checkin.wal_bytes_per_request / 1024).toFixed(1)} KiB a request; function RSS peak ${
        checkin.fn_rss_peak_mb?.toFixed(0)
      } MB`,
      result: verdict(checkin.p99_ms < 1000 && checkin.errors_5xx === 0 && checkin.outcome_ok),
    },
    {
      target: `(c) report rush: a ${SLOTS}-team round's ${
        SLOTS / 2
      } matches reported by both sides, every confirmation applied within 2 s (p99), no 5xx, every match decided once as reported`,
      value: `reports ${describe(report.reports)}; confirmations ${describe(report.confirmations)}; ${JSON.stringify(report.outcome)}`,
      result: verdict(
        report.confirmations.p99_ms < 2000 && report.reports.errors_5xx + report.confirmations.errors_5xx === 0 && report.outcome_ok,
      ),
    },
    finalTarget(final),
    finalTarget(finalPages),
    refreshTarget(finalPages),
  ];
  out.took_s = Math.round((performance.now() - t0) / 1000);
  return out;
}

export function rushReport(out) {
  const line = (name, r) =>
    `    ${name.padEnd(30)} ${r.requests} in ${r.wall_s.toFixed(1)} s (${r.per_s.toFixed(0)}/s)  p50 ${r.median_ms.toFixed(0)} ms  p99 ${
      r.p99_ms.toFixed(0)
    } ms  max ${r.max_ms.toFixed(0)} ms  ${JSON.stringify(r.statuses)}`;
  return [
    `Rush hours (issue 39), ${out.concurrency} requests in flight:`,
    line("(a) sign-ups, 512 slots", out.signup),
    line("(b) check-ins", out.checkin),
    line("(c) reports", out.report.reports),
    line("(c) confirmations", out.report.confirmations),
    ...[out.final, out.final_pages].map((f) =>
      `    (d) the final${
        f.as_pages ? ", open pages" : "            "
      }     ${f.streams} public streams, ${f.games} games: request → event p50 ${f.event.p50.toFixed(0)} / p99 ${
        f.event.p99.toFixed(0)
      } ms, missed ${f.event.missed}; ${f.pages.runs} page loads p50 ${f.pages.median_ms.toFixed(0)} / p99 ${f.pages.p99_ms.toFixed(0)} ms${
        f.refreshes
          ? `; ${f.refreshes.runs} refreshes p50 ${f.refreshes.median_ms?.toFixed(0)} / p99 ${f.refreshes.p99_ms?.toFixed(0)} ms`
          : ""
      }; ${JSON.stringify(f.pages.statuses)}`
    ),
  ].join("\n");
}
