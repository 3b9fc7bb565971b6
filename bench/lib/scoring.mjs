// Scoring (issue 37, contract section 19): what points, draws and tie-breakers cost, each as a
// ratio to a floor measured in the same run and in the same connection, one after another in
// rotation (the machine's drift falls on every side alike).
// - Standings of a 64-team round robin, every match decided (2,016, one in six drawn), through
//   GET …/stages/1 as the API runs it (app.get_stage): with all 8 tie-breakers ÷ the same
//   results with the default tie-breakers (≤ 1.3×); and the defaults ÷ a plain query floor, one
//   GROUP BY over the same matches that gives each team its points, ordered (information).
// - Drawing one round of a 1,024-team swiss: reporting the last result of round 1 (the draw of
//   round 2) and of round 4 (the draw of round 5), each in a transaction rolled back, several
//   times: median and p95 (< 50 ms each); the same with draws on (points 3/1/0, one in six
//   drawn), round 5, when the options take them.
// - The same costs of the small account alone and then beside an account 100× its size (its
//   tournaments copied 100 times, set-based: every match, entry and registration), ≤ 1.5× as
//   the project's rule for a neighbour (report.mjs MAX_SLOWDOWN).
import { api } from "./client.mjs";
import { latency } from "./measure.mjs";
import { MAX_SLOWDOWN } from "./report.mjs";
import * as seed from "./seed.mjs";

export const TIE_BREAKER_SLOWDOWN = 1.3;
export const SWISS_DRAW_MAX_MS = 50;
const RR_TEAMS = 64;
const SWISS_TEAMS = 1024;
const GROWTH = 100;
const STANDINGS_RUNS = 15; // per side and round of the rotation
const DRAW_RUNS = 20;

/** A round robin's result for the match at (round, position): one in six drawn, else one side by a spread of scores. */
const RESULT_SQL = `case when (m.round * 7 + m.position) % 6 = 0 and $2 then jsonb_build_object('team1_score', 1, 'team2_score', 1)
       when (m.round * 31 + m.position * 17) % 3 <> 0
         then jsonb_build_object('team1_score', 2 + m.position % 2, 'team2_score', m.round % 2)
       else jsonb_build_object('team1_score', m.round % 2, 'team2_score', 2 + m.position % 2) end`;

/** Reports every ready match of the current stage in one statement, as the operator (the operation the API runs). */
async function reportReady(db, id, { draws = false } = {}) {
  const { rows: [{ n }] } = await db.query(
    `select count(app.report_match(jsonb_build_object('tournament_id', m.tournament_id, 'match_id', m.id, 'body', ${RESULT_SQL})))::int as n
       from (select m.* from app.matches m join app.tournaments t on t.id = m.tournament_id
              where m.tournament_id = $1 and m.stage = t.stage and m.status = 'ready'
              order by m.round, m.position) m`,
    [id, draws],
  );
  return n;
}

/** Reports the ready matches of the current stage but the last `keep` (by round and position). */
async function reportAllBut(db, id, keep, draws) {
  const { rows: [{ n }] } = await db.query(
    `select count(*)::int as n from app.matches m join app.tournaments t on t.id = m.tournament_id
      where m.tournament_id = $1 and m.stage = t.stage and m.status = 'ready'`,
    [id],
  );
  const { rows: [{ done }] } = await db.query(
    `select count(app.report_match(jsonb_build_object('tournament_id', m.tournament_id, 'match_id', m.id, 'body', ${RESULT_SQL})))::int as done
       from (select m.* from app.matches m join app.tournaments t on t.id = m.tournament_id
              where m.tournament_id = $1 and m.stage = t.stage and m.status = 'ready'
              order by m.round, m.position limit $3) m`,
    [id, draws, n - keep],
  );
  return done;
}

/** A started tournament of `teams` (registered in order), its options as given; its id, or the API's refusal. */
async function started(db, base, key, account, teams, format, options, tag) {
  const id = await seed.startBracket(db, base, key, account, teams, { format, options, start: false, tag });
  await api(base, key, "PATCH", `/tournaments/${id}`, { status: "ongoing" }); // throws unless 200
  return id;
}

