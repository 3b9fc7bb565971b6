// Bench and soak data, made as the operator (a superuser connection) with set-based SQL:
// accounts, teams, tournaments with mixed statuses, registrations, the tournaments the
// registration workloads fill, API keys, and real brackets (started through the API, as a
// client would). Written in terms of the tables' columns (app.tournaments, app.registrations,
// app.matches) and the operator's admin.* functions.
import crypto from "node:crypto";
import { api, KeyRing } from "./client.mjs";

/** Twenty game ids, so that tournaments spread over games as they would. */
export const GAMES = Array.from({ length: 20 }, (_, i) => `6f1c2b1a-3c4d-4e5f-8a9b-${String(i + 1).padStart(12, "0")}`);

/** A tag that keeps this run's slugs and names apart from any earlier run's (--url mode). */
export const RUN = crypto.randomBytes(4).toString("hex");

async function transaction(db, fn) {
  await db.query("begin");
  try {
    await fn();
    await db.query("commit");
  } catch (err) {
    await db.query("rollback");
    throw err;
  }
}

/** Accounts with API access on; returns their ids in order. */
export async function createAccounts(db, count, from = 1, { prefix = `Bench ${RUN} account` } = {}) {
  const { rows } = await db.query(
    `select id from (select i, admin.create_account($3 || ' ' || i) as id
                       from generate_series($1::int, $1::int + $2::int - 1) i) a order by i`,
    [from, count, prefix],
  );
  const ids = rows.map((r) => r.id);
  await db.query("select admin.set_api_access(id, true) from unnest($1::uuid[]) id", [ids]);
  return ids;
}

/** Platform teams; returns their ids in order. */
export async function createTeams(db, count, { prefix = `Bench ${RUN} team`, tag = "B" } = {}) {
  const { rows } = await db.query(
    `select id from (select i, admin.create_team($2 || ' ' || i, $3 || i) as id
                       from generate_series(1, $1::int) i) t order by i`,
    [count, prefix, tag],
  );
  return rows.map((r) => r.id);
}

/**
 * Tournaments numbered `from`..`from + count - 1`, spread round-robin over `accountIds`: half in
 * registration (opening in the next 90 days), a fifth ongoing, the rest completed, created
 * over the past year, over twenty games. `bulk` skips the foreign-key triggers (the account
 * ids are known to exist), which makes a million rows about a third faster.
 */
export async function createTournaments(db, accountIds, count, from = 1, { bulk = false } = {}) {
  await transaction(db, async () => {
    // Skipping the triggers needs a superuser (the throwaway stack's operator is one; a running
    // stack's `postgres` is not, as on Supabase: the seed then takes longer).
    if (bulk && (await db.query("select rolsuper from pg_roles where rolname = current_user")).rows[0].rolsuper) {
      await db.query("set local session_replication_role = replica");
    }
    await db.query(
      `insert into app.tournaments (account_id, name, slug, game_id, status, team_size, max_teams,
                                    entry_fee, prize_pool, starts_at, registration_closes, created_at, updated_at)
       select ($1::uuid[])[1 + n % cardinality($1::uuid[])], 'Bench Cup ' || n, 'bench-' || $4 || '-' || n,
              ($5::uuid[])[1 + h % 20], s.status, 1 + h / 20 % 5, (array[8, 16, 32, 64])[1 + h / 100 % 4],
              h / 400 % 3 * 5, h / 1200 % 7 * 250, s.starts, s.starts - interval '1 hour', s.created, s.created
         from generate_series($2::int, $2::int + $3::int - 1) n,
              -- h: the top 16 bits of Knuth's multiplicative hash of n, so that an account's tournaments
              -- (every cardinality-th n) still mix statuses, games and sizes
              lateral (select n::bigint * 2654435761 % 4294967296 / 65536 as h) x,
              lateral (select case when h % 10 < 5 then 'registration' when h % 10 < 7 then 'ongoing'
                                   else 'completed' end as status,
                              now() - (n::bigint * 7919 % 525600) * interval '1 minute' as created) c,
              lateral (select c.status, c.created,
                              case c.status when 'registration' then now() + (1 + h % 90) * interval '1 day'
                                            when 'ongoing' then now() - (1 + h % 48) * interval '1 hour'
                                            else c.created + interval '7 days' end as starts) s`,
      [accountIds, from, count, RUN, GAMES],
    );
  });
}

