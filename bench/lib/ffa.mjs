// Free-for-all (issue 38, contract section 20): what a lobby's game report and a large stage's
// results cost.
// - Reports: 100-team free-for-all rounds (5 lobbies of 20, 6 games each) reported game by game
//   through the API (PUT …/games/{n} {results}), each beside a duel's game PUT (game 1 of a best
//   of 9 in a 128-team single elimination, a fresh match each time), alternately, so the
//   machine's drift falls on both alike: the lobby's median and p95 ÷ the duel's (≤ 1.5× each).
// - Results: a 1,000-team stage (50 lobbies × 6 games, every game reported): the results built
//   on the server (app.tournament_results, the operation GET …/results runs, timed in one
//   connection as the operator, 15 runs): p95 < 50 ms; its standings alone (GET …/stages/1's
//   app.get_stage); and GET …/results through the API on the server (pg_stat_statements), which
//   after the first read answers from the version alone (the function keeps whole results).
// - Its picture: the SVG drawn from its view in the function's runtime (bench/pictures.ts under
//   Deno, the route's own code), CPU per picture, median of 10: < 250 ms; the PNG apart.
import { api, KeyRing, send } from "./client.mjs";
import { drawPictures } from "./public.mjs";
import { latency, timeServer } from "./measure.mjs";
import { verdict } from "./report.mjs";
import * as seed from "./seed.mjs";

export const FFA_REPORT_SLOWDOWN = 1.5;
export const FFA_RESULTS_MAX_MS = 50;
export const FFA_SVG_MAX_MS = 250;
const ROUNDS = 3; // 100-team tournaments reported, one after another
const ROUND_TEAMS = 100;
const BIG_TEAMS = 1000;
const GAMES = 6;

/** A lobby's game: its teams in a random order, kills 0-9. */
function lobbyResults(lobby) {
  const ids = lobby.opponents.map((o) => o.team_id).sort(() => Math.random() - 0.5);
  return ids.map((team_id, i) => ({ team_id, placement: i + 1, kills: Math.floor(Math.random() * 10) }));
}

/** Reports every game of every lobby of a started ffa tournament in SQL, as the operator (app.change_game, the operation the API runs). */
async function reportAll(db, id, games) {
  for (let g = 1; g <= games; g++) {
    await db.query(
      `select count(app.change_game(jsonb_build_object('tournament_id', m.tournament_id, 'match_id', m.id, 'number', $2::int,
                'body', jsonb_build_object('results', (
                  select jsonb_agg(jsonb_build_object('team_id', o ->> 'team_id', 'placement', o.i, 'kills', (o.i * 7 + $2) % 6))
                    from (select o, row_number() over (order by md5((o ->> 'team_id') || $2)) as i
                            from jsonb_array_elements(m.opponents) o) o)))))
         from (select m.* from app.matches m where m.tournament_id = $1 order by m.position) m`,
      [id, g],
    );
  }
}