/** The floor: the plain query of a round robin's standings, one GROUP BY of its matches' points, ordered. */
const FLOOR_SQL = `select json_agg(s order by s.points desc, s.team_id)::text from (
   select x.team_id, sum(case when x.winner_id = x.team_id then 3 when x.winner_id is null then 1 else 0 end) as points
     from (select m.team1_id as team_id, m.winner_id from app.matches m where m.tournament_id = $1 and m.status = 'completed'
           union all
           select m.team2_id, m.winner_id from app.matches m where m.tournament_id = $1 and m.status = 'completed') x
    group by x.team_id) s`;

async function timed(db, sql, params) {
  const t0 = performance.now();
  await db.query(sql, params);
  return performance.now() - t0;
}

/** The standings' three sides, in rotation (floor, defaults, all 8; then the other way round), `rounds` times. */
async function standings(db, ids) {
  const sides = {
    floor: [FLOOR_SQL, [ids.defaults]],
    defaults: ["select app.get_stage(jsonb_build_object('tournament_id', $1::uuid, 'number', 1))::text", [ids.defaults]],
    all: ["select app.get_stage(jsonb_build_object('tournament_id', $1::uuid, 'number', 1))::text", [ids.all]],
  };
  const ms = { floor: [], defaults: [], all: [] };
  for (const side of Object.keys(sides)) await timed(db, ...sides[side]); // warm
  for (let round = 0; round < 4; round++) {
    const order = round % 2 === 0 ? ["floor", "defaults", "all"] : ["all", "defaults", "floor"];
    for (let i = 0; i < STANDINGS_RUNS; i++) for (const side of order) ms[side].push(await timed(db, ...sides[side]));
  }
  return Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, latency(v)]));
}

/**
 * The draw of the next round: the last ready result of the round reported in a transaction rolled
 * back, `DRAW_RUNS` times (after one not counted); inside each, the pairing alone again
 * (app.swiss_pairings of the same round, which reads only the rounds before it), when it exists.
 */
async function draws(db, id, floorId) {
  const { rows: [last] } = await db.query(
    `select m.id, m.round from app.matches m join app.tournaments t on t.id = m.tournament_id
      where m.tournament_id = $1 and m.stage = t.stage and m.status = 'ready' order by m.round desc, m.position desc`,
    [id],
  );
  const body = { team1_score: 2, team2_score: 1 };
  const ms = [];
  const pairing = [];
  const floor = [];
  let drawn = 0;
  for (let i = 0; i < DRAW_RUNS + 1; i++) {
    const f = await timed(db, FLOOR_SQL, [floorId]);
    if (i > 0) floor.push(f);
    await db.query("begin");
    try {
      const t0 = performance.now();
      await db.query("select app.report_match($1::jsonb)", [JSON.stringify({ tournament_id: id, match_id: last.id, body })]);
      const took = performance.now() - t0;
      ({ rows: [{ drawn }] } = await db.query(
        "select count(*)::int as drawn from app.matches where tournament_id = $1 and round = $2",
        [id, last.round + 1],
      ));
      await db.query("savepoint pairing");
      const pairs = await timed(db, "select count(*) from app.swiss_pairings((select t from app.tournaments t where t.id = $1), $2)", [
        id,
        last.round + 1,
      ]).catch(() => null);
      if (pairs === null) await db.query("rollback to savepoint pairing");
      if (i > 0) {
        ms.push(took);
        if (pairs !== null) pairing.push(pairs);
      }
    } finally {
      await db.query("rollback");
    }
  }
  return {
    round: last.round + 1,
    matches: drawn,
    ...latency(ms),
    pairing: pairing.length ? latency(pairing) : null,
    floor: latency(floor),
  };
}