/** 0–8 registrations (the first teams, in order) for each open tournament of this run so far. */
export async function createRegistrations(db, teamIds) {
  const { rowCount } = await db.query(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select t.id, t.account_id, tm.id, case when t.entry_fee = 0 then 'complete' else 'pending' end
       from app.tournaments t,
            lateral (select id from unnest($2::uuid[]) with ordinality u(id, i)
                      order by i limit abs(hashtext(t.slug)) % 9) tm
      where t.slug like 'bench-' || $1 || '-%' and t.status = 'registration'`,
    [RUN, teamIds.slice(0, 8)],
  );
  return rowCount;
}

/**
 * Room for `requests` registrations over the accounts: open tournaments for 1024 teams each,
 * which a registration workload fills with one fresh (tournament, team) pair per request.
 * Created two years ago, so that they stay off page 1 of the list. Returns ids by account.
 */
export async function createTargets(db, accountIds, requests, role, { substitutesMax = 0 } = {}) {
  const perAccount = Math.max(1, Math.ceil(requests / (accountIds.length * 1024)));
  const { rows } = await db.query(
    `insert into app.tournaments (account_id, name, slug, game_id, team_size, substitutes_max, max_teams, starts_at,
                                  registration_closes, created_at, updated_at)
     select a.id, 'Bench ' || $3 || ' ' || a.i || '.' || j, 'bench-' || $4 || '-' || $3 || '-' || a.i || '-' || j,
            $5::uuid, 5, $6::int, 1024, now() + interval '1 year', now() + interval '300 days',
            now() - interval '2 years', now() - interval '2 years'
       from unnest($1::uuid[]) with ordinality a(id, i), generate_series(1, $2::int) j
     returning account_id, id`,
    [accountIds, perAccount, role, RUN, GAMES[0], substitutesMax],
  );
  return accountIds.map((id) => rows.filter((r) => r.account_id === id).map((r) => r.id));
}

/** A roster of five players, a substitute and a coach (the first player captain), as issue 34 measures. */
export const ROSTER = ["player", "player", "player", "player", "player", "substitute", "coach"];

/**
 * Teams of one account (contract section 16), each with a roster of players of its own: for
 * each team `roster.length` new players of the account (handle, name, country), members in the
 * order of `roster` (its roles), the first captain. Set-based, as the operator. Returns the
 * team ids in order.
 */
export async function createRosterTeams(db, accountId, count, { roster = ROSTER, tag = "roster" } = {}) {
  let ids;
  await transaction(db, async () => {
    const { rows } = await db.query(
      `insert into app.teams (name, tag, account_id)
       select 'Bench ' || $4 || ' team ' || $3 || ' ' || i, 'R' || i, $1::uuid from generate_series(1, $2::int) i
       returning id, name`,
      [accountId, count, tag, RUN],
    );
    const byNumber = new Map(rows.map((r) => [Number(r.name.slice(r.name.lastIndexOf(" ") + 1)), r.id]));
    ids = Array.from({ length: count }, (_, i) => byNumber.get(i + 1));
    // Player j of team i; members inserted in (team, j) order, so that seq is the roster's order.
    await db.query(
      `with p as (
         insert into app.players (account_id, handle, name, country)
         select $1::uuid, 'b' || t.i || '_' || j, 'Bench player ' || t.i || '.' || j,
                (array['SE', 'DE', 'FR', 'US', 'BR', 'KR', 'PL'])[1 + (t.i + j) % 7]
           from unnest($2::uuid[]) with ordinality t(id, i), generate_series(1, cardinality($3::text[])) j
         returning id, handle)
       insert into app.team_members (team_id, player_id, account_id, role, captain)
       select t.id, p.id, $1::uuid, ($3::text[])[x.j], x.j = 1
         from p, lateral (select split_part(substr(p.handle, 2), '_', 1)::int as i, split_part(p.handle, '_', 2)::int as j) x,
              unnest($2::uuid[]) with ordinality t(id, i)
        where t.i = x.i
        order by x.i, x.j`,
      [accountId, ids, roster],
    );
  });
  return ids;
}

/**
 * Two tournaments of one account for the same teams (`teamIds`, registered in order; team_size
 * 5, substitutes_max 1, in registration): one whose registrations hold no lineup, one whose
 * registrations each hold a lineup taken from the team's roster: its players, and its
 * substitute on every other registration (5-6 players), numbered in roster order. Returns
 * {plain, lineups}: the two tournament ids.
 */
export async function lineupTournaments(db, accountId, teamIds, { tag = "lineups" } = {}) {
  const ids = {};
  await transaction(db, async () => {
    for (const kind of ["plain", "lineups"]) {
      const { rows: [t] } = await db.query(
        `insert into app.tournaments (account_id, name, slug, game_id, team_size, substitutes_max, max_teams, starts_at,
                                      registration_closes, created_at, updated_at)
         values ($1, $2, $3, $4, 5, 1, $5, now() + interval '1 year', now() + interval '300 days',
                 now() - interval '2 years', now() - interval '2 years') returning id`,
        [
          accountId,
          `Bench ${teamIds.length}-team ${tag} ${kind}`,
          `bench-${RUN}-${tag}-${kind}-${teamIds.length}`,
          GAMES[2],
          teamIds.length,
        ],
      );
      ids[kind] = t.id;
      await db.query(
        `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
         select $1, $2, u.id, 'complete' from unnest($3::uuid[]) with ordinality u(id, i) order by i`,
        [t.id, accountId, teamIds],
      );
    }
    await db.query(
      `insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle, country)
       select r.id, r.tournament_id, r.account_id, m.player_id, m.role, m.captain,
              row_number() over (partition by r.id order by m.seq), p.handle, p.country
         from app.registrations r
         join app.team_members m on m.team_id = r.team_id
         join app.players p on p.id = m.player_id
        where r.tournament_id = $1
          and (m.role = 'player' or (m.role = 'substitute' and r.seq % 2 = 0))`,
      [ids.lineups],
    );
  });
  await db.query("analyze app.registrations, app.lineup_entries, app.team_members, app.players");
  return ids;
}

/**
 * `count` keys (every scope unless `scopes`), spread round-robin over the accounts:
 * [{key, account}] where `account` is the index in `accountIds`.
 */
export async function createKeys(db, accountIds, count, name, { scopes = null } = {}) {
  const perAccount = Math.ceil(count / accountIds.length);
  const { rows } = await db.query(
    `select a.i - 1 as account, k.key
       from generate_series(1, $2::int) g, unnest($1::uuid[]) with ordinality a(id, i),
            admin.create_api_key(a.id, $3 || ' ' || g, coalesce($4, app.scopes())) k -- the name varies with g: one call per row
      order by g, a.i`,
    [accountIds, perAccount, `bench ${name}`, scopes],
  );
  return rows.slice(0, count).map((r) => ({ key: r.key, account: Number(r.account) }));
}

/** Up to `sample` random tournament ids of each account, by account (for GET by id). */
export async function sampleTournaments(db, accountIds, sample) {
  const { rows } = await db.query(
    `select a.id, array(select t.id from app.tournaments t where t.account_id = a.id
                         order by random() limit $2) as ids
       from unnest($1::uuid[]) a(id)`,
    [accountIds, sample],
  );
  const byId = new Map(rows.map((r) => [r.id, r.ids]));
  return accountIds.map((id) => byId.get(id));
}

/**
 * A tournament of `teamIds.length` teams (registered in order, so team i is seed i), started
 * through the API so that the bracket is the real one. Returns its id.
 */
export async function startBracket(
  db,
  base,
  key,
  accountId,
  teamIds,
  { format = "single_elimination", options = {}, start = true, tag = "major" } = {},
) {
  const { rows: [t] } = await db.query(
    `insert into app.tournaments (account_id, name, slug, game_id, format, format_options, team_size, max_teams,
                                  starts_at, registration_closes)
     values ($1, $2, $3, $4, $6, app.format_options($6, $7), 5, $5, now() + interval '30 days',
             now() + interval '29 days') returning id`,
    [
      accountId,
      `Bench ${teamIds.length}-team ${format} ${tag}`,
      `bench-${RUN}-${tag}-${format.replace("_", "-")}-${teamIds.length}`,
      GAMES[1],
      teamIds.length,
      format,
      JSON.stringify(options),
    ],
  );
  await db.query(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.id, 'complete' from unnest($3::uuid[]) with ordinality u(id, i) order by i`,
    [t.id, accountId, teamIds],
  );
  if (start) await api(base, key, "PATCH", `/tournaments/${t.id}`, { status: "ongoing" });
  return t.id;
}