export async function ffaBench({ db, view, base, teams, log }) {
  const t0 = performance.now();
  const [account] = await seed.createAccounts(db, 1, 1, { prefix: `Bench ${seed.RUN} ffa account` });
  const keys = await seed.createKeys(db, [account], 6, "ffa");
  const ring = new KeyRing(keys.map((k) => k.key), { onWait: () => {} });
  const key = keys[0].key;

  // Duels: fresh ready best-of-9 matches, one per lobby report.
  const duels = [];
  for (let b = 0; duels.length < ROUNDS * 5 * GAMES; b++) {
    const id = await seed.startBracket(db, base, await ring.take(), account, teams.slice(0, 128), {
      options: { best_of: 9 },
      tag: `ffa-duel-${b}`,
    });
    const { matches } = await api(base, await ring.take(), "GET", `/tournaments/${id}/results`);
    for (const m of matches) if (m.status === "ready") duels.push({ id, match: m.id });
  }
  const lobbyMs = [];
  const duelMs = [];
  const failures = [];
  let d = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const id = await seed.startBracket(db, base, await ring.take(), account, teams.slice(r * 7, r * 7 + ROUND_TEAMS), {
      format: "ffa",
      options: { lobby_size: 20, games: GAMES },
      tag: `ffa-round-${r}`,
    });
    const { matches: lobbies } = await api(base, await ring.take(), "GET", `/tournaments/${id}/results`);
    for (let g = 1; g <= GAMES; g++) {
      for (const lobby of lobbies) {
        const res = await send(base, await ring.take(), "PUT", `/tournaments/${id}/matches/${lobby.id}/games/${g}`, {
          results: lobbyResults(lobby),
        });
        if (res.status !== 200) failures.push(`lobby ${res.status} ${res.text?.slice(0, 120)}`);
        lobbyMs.push(res.ms);
        const duel = duels[d++];
        const dres = await send(base, await ring.take(), "PUT", `/tournaments/${duel.id}/matches/${duel.match}/games/1`, {
          team1_score: 13,
          team2_score: 9,
        });
        if (dres.status !== 200) failures.push(`duel ${dres.status} ${dres.text?.slice(0, 120)}`);
        duelMs.push(dres.ms);
      }
    }
  }
  const lobby = latency(lobbyMs);
  const duel = latency(duelMs);
  log(`ffa: a lobby's game PUT median ${lobby.median_ms.toFixed(1)} ms, a duel's ${duel.median_ms.toFixed(1)} ms`);

  // A 1,000-team stage: 50 lobbies × 6 games, all reported; its results read through the API, timed on the server.
  const big = await seed.startBracket(db, base, key, account, teams.slice(0, BIG_TEAMS), {
    format: "ffa",
    options: { lobby_size: 20, games: GAMES },
    tag: "ffa-1000",
  });
  const tr = performance.now();
  await reportAll(db, big, GAMES);
  const reportedIn = Math.round(performance.now() - tr);
  await db.query("analyze app.matches");
  const build = async (sql) => {
    const ms = [];
    for (let i = 0; i < 16; i++) {
      const t = performance.now();
      await db.query(sql, [big]);
      if (i > 0) ms.push(performance.now() - t);
    }
    return latency(ms);
  };
  const built = await build("select length(app.tournament_results(jsonb_build_object('tournament_id', $1::uuid))::text)");
  const standingsBuilt = await build("select length(app.get_stage(jsonb_build_object('tournament_id', $1::uuid, 'number', 1))::text)");
  const results = await timeServer(db, view, async () => {
    const res = await send(base, await ring.take(), "GET", `/tournaments/${big}/results`);
    if (res.status !== 200) throw new Error(`results: ${res.status}`);
    return res.text.length;
  }, 20);
  const { rows: [{ doc }] } = await db.query("select app.public_view($1)::text as doc", [big]);
  const pictures = drawPictures(doc, "ffa");
  log(`ffa: results of a ${BIG_TEAMS}-team stage built in ${built.median_ms.toFixed(1)} ms (${results.response_bytes} bytes)`);

  const out = {
    rounds: ROUNDS,
    lobby,
    duel,
    failures,
    big: {
      teams: BIG_TEAMS,
      lobbies: BIG_TEAMS / 20,
      games: GAMES,
      reported_in_ms: reportedIn,
      built,
      standings_built: standingsBuilt,
      results,
      pictures,
    },
  };
  out.targets = [
    {
      target:
        `a lobby's game PUT (${ROUND_TEAMS} teams, 5 lobbies × ${GAMES} games, ${lobby.runs} reports) ÷ a duel's game PUT, median and p95 ≤ ${FFA_REPORT_SLOWDOWN}×`,
      value: `median ${(lobby.median_ms / duel.median_ms).toFixed(2)}× (${lobby.median_ms.toFixed(1)} ÷ ${
        duel.median_ms.toFixed(1)
      } ms), p95 ${(lobby.p95_ms / duel.p95_ms).toFixed(2)}× (${lobby.p95_ms.toFixed(1)} ÷ ${duel.p95_ms.toFixed(1)} ms)${
        failures.length ? `; ${failures.length} failed` : ""
      }`,
      result: verdict(
        failures.length === 0 && Math.max(lobby.median_ms / duel.median_ms, lobby.p95_ms / duel.p95_ms) <= FFA_REPORT_SLOWDOWN,
      ),
    },
    {
      target: `results of a ${BIG_TEAMS}-team ffa stage (${
        BIG_TEAMS / 20
      } lobbies × ${GAMES} games) built < ${FFA_RESULTS_MAX_MS} ms on the server (p95)`,
      value: `median ${built.median_ms.toFixed(1)} ms, p95 ${built.p95_ms.toFixed(1)} ms (${
        Math.round(results.response_bytes / 1024)
      } KB); standings alone ${standingsBuilt.median_ms.toFixed(1)} ms; GET …/results through the API ${
        results.warm_mean_ms.toFixed(1)
      } ms on the server (kept by version after the first)`,
      result: verdict(built.p95_ms < FFA_RESULTS_MAX_MS),
    },
    {
      target:
        `SVG of the ${BIG_TEAMS}-team ffa stage < ${FFA_SVG_MAX_MS} ms of CPU in the function (median of 10; the view parsed, drawn and encoded)`,
      value: `${pictures.svg.median_cpu_ms.toFixed(0)} ms (max ${pictures.svg.max_cpu_ms.toFixed(0)}; ${
        (pictures.svg.bytes / 1024).toFixed(0)
      } KiB); PNG ${pictures.png.median_cpu_ms.toFixed(0)} ms (${pictures.png.clipped ?? "whole"})`,
      result: verdict(pictures.svg.median_cpu_ms < FFA_SVG_MAX_MS),
    },
  ];
  out.took_s = Math.round((performance.now() - t0) / 1000);
  return out;
}

export function ffaReport(out) {
  const line = (name, s) =>
    `    ${name.padEnd(44)} median ${s.median_ms.toFixed(2).padStart(7)} ms  p95 ${s.p95_ms.toFixed(2).padStart(7)} ms  (${s.runs} runs)`;
  return [
    `Free-for-all (issue 38): ${out.rounds} rounds of ${ROUND_TEAMS} teams reported game by game beside duels; a ${out.big.teams}-team stage`,
    line("a lobby's game PUT (20 teams)", out.lobby),
    line("a duel's game PUT (best of 9, game 1)", out.duel),
    line(`results of ${out.big.teams} teams built (app.tournament_results)`, out.big.built),
    line("its standings built (app.get_stage)", out.big.standings_built),
    `    ${"GET …/results through the API, on the server".padEnd(44)} ${
      out.big.results.warm_mean_ms.toFixed(2).padStart(7)
    } ms mean (kept by version), ${out.big.results.response_bytes} bytes (reported in SQL in ${out.big.reported_in_ms} ms)`,
    ...out.failures.slice(0, 5).map((f) => `  failed: ${f}`),
  ].join("\n");
}