/** Where a draw's time goes: one more report of the round's last result, rolled back, with track_functions = all (when the operator may set it). */
async function drawBreakdown(db, id) {
  const { rows: [last] } = await db.query(
    `select m.id from app.matches m join app.tournaments t on t.id = m.tournament_id
      where m.tournament_id = $1 and m.stage = t.stage and m.status = 'ready' order by m.round desc, m.position desc`,
    [id],
  );
  await db.query("begin");
  try {
    await db.query("set local track_functions = 'all'");
    const ms = await timed(db, "select app.report_match($1::jsonb)", [
      JSON.stringify({ tournament_id: id, match_id: last.id, body: { team1_score: 2, team2_score: 1 } }),
    ]);
    const { rows } = await db.query(
      `select schemaname || '.' || funcname as function, calls::int, total_time::float8 as total_ms, self_time::float8 as self_ms
         from pg_stat_xact_user_functions order by total_time desc limit 10`,
    );
    return { ms, functions: rows };
  } catch (err) {
    return { error: err.message };
  } finally {
    await db.query("rollback");
  }
}

/** Every measured cost of the account, once. */
async function costs(db, ids, log, when) {
  const out = { standings: await standings(db, ids.rr) };
  log(
    `scoring [${when}]: standings of a ${RR_TEAMS}-team round robin: floor ${out.standings.floor.median_ms.toFixed(2)} ms, defaults ` +
      `${out.standings.defaults.median_ms.toFixed(2)} ms, all 8 tie-breakers ${out.standings.all.median_ms.toFixed(2)} ms (medians)`,
  );
  out.draws = {};
  for (const [name, id] of Object.entries(ids.swiss)) {
    if (!id) continue;
    out.draws[name] = await draws(db, id, ids.rr.defaults);
    const d = out.draws[name];
    log(
      `scoring [${when}]: swiss ${name}: the draw of round ${d.round} (${d.matches} matches): median ${d.median_ms.toFixed(1)} ms, p95 ${
        d.p95_ms.toFixed(1)
      } ms`,
    );
  }
  return out;
}

/** Copies every tournament of `from` (with its registrations, stages, entries and matches) `times` times into account `to`, set-based. */
async function copyAccount(db, from, to, times) {
  const cols = async (table, skip) => {
    const { rows } = await db.query(
      `select column_name as c from information_schema.columns
        where table_schema = 'app' and table_name = $1 and is_generated = 'NEVER' and identity_generation is null
        order by ordinal_position`,
      [table],
    );
    return rows.map((r) => r.c).filter((c) => !skip.includes(c));
  };
  const list = (cs, prefix) => cs.map((c) => `${prefix}${c}`).join(", ");
  await db.query("begin");
  try {
    if ((await db.query("select rolsuper from pg_roles where rolname = current_user")).rows[0].rolsuper) {
      await db.query("set local session_replication_role = replica"); // exact copies: no trigger to run (versions, events, seeds copied as they are)
    }
    await db.query(
      `create temp table copies on commit drop as
         select t.id as src, g, gen_random_uuid() as id from app.tournaments t, generate_series(1, $2::int) g where t.account_id = $1`,
      [from, times],
    );
    const t = await cols("tournaments", ["id", "account_id", "slug"]);
    await db.query(
      `insert into app.tournaments (id, account_id, slug, ${list(t, "")})
       select c.id, $1, s.slug || '-copy-' || c.g, ${list(t, "s.")} from copies c join app.tournaments s on s.id = c.src`,
      [to],
    );
    const r = await cols("registrations", ["id", "tournament_id", "account_id"]);
    await db.query(
      `insert into app.registrations (tournament_id, account_id, ${list(r, "")})
       select c.id, $1, ${list(r, "s.")} from copies c join app.registrations s on s.tournament_id = c.src`,
      [to],
    );
    for (const table of ["stages", "stage_entries", "tournament_versions"]) {
      const cs = await cols(table, ["id", "tournament_id", "account_id"]);
      await db.query(
        `insert into app.${table} (tournament_id, account_id, ${list(cs, "")})
         select c.id, $1, ${list(cs, "s.")} from copies c join app.${table} s on s.tournament_id = c.src`,
        [to],
      );
    }
    const m = await cols("matches", ["id", "tournament_id", "account_id"]);
    await db.query(
      `insert into app.matches (tournament_id, account_id, ${list(m, "")})
       select c.id, $1, ${list(m, "s.")} from copies c join app.matches s on s.tournament_id = c.src`,
      [to],
    );
    await db.query("commit");
  } catch (err) {
    await db.query("rollback");
    throw err;
  }
  await db.query(
    "vacuum (analyze) app.tournaments, app.registrations, app.stages, app.stage_entries, app.matches, app.tournament_versions",
  );
  const { rows: [c] } = await db.query(
    `select count(*) filter (where t.account_id = $1)::int as small, count(*) filter (where t.account_id = $2)::int as large
       from app.matches m join app.tournaments t on t.id = m.tournament_id where t.account_id in ($1, $2)`,
    [from, to],
  );
  return c;
}