/** Reports `count` ready matches through the API (team 1 wins 2–1); returns them. */
export async function reportSome(base, key, tournamentId, count) {
  const { matches } = await api(base, key, "GET", `/tournaments/${tournamentId}/results`);
  const ready = matches.filter((m) => m.status === "ready").slice(0, count);
  const done = [];
  for (const m of ready) {
    done.push(await api(base, key, "PATCH", `/tournaments/${tournamentId}/matches/${m.id}`, { team1_score: 2, team2_score: 1 }));
  }
  return done;
}

/**
 * Reports every ready match of the given rounds through the API (team 1 wins 3–1 or 3–2), a
 * few at a time, with keys paced under the limit: a bracket well under way, the way a client
 * gets there, whatever the operations are called inside the database.
 */
export async function reportRounds(base, ring, tournamentId, rounds, { parallel = 4 } = {}) {
  let reported = 0;
  for (const round of rounds) {
    const { matches } = await api(base, await ring.take(), "GET", `/tournaments/${tournamentId}/results`);
    const ready = matches.filter((m) => m.round === round && m.status === "ready");
    let next = 0;
    await Promise.all(Array.from({ length: parallel }, async () => {
      while (next < ready.length) {
        const m = ready[next++];
        await api(base, await ring.take(), "PATCH", `/tournaments/${tournamentId}/matches/${m.id}`, {
          team1_score: 3,
          team2_score: 1 + (m.position % 2),
        });
        reported++;
      }
    }));
  }
  return reported;
}

