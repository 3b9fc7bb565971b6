// The rush hours of an event (issue 39), through the API as participants send them: each rush as
// fast as the machine takes it (CONCURRENCY requests in flight), with its throughput, p50/p99,
// statuses, the database's CPU and WAL per request, the function's peak RSS, and the exact outcome
// checked afterwards in the database.
// - (a) sign-up rush: 2,000 sign-ups (team, 5 players, registration) from 2,000 sign-up links
//   against 512 slots with the waitlist on: all answered within 30 s, p99 < 3 s; exactly 512
//   accepted and the other 1,488 waitlisted, in order (every accepted one registered before every
//   waitlisted one), no 5xx, no lost or doubled registration.
// - (b) check-in rush: 512 registration tokens checking in: p99 < 1 s; every check-in recorded.
// (c) the report rush and (d) the final's streams and page loads are still to come (issue 39).
import { send } from "./client.mjs";
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

  const out = { concurrency: CONCURRENCY, signup, checkin };
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
  ].join("\n");
}