/** Removes every tournament of the account and what hangs from them, set-based (the copies' own rows). */
async function removeAccount(db, account) {
  await db.query("begin");
  try {
    if ((await db.query("select rolsuper from pg_roles where rolname = current_user")).rows[0].rolsuper) {
      await db.query("set local session_replication_role = replica");
    }
    for (const table of ["matches", "stage_entries", "stages", "registrations", "tournament_versions", "tournaments"]) {
      await db.query(`delete from app.${table} where account_id = $1`, [account]);
    }
    await db.query("commit");
  } catch (err) {
    await db.query("rollback");
    throw err;
  }
  await db.query(
    "vacuum (analyze) app.tournaments, app.registrations, app.stages, app.stage_entries, app.matches, app.tournament_versions",
  );
}

/** The figures; `teams`: at least 1,024 team ids. */
export async function scoringBench({ db, base, teams, log }) {
  const t0 = performance.now();
  const [small, large] = await seed.createAccounts(db, 2, 201);
  const [{ key }] = await seed.createKeys(db, [small], 1, "scoring");
  const out = { rr_teams: RR_TEAMS, swiss_teams: SWISS_TEAMS, growth: GROWTH, notes: [] };

  // (a) the round robins: the same results, with draws, the default tie-breakers and all 8.
  const rr = {};
  const rrTeams = teams.slice(0, RR_TEAMS);
  let rrDraws = true;
  rr.defaults = await started(db, base, key, small, rrTeams, "round_robin", { draws: true }, "scoring-defaults").catch((err) => {
    out.notes.push(`draws not accepted (${err.message}): no draw`);
    rrDraws = false;
    return started(db, base, key, small, rrTeams, "round_robin", {}, "scoring-plain");
  });
  // every criterion there is, in the database's order (app.tie_breakers())
  const { rows: [{ names }] } = await db.query("select to_jsonb(app.tie_breakers()) as names");
  rr.all = await started(db, base, key, small, rrTeams, "round_robin", { draws: rrDraws, tie_breakers: names }, "scoring-all")
    .catch((err) => {
      out.notes.push(`all 8 tie-breakers not accepted (${err.message}): the defaults measured on both sides`);
      return null;
    });
  rr.all ??= rr.defaults;
  for (const id of new Set(Object.values(rr))) {
    const n = await reportReady(db, id, { draws: rrDraws });
    log(`scoring: ${n} results of a ${RR_TEAMS}-team round robin reported`);
  }
  const { rows: [rrCount] } = await db.query(
    `select count(*)::int as matches, count(*) filter (where status = 'completed' and winner_id is null)::int as drawn
       from app.matches where tournament_id = $1`,
    [rr.defaults],
  );
  out.rr = rrCount;

  // (b) the swiss: parked before the draws of round 2 and of round 5 (and with draws on, round 5).
  const swiss = { round2: null, round5: null, draws_round5: null };
  const swissTeams = teams.slice(0, SWISS_TEAMS);
  const park = async (name, options, before, withDraws) => {
    try {
      const id = await started(db, base, key, small, swissTeams, "swiss", options, `scoring-${name}`);
      for (let round = 1; round < before - 1; round++) await reportReady(db, id, { draws: withDraws });
      await reportAllBut(db, id, 1, withDraws);
      swiss[name] = id;
    } catch (err) {
      out.notes.push(`swiss ${name} not measured: ${err.message}`);
    }
  };
  await park("round2", {}, 2, false);
  await park("round5", {}, 5, false);
  await park("draws_round5", { draws: true }, 5, true);
  await db.query("vacuum (analyze) app.tournaments, app.registrations, app.stages, app.stage_entries, app.matches");
  const ids = { rr, swiss };
  log(`scoring: seeded in ${Math.round(performance.now() - t0)} ms`);

  out.alone = await costs(db, ids, log, "alone");
  log(`scoring: copying the account's tournaments ${GROWTH} times into another account…`);
  const g0 = performance.now();
  out.matches = await copyAccount(db, small, large, GROWTH);
  out.copy_ms = Math.round(performance.now() - g0);
  log(`scoring: ${out.matches.small} matches in the small account, ${out.matches.large} in the large one (${out.copy_ms} ms)`);
  out.beside = await costs(db, ids, log, `beside ${GROWTH}×`);
  out.breakdown = await drawBreakdown(db, swiss.round5 ?? swiss.round2);
  log("scoring: removing the large account's copies, then alone again (the machine's drift between the two sides)…");
  await removeAccount(db, large);
  out.again = await costs(db, ids, log, "alone again");

  const a = out.alone;
  const ratio = (x, y) => x / y;
  out.tie_breakers = {
    all_over_defaults: ratio(a.standings.all.median_ms, a.standings.defaults.median_ms),
    defaults_over_floor: ratio(a.standings.defaults.median_ms, a.standings.floor.median_ms),
    // Beside the large account, over its own floor again.
    all_over_defaults_beside: ratio(out.beside.standings.all.median_ms, out.beside.standings.defaults.median_ms),
  };
  // Alone → beside → alone again: beside ÷ the mean of the two alone, the medians as they are
  // (judged: the two alone sides bound the machine's drift), and each over the plain floor
  // measured next to it (information: a floor of a few ms moves with the machine's load unlike
  // costs of 20-300 ms).
  const neighbour = (cost, floor) => {
    const over = (c) => cost(c) / floor(c);
    return {
      raw: ratio(cost(out.beside), (cost(a) + cost(out.again)) / 2),
      over_floor: ratio(over(out.beside), (over(a) + over(out.again)) / 2),
      drift: ratio(cost(out.again), cost(a)),
    };
  };
  const standingsFloor = (c) => c.standings.floor.median_ms;
  out.neighbour = {
    standings_defaults: neighbour((c) => c.standings.defaults.median_ms, standingsFloor),
    standings_all: neighbour((c) => c.standings.all.median_ms, standingsFloor),
    ...Object.fromEntries(
      Object.keys(a.draws).map((k) => [`draw_${k}`, neighbour((c) => c.draws[k].median_ms, (c) => c.draws[k].floor.median_ms)]),
    ),
  };
  const verdict = (ok) => (ok ? "MET" : "NOT MET");
  const all8 = rr.all !== rr.defaults;
  out.targets = [
    {
      target:
        `standings of a ${RR_TEAMS}-team round robin (${out.rr.matches} matches, ${out.rr.drawn} drawn): all 8 tie-breakers ÷ the defaults ≤ ${TIE_BREAKER_SLOWDOWN}×`,
      value: all8
        ? `${out.tie_breakers.all_over_defaults.toFixed(2)}× (${a.standings.all.median_ms.toFixed(2)} ÷ ${
          a.standings.defaults.median_ms.toFixed(2)
        } ms, medians; beside the large account ${out.tie_breakers.all_over_defaults_beside.toFixed(2)}×)`
        : "not measured (all 8 tie-breakers not accepted)",
      result: all8 ? verdict(out.tie_breakers.all_over_defaults <= TIE_BREAKER_SLOWDOWN) : "–",
    },
    {
      target: "the defaults ÷ a plain query floor (one GROUP BY of the same matches' points; information)",
      value: `${out.tie_breakers.defaults_over_floor.toFixed(2)}× (${a.standings.defaults.median_ms.toFixed(2)} ÷ ${
        a.standings.floor.median_ms.toFixed(2)
      } ms)`,
      result: "–",
    },
    ...Object.entries(a.draws).flatMap(([name, d]) => {
      const b = out.beside.draws[name];
      return [{
        target: `the draw of round ${d.round} of a ${SWISS_TEAMS}-team swiss${
          name.startsWith("draws") ? " with draws (3/1/0)" : ""
        } < ${SWISS_DRAW_MAX_MS} ms (the report of the round's last result, rolled back; p95)`,
        value: `median ${d.median_ms.toFixed(1)} ms, p95 ${d.p95_ms.toFixed(1)} ms alone; median ${b.median_ms.toFixed(1)}, p95 ${
          b.p95_ms.toFixed(1)
        } beside`,
        result: verdict(Math.max(d.p95_ms, b.p95_ms) < SWISS_DRAW_MAX_MS),
      }];
    }),
    ...Object.entries(out.neighbour).map(([k, v]) => ({
      target: `neighbour: ${
        k.replaceAll("_", " ")
      } beside an account ${GROWTH}× the size ÷ alone (the mean of before and after), medians ≤ ${MAX_SLOWDOWN}×`,
      value: `${v.raw.toFixed(2)}× (over the floor ${v.over_floor.toFixed(2)}×; alone again ÷ alone ${v.drift.toFixed(2)}×)`,
      result: verdict(v.raw <= MAX_SLOWDOWN),
    })),
  ];
  out.took_s = Math.round((performance.now() - t0) / 1000);
  return out;
}