/** Deletes what this run made (--url mode): its accounts, with everything they own, and its teams. */
export async function removeRun(db) {
  await db.query("delete from app.accounts where name like $1", [`Bench ${RUN} account %`]);
  await db.query("delete from app.teams where name like $1", [`Bench ${RUN} team %`]);
}

/**
 * The data set, in three accounts: W (the workloads' account: `perAccount` tournaments,
 * registrations, the 256- and 1024-team brackets, the latter two rounds in), S (the small
 * account, `perAccount` tournaments) and B (the account that grows, `perAccount` tournaments to
 * start with), plus 1024 teams. Fills `data.teams` and `data.resultsId`.
 */
export async function scenario(db, base, data, { perAccount }) {
  const timings = {};
  const timed = async (name, fn) => {
    const t0 = performance.now();
    const out = await fn();
    timings[name] = Math.round(performance.now() - t0);
    return out;
  };
  const [w, s, b] = await timed("accounts", () => createAccounts(db, 3));
  data.teams = await timed("teams", () => createTeams(db, 1024));
  await timed("tournaments", async () => {
    await createTournaments(db, [w], perAccount, 1);
    await createTournaments(db, [s], perAccount, perAccount + 1);
    await createTournaments(db, [b], perAccount, 2 * perAccount + 1);
  });
  await timed("registrations", () => createRegistrations(db, data.teams));
  const [{ key }] = await createKeys(db, [w], 1, "seed");
  data.resultsId = await timed("bracket_256", () => startBracket(db, base, key, w, data.teams.slice(0, 256)));
  const reported = await reportSome(base, key, data.resultsId, 8);
  const major = await timed("bracket_1024", () => startBracket(db, base, key, w, data.teams));
  const keys = await createKeys(db, [w], 12, "seed reports");
  const ring = new KeyRing(keys.map((k) => k.key), { budget: 80 });
  await timed("report_1024", () => reportRounds(base, ring, major, [1, 2]));
  await timed("vacuum", () => db.query("vacuum (analyze) app.tournaments, app.registrations, app.matches, app.api_keys"));
  return { accounts: { w, s, b }, major, reported, timings, nextNumber: 3 * perAccount + 1 };
}

/**
 * Grows one account by `count` tournaments (numbered from `from`), set-based, then vacuums and
 * analyzes the table so that the plans see the new size. Returns the milliseconds each took.
 */
export async function grow(db, accountId, count, from) {
  const t0 = performance.now();
  const step = 250_000; // one transaction per quarter million rows: bounded memory for the sort of the indexes
  for (let done = 0; done < count; done += step) {
    await createTournaments(db, [accountId], Math.min(step, count - done), from + done, { bulk: true });
  }
  const t1 = performance.now();
  await db.query("vacuum (analyze) app.tournaments");
  return { insert_ms: Math.round(t1 - t0), vacuum_ms: Math.round(performance.now() - t1) };
}

/** How many tournaments each account holds: {id: n}. */
export async function countByAccount(db, accountIds) {
  const { rows } = await db.query(
    `select a.id, (select count(*) from app.tournaments t where t.account_id = a.id)::int as n
       from unnest($1::uuid[]) a(id)`,
    [accountIds],
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.n]));
}