export function scoringReport(out) {
  const line = (name, s) =>
    `    ${name.padEnd(44)} median ${s.median_ms.toFixed(2).padStart(7)} ms  p95 ${s.p95_ms.toFixed(2).padStart(7)} ms  (${s.runs} runs)`;
  const side = (label, c) => [
    `  ${label}`,
    line("floor: plain GROUP BY of the points", c.standings.floor),
    line("standings, default tie-breakers", c.standings.defaults),
    line("standings, all 8 tie-breakers", c.standings.all),
    ...Object.entries(c.draws).flatMap(([k, d]) => [
      line(`swiss ${k}: draw of round ${d.round} (${d.matches} matches)`, d),
      line("  its floor (the plain query, before each)", d.floor),
      ...(d.pairing ? [line("  of which the pairing (app.swiss_pairings)", d.pairing)] : []),
    ]),
  ];
  return [
    `Scoring (issue 37): a ${out.rr_teams}-team round robin (${out.rr.matches} matches, ${out.rr.drawn} drawn) and ${out.swiss_teams}-team swiss draws; ` +
    `the account alone (${out.matches.small} matches), then beside one ${out.growth}× its size (${out.matches.large} matches, copied in ${out.copy_ms} ms)`,
    ...side("alone", out.alone),
    ...side(`beside ${out.growth}×`, out.beside),
    ...side("alone again (the copies removed)", out.again),
    ...(out.breakdown?.functions
      ? [
        `  where a draw's time goes (round 5, once more, track_functions = all; ${
          out.breakdown.ms.toFixed(1)
        } ms): total / self ms (calls)`,
        ...out.breakdown.functions.map((f) =>
          `    ${f.function.padEnd(44)} ${f.total_ms.toFixed(1).padStart(8)} / ${f.self_ms.toFixed(1).padStart(8)}  (${f.calls})`
        ),
      ]
      : [`  no breakdown: ${out.breakdown?.error}`]),
    ...out.notes.map((n) => `  note: ${n}`),
  ].join("\n");
}