/**
 * Plays a started best-of-three bracket map by map, pass after pass, in SQL through the same
 * operation the API runs (app.change_game): 13 v 3 for team1, 3 v 13 for team2, so 2-0 at even
 * positions and 2-1 at odd ones; 14 passes take a 1,024-team double elimination two thirds in.
 */
export async function playSeries(db, tournamentId, passes = 14) {
  const game = (n, t1) =>
    `app.change_game(jsonb_build_object('tournament_id', m.tournament_id, 'match_id', m.id,
    'number', ${n}, 'body', jsonb_build_object('team1_score', ${t1}, 'team2_score', 13 - ${t1} + 3, 'map', 'Map ${n}')))`;
  for (let pass = 0; pass < passes; pass++) {
    await db.query(
      `select count(${game(1, 13)}) from app.matches m
                     where m.tournament_id = $1 and m.status = 'ready' and m.games = '[]'`,
      [tournamentId],
    );
    await db.query(
      `select count(${game(2, "case when m.position % 2 = 0 then 13 else 3 end")}) from app.matches m
                     where m.tournament_id = $1 and m.status = 'ready' and jsonb_array_length(m.games) = 1`,
      [tournamentId],
    );
    await db.query(
      `select count(${game(3, 13)}) from app.matches m
                     where m.tournament_id = $1 and m.status = 'ready' and jsonb_array_length(m.games) = 2`,
      [tournamentId],
    );
  }
  await db.query("analyze app.matches, app.stage_entries");
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const base62 = (value, width) => {
  let out = "";
  for (let n = BigInt(value); n > 0n; n /= 62n) out = BASE62[Number(n % 62n)] + out;
  return out.padStart(width, "0");
};

/**
 * A participant token's plaintext as app.new_api_key('tpt_') makes it (functions/api/keys.ts):
 * `tpt_`, 32 random bytes in base62 (43 characters), the 6-character base62 CRC32 of what precedes.
 */
export function tokenPlaintext() {
  const body = "tpt_" + base62(BigInt("0x" + crypto.randomBytes(32).toString("hex")), 43);
  let crc = 0xffffffff;
  for (const b of Buffer.from(body, "utf8")) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return body + base62((crc ^ 0xffffffff) >>> 0, 6);
}

/** A registration token's scopes (app.create_registration_token's default); a sign-up token's. */
export const REGISTRATION_TOKEN_SCOPES = ["participant:check_in", "participant:lineup", "participant:report", "participant:withdraw"];
export const SIGNUP_TOKEN_SCOPES = ["participant:register"];

/**
 * Participant tokens (contract section 17) as rows of app.api_keys, in one insert as the operator,
 * the plaintexts made here: one per element of `specs` ({tournament, registration}; a null
 * registration is a sign-up token: participant:register, unlimited uses), in the tournament's
 * account; a registration token's scopes are `scopes` (all four unless given). Returns [{key,
 * account: 0, tournament, registration}] in the order of `specs`.
 */
export async function createTokens(db, specs, name, { scopes = REGISTRATION_TOKEN_SCOPES } = {}) {
  const keys = specs.map(() => tokenPlaintext());
  await db.query(
    `insert into app.api_keys (account_id, name, prefix, key_hash, scopes, tournament_id, registration_id)
     select t.account_id, $4 || ' ' || s.i, left(s.key, 12), sha256(convert_to(s.key, 'UTF8')),
            case when s.registration is null then $5::app.scope[] else $6::app.scope[] end, s.tournament, s.registration
       from unnest($1::text[], $2::uuid[], $3::uuid[]) with ordinality s(key, tournament, registration, i)
       join app.tournaments t on t.id = s.tournament`,
    [
      keys,
      specs.map((s) => s.tournament),
      specs.map((s) => s.registration ?? null),
      `bench ${name}`,
      SIGNUP_TOKEN_SCOPES,
      scopes,
    ],
  );
  return specs.map((s, i) => ({ key: keys[i], account: 0, tournament: s.tournament, registration: s.registration ?? null }));
}

/** Up to `sample` random registrations of the account's tournaments in registration: [{tournament, registration}]. */
export async function sampleRegistrations(db, accountId, sample) {
  const { rows } = await db.query(
    `select r.tournament_id as tournament, r.id as registration
       from app.registrations r join app.tournaments t on t.id = r.tournament_id and t.status = 'registration'
      where r.account_id = $1 order by random() limit $2`,
    [accountId, sample],
  );
  return rows;
}

/**
 * Reported results (contract section 18): `count` single eliminations of `teamIds.length` teams
 * each, with `participant_reporting: "confirm"` and `confirmMinutes`, over `accountIds` in turn,
 * inserted as the operator and then started through the API (PATCH status ongoing, `parallel` at
 * a time; `rings[i]` paces the keys of account i). A 512-team bracket has 256 ready first-round
 * matches. Bracket n (from 0) registers the teams in order from the (32 n)-th, wrapping around, so
 * that the same match of 16 consecutive brackets has 32 different teams: requests in flight together in
 * different tournaments do not all lock the same two teams' rows FOR KEY SHARE (the results'
 * foreign keys), as tournaments of different teams would not. Returns the ids in order.
 */
export async function reportingBrackets(
  db,
  base,
  rings,
  accountIds,
  teamIds,
  count,
  { tag = "reports", confirmMinutes = 1440, parallel = 4 } = {},
) {
  const { rows } = await db.query(
    `insert into app.tournaments (account_id, name, slug, game_id, format, format_options, team_size, max_teams, starts_at,
                                  registration_closes, participant_reporting, report_confirm_minutes)
     select ($1::uuid[])[1 + (i - 1) % cardinality($1::uuid[])], 'Bench ' || $3 || ' ' || i, 'bench-' || $4 || '-' || $3 || '-' || i,
            $5::uuid, 'single_elimination', app.format_options('single_elimination', '{}'), 5, $6::int,
            now() + interval '30 days', now() + interval '29 days', 'confirm', $7::int
       from generate_series(1, $2::int) i
     returning id, slug`,
    [accountIds, count, tag, RUN, GAMES[3], teamIds.length, confirmMinutes],
  );
  const byNumber = new Map(rows.map((r) => [Number(r.slug.slice(r.slug.lastIndexOf("-") + 1)), r.id]));
  const ids = Array.from({ length: count }, (_, i) => byNumber.get(i + 1));
  await db.query(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select t.id, t.account_id, u.id, 'complete'
       from unnest($1::uuid[]) with ordinality x(id, n) join app.tournaments t on t.id = x.id,
            unnest($2::uuid[]) with ordinality u(id, i)
      order by x.n, ((u.i - 1 - 32 * (x.n - 1)) % cardinality($2::uuid[]) + cardinality($2::uuid[])) % cardinality($2::uuid[])`,
    [ids, teamIds],
  );
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < ids.length) {
      const i = next++;
      const ring = rings[i % accountIds.length];
      await api(base, await ring.take(), "PATCH", `/tournaments/${ids[i]}`, { status: "ongoing" });
    }
  }));
  return ids;
}

/**
 * The ready matches of the tournaments (`perTournament` at most of each, the first by round and
 * position), tournament after tournament in the order given: [{tournament, match, account, reg1,
 * reg2}], reg1 and reg2 the registrations of team1 and team2.
 */
export async function readyMatches(db, tournamentIds, perTournament = 1 << 30) {
  const { rows } = await db.query(
    `select tournament, match, account, reg1, reg2 from (
       select m.tournament_id as tournament, m.id as match, m.account_id as account, r1.id as reg1, r2.id as reg2, x.n,
              m.round, m.position, row_number() over (partition by m.tournament_id order by m.round, m.position) as k
         from unnest($1::uuid[]) with ordinality x(id, n)
         join app.matches m on m.tournament_id = x.id and m.status = 'ready' and m.report_state is null
         join app.registrations r1 on r1.tournament_id = m.tournament_id and r1.team_id = m.team1_id
         join app.registrations r2 on r2.tournament_id = m.tournament_id and r2.team_id = m.team2_id) s
      where k <= $2
      order by n, round, position`,
    [tournamentIds, perTournament],
  );
  return rows;
}

/**
 * team1's report of each match ({tournament, match, reg1}), {team1_score: 2, team2_score: 0}, in
 * one statement as the operator through the operation the API runs (app.participant_report): each
 * awaits team2's confirmation until the tournament's report_confirm_minutes from now.
 */
export async function seedReports(db, matches) {
  const { rows: [{ n }] } = await db.query(
    `select count(app.participant_report(jsonb_build_object('tournament_id', s.tournament, 'registration_id', s.reg1,
              'match_id', s.match, 'body', jsonb_build_object('team1_score', 2, 'team2_score', 0))))::int as n
       from unnest($1::uuid[], $2::uuid[], $3::uuid[]) s(tournament, match, reg1)`,
    [matches.map((m) => m.tournament), matches.map((m) => m.match), matches.map((m) => m.reg1)],
  );
  return n;
}
