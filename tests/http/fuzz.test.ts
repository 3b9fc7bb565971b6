// Property-based fuzzing of every route (issue 6, part 2). Each run sends at least 10,000
// generated requests (FUZZ_REQUESTS) to the real function over raw HTTP: valid-ish and hostile
// paths, query strings, headers and bodies (see fuzz-requests.ts). Per request: no 5xx, a valid
// envelope (or the bodiless answer to OPTIONS and HEAD), the outcome the contract's order of
// checks predicts, nothing of another account and no key in the response. Per batch: a rejected
// request changes nothing in the database (a fingerprint of every row of the accounts involved,
// with each change attributed to an accepted request). FUZZ_SEED=<n> replays a run's requests.
// Every route is fuzzed, the participant routes (contract section 17) included: with participant
// tokens of every kind and standing (see PToken in fuzz-requests.ts), and every refused credential,
// an API key among them (a participant token is one of the refused credentials on the others).
import fs from "node:fs";
import http from "node:http";
import fc from "fast-check";
import { beforeAll, describe, expect, inject, it } from "vitest";
import {
  admin,
  ALL_SCOPES,
  apiUrl,
  caller,
  createAccount,
  createKey,
  createTeams,
  request,
  sql,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";
import {
  bodyVerdict,
  type Fixtures,
  type Key,
  materialize,
  type PlayerRole,
  type PToken,
  requestArb,
  routeOf,
  routes,
  type Spec,
  stageNumber,
  type TeamRole,
  type TournamentFx,
  type Wire,
} from "../support/fuzz-requests.ts";

// The oracle parses bodies with the routes' own schemas: like the test function (WEBHOOK_ALLOW_LOCAL=true), accept http:// webhook URLs.
webhookPolicy.allowLocal = true;

/** Nothing listens on port 9 of the loopback: a dispatcher's attempt there is refused at once (tests/webhooks/delivery.test.ts). */
const NOWHERE = "http://127.0.0.1:9/x";
const B_HOOK_URL = "http://127.0.0.1:9/bravo-secret-hook";
import type { Route } from "../../functions/api/route.ts";
import { webhookPolicy } from "../../functions/api/resources/webhooks.ts";
import { base62, crc32 } from "../../functions/api/keys.ts";
import { REGISTRATION_TOKEN_SCOPES } from "../../functions/api/contract.ts";

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const BATCH = 100;
const CONCURRENCY = 12;
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

/** The contract's error codes and their statuses (section 2), written out independently of errors.ts. */
const CONTRACT: Record<string, number> = {
  invalid_json: 400,
  validation_error: 400,
  unauthorized: 401,
  api_access_disabled: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  registration_closed: 409,
  tournament_full: 409,
  already_registered: 409,
  invalid_status_transition: 409,
  tournament_locked: 409,
  match_not_ready: 409,
  match_locked: 409,
  idempotency_conflict: 409,
  idempotency_mismatch: 422,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  // section 9
  team_not_owned: 403,
  team_in_use: 409,
  seed_taken: 409,
  check_in_closed: 409,
  // section 11
  webhook_limit_reached: 409,
  // section 12
  stage_tie: 409,
  // section 13
  series_decided: 409,
  // section 16
  external_id_taken: 409,
  player_in_use: 409,
  player_already_registered: 409,
  lineup_incomplete: 409,
  // section 17
  token_exhausted: 409,
};
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_IN_TEXT = /tmk_[0-9A-Za-z]{20,}/;
/** A participant token's plaintext (section 17): only the answers that mint one show it. */
const TOKEN_IN_TEXT = /tpt_[0-9A-Za-z]{20,}/;
const MINTING = ["tokens.create", "signup_tokens.create", "participant.signup"];
const B_GAME = "b0b0b0b0-0000-4000-8000-00000000b0b0";

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  error?: string;
}
interface Outcome {
  spec: Spec;
  wire: Wire;
  res: Res;
  expected: string[] | null;
  problems: string[];
}

// ---------------------------------------------------------------------------------------------
// fixtures

/**
 * A tournament made through the API: `teams` registrations (the first with `seeds`, the first
 * `checkIns` checked in), then optionally started and played (`reports` results, then `games`
 * matches decided by a game of their best of one).
 */
async function build(
  t: Tenant,
  teams: string[],
  name: string,
  count: number,
  {
    start = false,
    reports = 0,
    games = 0,
    complete = false,
    overrides = {} as Record<string, unknown>,
    seeds = [] as number[],
    checkIns = 0,
  } = {},
) {
  const { key } = await t.newKey();
  const call = (method: string, path: string, body?: unknown) => request(method, path, { key, body });
  const expectOk = (r: { status: number; text: string }) => {
    if (r.status >= 300) throw new Error(`fixture: ${r.text}`);
  };
  const created = await call("POST", "/tournaments", tournamentBody({ name, max_teams: 16, ...overrides }));
  if (created.status !== 201) throw new Error(`fixture: ${created.text}`);
  const id: string = created.body.data.id;
  const made: string[] = [];
  for (const team_id of teams.slice(0, count)) {
    const reg = await call("POST", `/tournaments/${id}/registrations`, { team_id });
    expectOk(reg);
    made.push(reg.body.data.id);
  }
  for (const [i, seed] of seeds.entries()) expectOk(await call("PATCH", `/tournaments/${id}/registrations/${made[i]}`, { seed }));
  for (const reg of made.slice(0, checkIns)) expectOk(await call("PATCH", `/tournaments/${id}/registrations/${reg}`, { checked_in: true }));
  if (start) expectOk(await call("PATCH", `/tournaments/${id}`, { status: "ongoing" }));
  for (let i = 0; i < reports; i++) {
    const [m] = await sql("select id from app.matches where tournament_id = $1 and status = 'ready' order by round, position limit 1", [
      id,
    ]);
    expectOk(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { team1_score: 2, team2_score: 1 }));
  }
  for (let i = 0; i < games; i++) {
    const [m] = await sql("select id from app.matches where tournament_id = $1 and status = 'ready' order by round, position limit 1", [
      id,
    ]);
    expectOk(await call("PUT", `/tournaments/${id}/matches/${m.id}/games/1`, { team1_score: 13, team2_score: 7, map: "Mirage" }));
  }
  if (complete) expectOk(await call("PATCH", `/tournaments/${id}`, { status: "completed" }));
  const regs = (await sql("select id from app.registrations where tournament_id = $1 order by seq", [id])).map((r) => r.id);
  const matches = (await sql("select id from app.matches where tournament_id = $1 order by round, position", [id])).map((r) => r.id);
  return { id, regs, matches };
}

/** Teams made through the API by an account: they are its own. */
async function ownTeams(t: Tenant, prefix: string, count: number): Promise<string[]> {
  const { key } = await t.newKey();
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const res = await request("POST", "/teams", {
      key,
      body: {
        name: `${prefix} ${i}`,
        tag: `${prefix.slice(0, 3).toUpperCase()}${i}`,
        ...(i % 2 ? { logo_url: `https://example.com/${i}.png` } : {}),
      },
    });
    if (res.status !== 201) throw new Error(`fixture: ${res.text}`);
    ids.push(res.body.data.id);
  }
  return ids;
}

/** Players made through the API by an account (its own, private to it). */
async function makePlayers(t: Tenant, prefix: string, count: number): Promise<string[]> {
  const { key } = await t.newKey();
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const slug = prefix.toLowerCase().replaceAll(" ", "-");
    const res = await request("POST", "/players", {
      key,
      body: { handle: `${prefix} ${i}`, external_id: `${slug}-${i}`, country: "SE", game_accounts: { steam: `${slug}-${i}` } },
    });
    if (res.status !== 201) throw new Error(`fixture: ${res.text}`);
    ids.push(res.body.data.id);
  }
  return ids;
}

/** Puts players on a team's roster: [player, role, captain?] in order. */
async function roster(t: Tenant, team: string, members: [string, string, boolean?][]): Promise<void> {
  const { key } = await t.newKey();
  for (const [player, role, captain = false] of members) {
    const res = await request("PUT", `/teams/${team}/players/${player}`, { key, body: { role, captain } });
    if (res.status !== 200) throw new Error(`fixture: ${res.text}`);
  }
}

async function fixtures(): Promise<Fixtures> {
  const teams = await createTeams(40, "Fuzz");
  const [a, b] = await Promise.all([tenant(), tenant()]);
  const past = new Date(Date.now() - 3_600_000).toISOString();
  const inTenDays = new Date(Date.now() + 10 * 86_400_000).toISOString();
  // The fuzz account's own teams (core: never deleted; inUse: in a started tournament; disposable),
  // and another account's (readable and registrable by all, writable by its account alone).
  const [[core, inUse, disposable], otherTeams] = await Promise.all([
    ownTeams(a, "Fuzz Own", 18).then((ids) => [ids.slice(0, 4), ids.slice(4, 6), ids.slice(6)]),
    ownTeams(b, "Other Org Team", 4),
  ]);
  // Its name is one of the secrets: no answer to the fuzz account may name the other account.
  await sql("update app.accounts set name = 'Bravo Secret Org' where id = $1", [b.accountId]);
  // Players (section 16). The fuzz account's: core ones (never deleted) on the rosters of its core
  // teams; in-use ones, a player and a substitute on each of its in-use teams, whose registrations
  // in started tournaments (Alpha Five, Alpha Lineups) copy them into lineups (DELETE: player_in_use
  // for good); disposable ones. Another account's, on the roster of one of its teams: never reachable.
  const [players, otherPlayers] = await Promise.all([
    (async () => {
      const p = {
        core: await makePlayers(a, "Fuzz Core", 6),
        inUse: await makePlayers(a, "Fuzz In Use", 4),
        disposable: await makePlayers(a, "Fuzz Spare", 10),
        created: [] as string[],
      };
      await roster(a, core[0], [[p.core[0], "player", true], [p.core[1], "player"], [p.core[2], "coach"]]);
      await roster(a, core[1], [[p.core[3], "player"], [p.core[4], "substitute", true], [p.core[5], "player"]]);
      await roster(a, inUse[0], [[p.inUse[0], "player", true], [p.inUse[1], "substitute"]]);
      await roster(a, inUse[1], [[p.inUse[2], "player"], [p.inUse[3], "substitute", true]]);
      return p;
    })(),
    makePlayers(b, "Bravo Secret Player", 3).then(async (ids) => {
      await roster(b, otherTeams[0], [[ids[0], "player", true], [ids[1], "substitute"]]);
      return ids;
    }),
  ]);
  const [aCore, aDisposable, bAll] = await Promise.all([
    Promise.all([
      build(a, [...disposable.slice(0, 2), ...teams], "Alpha Open", 3, { seeds: [1, 2] }),
      build(a, teams, "Alpha Big", 0, { overrides: { max_teams: 64 } }),
      build(a, [otherTeams[0], ...teams], "Alpha Paid", 2, { overrides: { entry_fee: 12.5, max_teams: 8 }, seeds: [2] }),
      build(a, teams, "Alpha Full", 2, { overrides: { max_teams: 2 }, seeds: [1, 2] }),
      build(a, teams, "Alpha Closed", 0, { overrides: { registration_closes: past } }),
      // cannot start before its check-in opens: seeds stay taken here
      build(a, [disposable[2], ...teams], "Alpha Check-in Later", 5, { overrides: { check_in_opens: inTenDays }, seeds: [1, 2, 3, 4] }),
      build(a, [core[0], disposable[3], ...teams], "Alpha Check-in Open", 4, {
        overrides: { check_in_opens: past },
        checkIns: 1,
        seeds: [3],
      }),
      build(a, [disposable[4], ...teams], "Alpha Seeded Start", 5, {
        overrides: { check_in_opens: past },
        seeds: [2, 1],
        checkIns: 4,
        start: true,
      }),
      build(a, teams, "Alpha Eight", 8, { start: true }).then((t) => ({ ...t, state: "started" as const })),
      // (matches with a game: a DELETE of the last game has something to take; six of its seven, so
      // that the DELETEs the run sends find one often enough for the route to accept some)
      build(a, teams, "Alpha Games", 8, { start: true, games: 6 }).then((t) => ({ ...t, state: "started" as const })),
      build(a, [...inUse, ...teams], "Alpha Five", 5, { start: true }).then((t) => ({ ...t, state: "started" as const })),
      // Section 16: lineups required, of one player and one substitute each (the in-use teams' rosters),
      // started: its match is where a game's lineups can be right.
      build(a, [...inUse, ...teams], "Alpha Lineups", 2, {
        start: true,
        overrides: { team_size: 1, substitutes_max: 1, lineups: "required" },
      }).then((t) => ({ ...t, state: "started" as const })),
      build(a, teams, "Alpha Final Played", 4, { start: true, reports: 3 }).then((t) => ({ ...t, state: "started" as const })),
      build(a, teams, "Alpha Done", 2, { start: true, reports: 1, complete: true }).then((t) => ({ ...t, state: "completed" as const })),
      // Stages (section 12). In registration: its stages cannot start, and PATCH may redefine them.
      build(a, teams, "Alpha Stages Open", 3, {
        overrides: {
          stages: [
            { name: "Groups", format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 1 } },
            { name: "Playoffs", format: "single_elimination" },
          ],
        },
      }),
      // Stage 1 being played (a round robin of 4), two stages after it.
      build(a, teams, "Alpha Stages Live", 4, {
        start: true,
        reports: 2,
        overrides: {
          stages: [
            { name: "Groups", format: "round_robin", advance: { per_group: 2 } },
            { name: "Semis", format: "single_elimination", advance: { top: 2 } },
            { name: "Final", format: "double_elimination" },
          ],
        },
      }).then((t) => ({ ...t, state: "started" as const })),
      // Stage 1 completed: stage 2 starts on the first PATCH .../stages/2 {"status": "ongoing"} that reaches it.
      build(a, teams, "Alpha Stages Ready", 2, {
        start: true,
        reports: 1,
        overrides: {
          stages: [
            { name: "Groups", format: "round_robin", advance: { per_group: 2 } },
            { name: "Final", format: "single_elimination" },
          ],
        },
      }).then((t) => ({ ...t, state: "started" as const })),
      // Stage 1 completed with a tie at the cut (top 3 after single elimination without a third-place
      // match): stage 2 starts only with `advancing`, exactly 3 of its 4 teams (409 stage_tie without).
      build(a, teams, "Alpha Stages Tie", 4, {
        start: true,
        reports: 3,
        overrides: {
          stages: [
            { name: "Bracket", format: "single_elimination", advance: { top: 3 } },
            { name: "Pool", format: "round_robin" },
          ],
        },
      }).then((t) => ({ ...t, state: "started" as const })),
    ]),
    Promise.all([
      build(a, teams, "Alpha Spare 1", 0),
      build(a, teams, "Alpha Spare 2", 2),
      build(a, teams, "Alpha Spare 3", 2, { start: true }),
      build(a, teams, "Alpha Spare 4", 3, { start: true, reports: 1 }),
    ]),
    Promise.all([
      build(b, teams, "Bravo Secret Cup", 2, { overrides: { game_id: B_GAME } }),
      build(b, teams, "Bravo Secret Cup", 4, { start: true, reports: 1, overrides: { game_id: B_GAME } }),
    ]),
  ]);
  // Keys for the fuzz account: many with every scope (100 requests per key per minute), and for
  // each scope three lacking it and three holding only it; plus keys that must be refused.
  const fullCount = Math.ceil(REQUESTS / 80) + 30;
  const full = await sql<Key>(
    `select k.id, k.key, $3::text[] scopes from generate_series(1, $2) i,
            lateral admin.create_api_key($1, 'fuzz ' || i, $3) k`,
    [a.accountId, fullCount, ALL_SCOPES],
  );
  const limited: Key[] = [];
  for (const scope of ALL_SCOPES) {
    for (const scopes of [ALL_SCOPES.filter((s) => s !== scope), [scope]]) {
      for (let i = 0; i < 3; i++) limited.push({ ...(await createKey(a.accountId, scopes)), scopes });
    }
  }
  const disabledAccount = await createAccount(false, "Fuzz disabled");
  const disabled = await createKey(disabledAccount);
  const revoked = await createKey(a.accountId);
  await sql("select admin.revoke_api_key($1)", [revoked.id]);
  const expired = await createKey(a.accountId, ALL_SCOPES, new Date(Date.now() + 60_000));
  await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
  const tokens = await participantTokens(a, b, aCore, bAll);

  // Webhook endpoints (made after the tournaments: no events yet), each with the delivery of a test event.
  // Their URLs point where nothing listens: a dispatcher of tests/webhooks/delivery.test.ts may attempt them.
  const hookOf = async (t: Tenant, body: Record<string, unknown>) => {
    const { key } = await t.newKey();
    const made = await request("POST", "/webhooks", { key, body });
    if (made.status !== 201) throw new Error(`fixture: ${made.text}`);
    const sent = await request("POST", `/webhooks/${made.body.data.id}/test`, { key });
    if (sent.status !== 202) throw new Error(`fixture: ${sent.text}`);
    return { id: made.body.data.id as string, deliveries: [sent.body.data.id as string], event: sent.body.data.event_id as string };
  };
  const coreHooks = [
    await hookOf(a, { url: `${NOWHERE}/core-1`, events: ["*"] }),
    await hookOf(a, { url: "https://127.0.0.1:9/core-2", events: ["match.completed", "registration.created"], tournament_id: aCore[0].id }),
    await hookOf(a, { url: `${NOWHERE}/core-3`, events: ["*"], description: "Fuzz core hook" }),
  ];
  const disposableHooks = [];
  for (let i = 0; i < 4; i++) disposableHooks.push(await hookOf(a, { url: `${NOWHERE}/disposable-${i}`, events: ["*"] }));
  const bHooks = [
    await hookOf(b, { url: B_HOOK_URL, events: ["*"], description: "Bravo Secret Hook" }),
    await hookOf(b, { url: B_HOOK_URL, events: ["tournament.created"] }),
  ];

  const bRegs = bAll.flatMap((t) => t.regs);
  const bMatches = bAll.flatMap((t) => t.matches);
  const fx: Fixtures = {
    teams,
    own: { core, inUse, disposable, created: [] },
    otherTeams,
    accountId: a.accountId,
    aCore,
    aDisposable,
    b: bAll,
    created: [],
    hooks: {
      core: coreHooks.map((h) => h.id),
      disposable: disposableHooks.map((h) => h.id),
      created: [],
      deliveries: Object.fromEntries([...coreHooks, ...disposableHooks].map((h) => [h.id, h.deliveries])),
    },
    bHooks: bHooks.map(({ id, deliveries }) => ({ id, deliveries })),
    players,
    otherPlayers,
    rosters: {},
    keys: { full, limited, disabled: disabled.key, revoked: revoked.key, expired: expired.key },
    tokens: tokens.tokens,
    accounts: [a.accountId, b.accountId, disabledAccount, tokens.disabledAccount],
    secrets: [
      b.accountId,
      B_GAME,
      "Bravo Secret",
      "bravo-secret",
      ...bAll.map((t) => t.id),
      ...bRegs,
      ...bMatches,
      ...bHooks.flatMap((h) => [h.id, ...h.deliveries, h.event]),
      ...otherPlayers,
      ...bAll.flatMap((t: TournamentFx) => t.tokens ?? []),
    ],
  };
  await refresh(fx); // statuses and stage counts
  const stageStates = await sql<{ name: string; s: string[] }>(
    `select t.name, array(select coalesce(s.status, 'pending') from generate_series(1, jsonb_array_length(app.stage_list(t))) n
                           left join app.stages s on s.tournament_id = t.id and s.number = n order by n) s
       from app.tournaments t where t.account_id = $1 and t.name like 'Alpha Stages %' order by t.name`,
    [a.accountId],
  );
  expect(stageStates).toEqual([
    { name: "Alpha Stages Live", s: ["ongoing", "pending", "pending"] },
    { name: "Alpha Stages Open", s: ["pending", "pending"] },
    { name: "Alpha Stages Ready", s: ["completed", "pending"] },
    { name: "Alpha Stages Tie", s: ["completed", "pending"] },
  ]);
  return fx;
}

/**
 * Participant tokens (section 17), minted through the API: the pools the fuzz sends (see PToken), disposable
 * tokens of aCore's tournaments (DELETE .../tokens/{token_id} targets; refresh() lists them) and of the other
 * account's, and the refused ones: of a disabled account's tournament, revoked, expired.
 */
async function participantTokens(a: Tenant, b: Tenant, aCore: TournamentFx[], bAll: TournamentFx[]) {
  const call = caller(a);
  const ok = <R extends { status: number; text: string }>(r: R): R => {
    if (r.status >= 300) throw new Error(`fixture: ${r.text}`);
    return r;
  };
  const mintWith = async (c: typeof call, tid: string, reg: string | null, body: Record<string, unknown> = {}) =>
    ok(await c("POST", reg ? `/tournaments/${tid}/registrations/${reg}/tokens` : `/tournaments/${tid}/signup-tokens`, { body }))
      .body.data as { id: string; token: string; scopes: string[] };
  const mint = (tid: string, reg: string | null, body: Record<string, unknown> = {}) => mintWith(call, tid, reg, body);
  const teamOf = new Map(
    (await sql("select id::text, team_id::text from app.registrations where account_id = $1", [a.accountId])).map((r) => [r.id, r.team_id]),
  );
  const pToken = (m: { id: string; token: string; scopes: string[] }, tid: string, reg: string | null, kind: PToken["kind"]): PToken => ({
    id: m.id,
    key: m.token,
    scopes: m.scopes,
    tid,
    reg,
    team: reg ? teamOf.get(reg) ?? null : null,
    kind,
  });
  // Registrations of the tournaments that started while the fixtures were made: they last (see PToken).
  const started = aCore.filter((t) => t.state);
  const lockedRegs = started.flatMap((t) => t.regs.map((reg) => [t.id, reg] as const));
  const locked: PToken[] = [];
  for (let i = 0; i < Math.ceil(REQUESTS / 500) + 6; i++) {
    const [tid, reg] = lockedRegs[i % lockedRegs.length];
    locked.push(pToken(await mint(tid, reg), tid, reg, "locked"));
  }
  const limited: PToken[] = [];
  for (const scope of REGISTRATION_TOKEN_SCOPES) {
    for (const scopes of [[scope], REGISTRATION_TOKEN_SCOPES.filter((s) => s !== scope)]) {
      for (let i = 0; i < 2; i++) {
        const [tid, reg] = lockedRegs[(limited.length * 7) % lockedRegs.length];
        limited.push(pToken(await mint(tid, reg, { scopes }), tid, reg, "locked"));
      }
    }
  }
  const closed: PToken[] = [];
  for (let i = 0; i < Math.ceil(REQUESTS / 2500) + 3; i++) {
    const tid = started[i % started.length].id;
    closed.push(pToken(await mint(tid, null), tid, null, "closed"));
  }
  // The participants' tournament: in registration with check-in open, room for every sign-up, and out of the
  // organiser fuzz's reach (in no list of tournaments it targets). Its registrations' tokens are the live ones.
  const participants = ok(
    await call("POST", "/tournaments", {
      body: tournamentBody({
        name: "Alpha Participants",
        max_teams: 1024,
        substitutes_max: 2,
        check_in_opens: new Date(Date.now() - 3_600_000).toISOString(),
      }),
    }),
  ).body.data.id as string;
  const live: PToken[] = [];
  for (const team_id of await createTeams(Math.ceil(REQUESTS / 400) + 10, "Fuzz Entrant")) {
    const reg = ok(await call("POST", `/tournaments/${participants}/registrations`, { body: { team_id } })).body.data;
    teamOf.set(reg.id, team_id);
    live.push(pToken(await mint(participants, reg.id), participants, reg.id, "live"));
  }
  const open: PToken[] = [];
  for (let i = 0; i < Math.ceil(REQUESTS / 2500) + 3; i++) open.push(pToken(await mint(participants, null), participants, null, "open"));
  // Disposable ones: two registration tokens and two sign-up tokens of each of aCore's tournaments that has
  // registrations (the fuzz revokes more than it mints: these last most of a run).
  for (const t of aCore.filter((t) => t.regs.length)) {
    for (const reg of [t.regs[0], t.regs.at(-1)!]) await mint(t.id, reg, { name: "Fuzz disposable" });
    for (const max_uses of [5, null]) await mint(t.id, null, { name: "Fuzz disposable sign-ups", max_uses });
  }
  // The other account's: never reachable with the fuzz account's keys.
  const bCall = caller(b);
  for (const t of bAll) {
    t.tokens = [(await mintWith(bCall, t.id, t.regs[0], { name: "Bravo Secret Token" })).id, (await mintWith(bCall, t.id, null)).id];
  }
  // Refused ones: a token of a tournament of an account whose access is off; a revoked (deleted) one; an expired one
  // (the other account's: so that no DELETE of the fuzz account takes it, and it stays expired, not gone).
  const c = await tenant();
  const cCall = caller(c);
  const cTournament = ok(await cCall("POST", "/tournaments", { body: tournamentBody({ name: "Fuzz Disabled Cup" }) })).body.data.id;
  const [cTeam] = await createTeams(1, "Fuzz Disabled Entrant");
  const cReg = ok(await cCall("POST", `/tournaments/${cTournament}/registrations`, { body: { team_id: cTeam } })).body.data.id;
  const disabled = await mintWith(cCall, cTournament, cReg);
  await sql("select admin.set_api_access($1, false)", [c.accountId]);
  const revoked = await mint(lockedRegs[0][0], lockedRegs[0][1]);
  ok(await call("DELETE", `/tournaments/${lockedRegs[0][0]}/tokens/${revoked.id}`));
  const expired = await mintWith(bCall, bAll[1].id, bAll[1].regs[0]);
  await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
  return {
    tokens: { locked, live, closed, open, limited, disabled: disabled.token, revoked: revoked.token, expired: expired.token, participants },
    disabledAccount: c.accountId,
  };
}

/** The tokens the fuzz sends, never a DELETE target (see TournamentFx.tokens). */
const sentTokens = (fx: Fixtures) => {
  const t = fx.tokens;
  return [...t.locked, ...t.live, ...t.closed, ...t.open, ...t.limited].map((k) => k.id);
};

/** Keeps the fixtures' id lists in step with what accepted requests made (a sign-up's new token joins the live ones). */
// deno-lint-ignore no-explicit-any
function track(fx: Fixtures, op: string, data: any): void {
  if (op === "participant.signup" && typeof data.token?.token === "string") {
    const r = data.registration;
    fx.tokens.live.push({
      id: data.token.id,
      key: data.token.token,
      scopes: data.token.scopes,
      tid: r.tournament_id,
      reg: r.id,
      team: r.team_id,
      kind: "live",
    });
  }
  if (op === "tournaments.create") fx.created.push({ id: data.id, regs: [], matches: [] });
  else if (op === "teams.create") fx.own.created.push(data.id);
  else if (op === "webhooks.create") fx.hooks.created.push(data.id);
  else if (op === "players.create") fx.players.created.push(data.id);
}

/**
 * The registrations and matches of the fuzz account's tournaments as they are now (after a
 * batch): registrations come and go (withdrawn, or gone with their team), brackets appear when
 * the fuzz starts a tournament, a deleted tournament has neither; so a coherent path names a
 * live chain.
 */
async function refresh(fx: Fixtures): Promise<void> {
  const all = [...fx.aCore, ...fx.aDisposable, ...fx.created];
  const rows = await sql<{ id: string; status: string; stages: number; regs: string[]; matches: string[]; tokens: string[] }>(
    `select t.id::text id, t.status, jsonb_array_length(app.stage_list(t)) stages,
            array(select r.id::text from app.registrations r where r.tournament_id = t.id order by r.seq) regs,
            array(select m.id::text from app.matches m where m.tournament_id = t.id order by m.round, m.position) matches,
            array(select k.id::text from app.api_keys k where k.tournament_id = t.id and k.id <> all($2::uuid[])
                   order by k.created_at, k.id) tokens
       from app.tournaments t where t.id = any($1::uuid[])`,
    [all.map((t) => t.id), sentTokens(fx)],
  );
  const now = new Map(rows.map((r) => [r.id, r]));
  const games = await sql<{ tid: string; id: string; n: number }>(
    `select m.tournament_id::text tid, m.id::text id, jsonb_array_length(m.games) n from app.matches m
      where m.tournament_id = any($1::uuid[]) and m.games <> '[]'`,
    [all.map((t) => t.id)],
  );
  for (const t of all) {
    t.games = Object.fromEntries(games.filter((g) => g.tid === t.id).map((g) => [g.id, g.n]));
    t.regs = now.get(t.id)?.regs ?? [];
    t.matches = now.get(t.id)?.matches ?? [];
    t.tokens = now.get(t.id)?.tokens ?? [];
    t.status = now.get(t.id)?.status;
    t.stages = now.get(t.id)?.stages ?? t.stages;
  }
  // A few deliveries of each endpoint still there (a deleted one keeps its last ones: they answer not_found).
  const hooks = await sql<{ id: string; deliveries: string[] }>(
    `select w.id::text id, array(select d.id::text from app.webhook_deliveries d where d.endpoint_id = w.id
                                   order by d.created_at desc, d.id limit 8) deliveries
       from app.webhook_endpoints w where w.id = any($1::uuid[])`,
    [[...fx.hooks.core, ...fx.hooks.disposable, ...fx.hooks.created]],
  );
  for (const h of hooks) if (h.deliveries.length) fx.hooks.deliveries[h.id] = h.deliveries;
  // The rosters of the account's teams (a hint for roster paths: a member to change or remove).
  const rosters = await sql<{ team: string; players: string[] }>(
    `select m.team_id::text team, array_agg(m.player_id::text order by m.seq) players from app.team_members m
      where m.account_id = $1 group by m.team_id`,
    [fx.accountId],
  );
  fx.rosters = Object.fromEntries(rosters.map((r) => [r.team, r.players]));
  // The live tokens still there (a withdrawal takes its registration's tokens with it).
  const alive = new Set(
    (await sql("select id::text from app.api_keys where id = any($1::uuid[])", [fx.tokens.live.map((k) => k.id)])).map((r) => r.id),
  );
  fx.tokens.live = fx.tokens.live.filter((k) => alive.has(k.id));
}

// ---------------------------------------------------------------------------------------------
// the wire

const plainAgent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** Sends a request exactly as given (path, method, headers and bytes), over a kept-alive socket. */
function send(wire: Wire, attempt = 0): Promise<Res> {
  const base = new URL(apiUrl());
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Res) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = http.request({
      host: base.hostname,
      port: base.port,
      method: wire.method,
      path: wire.path,
      headers: wire.headers,
      // A body the server refuses unread may end the connection: such requests get their own.
      agent: wire.fresh ? false : plainAgent,
    }, (res) => {
      const chunks: Buffer[] = [];
      // A live stream (GET .../stream) is read to its first event, then dropped (it would last 110 s).
      const sse = String(res.headers["content-type"]).startsWith("text/event-stream");
      res.on("data", (c: Buffer) => {
        chunks.push(c);
        if (sse && Buffer.concat(chunks).includes("\n\n")) {
          done({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") });
          res.destroy();
        }
      });
      res.on("end", () => done({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (e) => done({ status: 0, headers: {}, text: "", error: e.message }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error("timed out")));
    req.on("error", (e: Error & { code?: string }) => {
      if (settled) return;
      // A kept-alive socket the server closed just before reuse: the request never reached it.
      if (req.reusedSocket && e.code === "ECONNRESET" && attempt < 2) return void send(wire, attempt + 1).then(done);
      done({ status: 0, headers: {}, text: "", error: `${e.code ?? ""} ${e.message}` });
    });
    if (wire.chunks) {
      for (const c of wire.chunks) req.write(c);
      req.end();
    } else {
      req.end(wire.body);
    }
  });
}

async function pool<T, R>(items: T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  }));
  return out;
}

// ---------------------------------------------------------------------------------------------
// the oracle: what the contract's order of checks predicts for a request

/** The body as the route's schema gives it (names trimmed and the like) when it passes; else null. */
/**
 * A match's result or best_of that only the match's stage can refuse (SQL, contract section 19):
 * equal scores, or an even best_of, where the stage does not allow draws (no fixture's does).
 * Checked once the match is found, before the tournament's state.
 */
function drawRefused(route: Route, wire: Wire): boolean {
  if (route.op !== "matches.report") return false;
  const body = validBody(route, wire) as { team1_score?: number; team2_score?: number; best_of?: number } | null;
  if (!body) return false;
  return (body.team1_score !== undefined && body.team1_score === body.team2_score) ||
    (body.best_of !== undefined && body.best_of % 2 === 0);
}

function validBody(route: Route, wire: Wire): Record<string, unknown> | null {
  if (!route.body) return null;
  const verdict = bodyVerdict(wire);
  if (!("value" in verdict)) return null;
  const parsed = route.body.safeParse(verdict.value);
  return parsed.success ? parsed.data as Record<string, unknown> : null;
}

/** What a /teams/{team_id} request for a real team must answer: any account reads any team; only its own account writes it. */
function teamOutcome(route: Route, role: TeamRole): string[] {
  const mayBeGone = role === "disposable" ? ["not_found"] : []; // the fuzz may have deleted it
  if (route.method === "GET") return ["ok", ...mayBeGone];
  if (role === "platform" || role === "other") return ["team_not_owned"];
  if (route.method === "PATCH") return ["ok", ...mayBeGone];
  if (role === "inUse") return ["team_in_use"];
  return ["ok", "team_in_use", ...mayBeGone];
}

/**
 * What a roster route (section 16) must answer for a real team: only the team's own account reaches
 * its roster (403 team_not_owned before the player is looked up), and only with its own players
 * (another account's is as one that exists nowhere: 404).
 */
function rosterOutcome(route: Route, wire: Wire): string[] {
  const role = wire.teamRole!;
  if (role === "platform" || role === "other") return ["team_not_owned"];
  const teamGone = role === "disposable" ? ["not_found"] : []; // the fuzz may have deleted it
  if (route.op === "roster.list") return ["ok", ...teamGone];
  const player = wire.playerRole ?? null;
  if (player === null || player === "other") return ["not_found"];
  // a member removed may not be on the roster (any more); a disposable player may be gone
  if (route.op === "roster.delete" || player === "disposable") return ["ok", "not_found"];
  return ["ok", ...teamGone];
}

/**
 * What GET, PATCH and DELETE /players/{player_id} must answer: the account's own players only
 * (another account's is as one that exists nowhere). A player in the lineup of a started tournament
 * cannot be deleted: the in-use ones never, a disposable one once the fuzz put it in a lineup that started.
 */
function playerOutcome(route: Route, wire: Wire): string[] {
  const player = wire.playerRole ?? null;
  if (player === null || player === "other") return ["not_found"];
  const mayBeGone = player === "disposable" ? ["not_found"] : [];
  if (route.op === "players.get") return ["ok", ...mayBeGone];
  if (route.op === "players.update") {
    const taken = typeof validBody(route, wire)?.external_id === "string" ? ["external_id_taken"] : [];
    return ["ok", ...taken, ...mayBeGone];
  }
  if (player === "inUse") return ["player_in_use"];
  return ["ok", "player_in_use", ...mayBeGone];
}

/** The account's players as the fixtures know them (those the fuzz made included). */
const ownPlayers = (fx?: Fixtures) =>
  new Set(fx ? [...fx.players.core, ...fx.players.inUse, ...fx.players.disposable, ...fx.players.created] : []);

/**
 * What a stage route, or GET .../results?stage=k, must answer for the fuzz account's tournament
 * (section 12), past the checks every route makes; null where the generic rules apply. A started
 * tournament of aCore (`tstate`) has its stages locked: their number is known, and so is what a
 * PATCH of stage 1 (never startable by PATCH) or of a completed tournament's stages answers. For the
 * others (their stages may change, they may start or be deleted) only the possible answers.
 */
function stageOutcome(route: Route, spec: Spec, wire: Wire): string[] | null {
  const known = wire.tstate && wire.stages ? wire.stages : null;
  if (route.op === "results.get") {
    const parsed = route.query!.safeParse(Object.fromEntries(new URL(`http://x/?${spec.query}`).searchParams));
    const k = parsed.success ? (parsed.data as { stage?: number }).stage : undefined;
    if (k === undefined) return null;
    // a stage past the tournament's: a 400 naming stage (checked once the tournament is found)
    if (known !== null) return [k <= known ? "ok" : "validation_error"];
    return ["ok", "not_found", ...(k > 1 ? ["validation_error"] : [])];
  }
  if (route.op === "stages.list") return known !== null ? ["ok"] : null;
  if (route.op !== "stages.get" && route.op !== "stages.update") return null;
  const n = wire.stage!;
  if (known !== null && n > known) return ["not_found"];
  const mayBeGone = known !== null ? [] : ["not_found"];
  if (route.op === "stages.get") return ["ok", ...mayBeGone];
  const body = validBody(route, wire)!;
  const status = body.status as string;
  // starting stage n (>= 2): its stage before may be tied at the cut, and `advancing` is checked against it
  const starting = n > 1 && status === "ongoing" ? ["stage_tie", ...(body.advancing !== undefined ? ["validation_error"] : [])] : [];
  // `advancing` is input: its shape and count (K, from the stages' definitions) are checked
  // before the state (400 before 409), and stage 1 takes none.
  const advancing = body.advancing !== undefined ? ["validation_error"] : [];
  if (body.advancing !== undefined && n === 1) return ["validation_error", ...mayBeGone];
  if (wire.tstate === "completed") return [status === "completed" ? "ok" : "invalid_status_transition", ...advancing];
  if (wire.tstate === "started" && n === 1) {
    return status === "pending" ? ["invalid_status_transition"] : ["ok", "invalid_status_transition"];
  }
  return [...new Set(["ok", "invalid_status_transition", ...starting, ...advancing, ...mayBeGone])];
}

/**
 * A webhook endpoint's tournament_id (create, PATCH) passes the schema as any UUID; SQL then
 * refuses one that is not the account's (404 not_found, as for a registration's team_id, after
 * the fields' own checks): the fuzz account's are those of aCore.
 */
function badHookTournament(route: Route, wire: Wire, fx?: Fixtures): boolean {
  if (route.op !== "webhooks.create" && route.op !== "webhooks.update") return false;
  const id = validBody(route, wire)?.tournament_id;
  return typeof id === "string" && !(fx?.aCore ?? []).some((t) => t.id === id.toLowerCase());
}

/**
 * What a participant route (section 17) must answer past the checks every request gets, by what its token acts
 * for (see PToken): a locked registration's changes are refused by its tournament's state (a check-out of a team
 * never checked in changes nothing: taken); a live one's are taken, a sign-up past the registration rules aside
 * (400 naming a lineup entry past the caps, 409 for a player already in another lineup of the tournament, or a
 * full tournament); a closed sign-up token's sign-up is registration_closed.
 */
function participantOutcome(route: Route, wire: Wire): string[] {
  const token = wire.token!;
  const live = token.kind === "live" || token.kind === "open";
  switch (route.op) {
    case "participant.get":
    case "participant.matches":
      return ["ok"];
    case "participant.signup":
      return live ? ["ok", "validation_error", "player_already_registered", "tournament_full"] : ["registration_closed"];
    case "participant.lineup":
      return live ? ["ok", "validation_error", "player_already_registered"] : ["tournament_locked"];
    case "participant.check_in":
      return live || validBody(route, wire)!.checked_in === false ? ["ok"] : ["tournament_locked"];
    case "participant.withdraw":
      return live ? ["ok"] : ["registration_closed"];
    default:
      throw new Error(`no participant outcome for ${route.op}`);
  }
}

/**
 * The acceptable outcomes ("ok" or an error code), or null where only the generic invariants apply. A live
 * token (see PToken) may be gone by the time its request arrives (the fuzz withdrew its registration, maybe in
 * the same batch): then it is refused as an unknown one, whatever else the request holds.
 */
function expectFor(spec: Spec, wire: Wire, fx?: Fixtures): string[] | null {
  const expected = expectOutcome(spec, wire, fx);
  const reached = spec.pathKind === "canonical" && wire.method !== "OPTIONS" && routeOf(spec.template, wire.method);
  return expected && reached && wire.token?.kind === "live" && !expected.includes("unauthorized")
    ? [...expected, "unauthorized"]
    : expected;
}

function expectOutcome(spec: Spec, wire: Wire, fx?: Fixtures): string[] | null {
  if (wire.method === "OPTIONS") return ["preflight"];
  if (spec.pathKind === "unknown") return ["not_found"];
  if (spec.pathKind === "other") return null;
  const route = routeOf(spec.template, wire.method);
  if (!route) return ["method_not_allowed"];
  // key → account → rate limit → scope
  if (spec.auth.kind === "disabled") return ["api_access_disabled"];
  if (!wire.scopes) return ["unauthorized"];
  // GET /me has no scope: any valid key
  if (route.scope && !wire.scopes.includes(route.scope)) return ["insufficient_scope"];
  // input
  if (route.query) {
    const query = Object.fromEntries(new URL(`http://x/?${spec.query}`).searchParams);
    if (!route.query.safeParse(query).success) return ["validation_error"];
  }
  // Field rules that need the clock (starts_at in the future) are input too, checked in SQL
  // before the tournament is looked up: the same 400 for any id, so no oracle.
  let clockChecked: string[] = [];
  if (route.body) {
    const verdict = bodyVerdict(wire);
    if ("codes" in verdict) return verdict.codes;
    if (!route.body.safeParse(verdict.value).success) return ["validation_error"];
    if (route.op === "tournaments.update" && "starts_at" in (verdict.value as object)) clockChecked = ["validation_error"];
  }
  // Section 17: a participant token's expires_at must be in the future, a field rule that needs the clock (in SQL):
  // input, so by the contract's order a 400 whatever the ids name, as a tournament's dates are. The implementation
  // looks the tournament (and registration) up first: for ids it does not find, 404. KNOWN DEFECT, kept failing in
  // "what the fuzzer found" below; until it is fixed, both answers pass here for such ids (and only for them), so
  // that the run checks everything else. (Within a few seconds of now, either side of the clock may be right.)
  const expiresAt = ["tokens.create", "signup_tokens.create"].includes(route.op) ? validBody(route, wire)?.expires_at : undefined;
  const expiry = typeof expiresAt !== "string"
    ? null
    : Date.parse(expiresAt) < Date.now() - 5_000
    ? "past"
    : Date.parse(expiresAt) > Date.now() + 5_000
    ? "future"
    : "near";
  const expiryChecked = expiry === "past" || expiry === "near" ? ["validation_error"] : [];
  const idem = route.method === "POST" && spec.idem !== null;
  if (idem && !/^[\x20-\x7e]{1,255}$/.test(spec.idem!.trim())) {
    return ["validation_error"]; // input (the header) before existence (a malformed path id)
  }
  // existence, then state
  const retry = idem ? ["idempotency_mismatch", "idempotency_conflict"] : [];
  // a participant route's tournament and registration are its token's: no id to look up
  if (route.participant) return [...participantOutcome(route, wire), ...retry];
  if (wire.owner === "bad") return ["not_found"];
  if (wire.teamRole) return route.op.startsWith("roster.") ? rosterOutcome(route, wire) : teamOutcome(route, wire.teamRole);
  if (route.op.startsWith("players.") && route.path.includes("{")) return playerOutcome(route, wire);
  if (wire.owner !== "A" || !wire.coherent) return ["not_found", ...clockChecked, ...expiryChecked, ...retry];
  if (route.op === "webhooks.create") {
    // the fields first (SQL: tournament_id), then the limit of 20 endpoints
    return badHookTournament(route, wire, fx) ? ["not_found", ...retry] : ["ok", "webhook_limit_reached", ...retry];
  }
  if (wire.hookRole) {
    // an endpoint of the account: a core one stays; another may have been deleted by the fuzz
    const mayBeGone = wire.hookRole === "disposable" ? ["not_found"] : [];
    return [badHookTournament(route, wire, fx) ? "not_found" : "ok", ...mayBeGone, ...retry];
  }
  if (!route.path.includes("{")) {
    if (route.method === "GET") return ["ok"];
    // only a tournament's dates are checked past the schema (in SQL, against the clock)
    if (route.op === "tournaments.create") return ["ok", "validation_error", ...retry];
    // a player's external_id is unique in the account
    if (route.op === "players.create") {
      return ["ok", ...(typeof validBody(route, wire)?.external_id === "string" ? ["external_id_taken"] : []), ...retry];
    }
    return ["ok", ...retry];
  }
  // A tournament of aCore that started while the fixtures were made stays started (or completes).
  if (wire.tstate) {
    if (route.op === "registrations.delete") return ["registration_closed"];
    if (route.op === "registrations.update") {
      // Its registrations have no seed and are not checked in: only a change counts. It has no
      // check-in (check_in_closed is for a tournament with check-in, outside its window), so a
      // check-in after the start is a locked field, as a seed is (README, decisions).
      const body = validBody(route, wire)!;
      const seed = body.seed !== undefined && body.seed !== null;
      return seed || body.checked_in === true ? ["tournament_locked"] : ["ok"];
    }
    if (route.op === "matches.report" && wire.tstate === "completed") {
      return ["match_locked", ...(drawRefused(route, wire) ? ["validation_error"] : [])];
    }
    // a game: its number is checked against the match (400) before the tournament's state; a
    // DELETE of a game never reported is 404
    if (route.op === "games.put" && wire.tstate === "completed") return ["validation_error", "match_locked"];
    if (route.op === "games.delete" && wire.tstate === "completed") return ["not_found", "match_locked", "series_decided"];
    // a lineup changes while the tournament is in registration only (before its players are looked at)
    if (route.op === "lineups.put") return ["tournament_locked"];
  }
  if (route.op === "lineups.put") {
    // Past the schema: the players (the tournament's account's, 400 naming the entry) and the caps
    // (400), then one team per tournament (409). A player the account does not hold is never taken.
    const entries = (validBody(route, wire)!.players as { player_id: string }[]).map((e) => e.player_id.toLowerCase());
    const own = ownPlayers(fx);
    const stranger = entries.some((id) => !own.has(id));
    return [...(stranger ? [] : ["ok", "player_already_registered"]), "validation_error", "not_found", "tournament_locked"];
  }
  const stage = stageOutcome(route, spec, wire);
  if (stage) return stage;
  if (route.method === "GET") return ["ok", "not_found"];
  if (route.method === "DELETE") return ["ok", "not_found", ...(route.conflicts ?? [])];
  // Past the schema only a tournament's own rules (dates against the clock, in SQL) give a 400.
  // (a game's number: 1..best_of of the match, and no gap)
  const late400 = ["tournaments.update", "games.put"].includes(route.op) || drawRefused(route, wire) ? ["validation_error"] : expiryChecked;
  return [...(expiry === "past" ? [] : ["ok"]), ...late400, "not_found", ...(route.conflicts ?? []), ...retry];
}

// ---------------------------------------------------------------------------------------------
// the invariants of one response

function check(spec: Spec, wire: Wire, res: Res, expected: string[] | null, fx: Fixtures): string[] {
  const p: string[] = [];
  if (res.error) return [`transport error: ${res.error}`];
  if (res.status >= 500) p.push(`status ${res.status}`);
  const requestId = res.headers["x-request-id"];
  if (typeof requestId !== "string" || requestId.length === 0) p.push("no X-Request-Id");
  if (KEY_IN_TEXT.test(res.text)) p.push("a key in the response");
  // (the answers that mint a participant token show it, once; no other answer shows any)
  const minting = spec.pathKind === "canonical" && MINTING.includes(routeOf(spec.template, wire.method)?.op ?? "") && res.status < 300;
  if (!minting && TOKEN_IN_TEXT.test(res.text)) p.push("a participant token in the response");
  for (const s of fx.secrets) if (res.text.includes(s)) p.push(`another account's data in the response: ${s}`);
  let outcome: string;
  if (wire.method === "OPTIONS") {
    if (res.status !== 204 || res.text !== "") p.push("preflight is not a bodiless 204");
    if (!res.headers["access-control-allow-methods"]) p.push("preflight without Access-Control-Allow-Methods");
    outcome = "preflight";
  } else if (res.status === 200 && res.headers["content-type"] === "text/event-stream") {
    // A stream opened: its first event is the whole results (contract section 14).
    if (!routeOf(spec.template, wire.method)?.stream) p.push("an event stream from a route that is not the stream");
    if (res.headers["cache-control"] !== "no-store") p.push(`Cache-Control ${res.headers["cache-control"]}`);
    const first = /^id: (\d+)\nevent: results\ndata: (.*)\n\n$/.exec(res.text);
    if (wire.method === "HEAD" ? res.text !== "" : !first) p.push(`not an SSE results event: ${res.text.slice(0, 80)}`);
    else if (first && JSON.parse(first[2]).tournament?.version !== Number(first[1])) p.push("the first event's id is not its version");
    outcome = "ok";
  } else if (res.status === 200 && /^image\/(svg\+xml|png)/.test(String(res.headers["content-type"]))) {
    // A bracket picture (contract section 15): the route's own kind, never cached, SVG without a script.
    const picture = routeOf(spec.template, wire.method)?.picture;
    if (!picture || !String(res.headers["content-type"]).startsWith(picture === "svg" ? "image/svg+xml" : "image/png")) {
      p.push(`a picture (${res.headers["content-type"]}) from a route that does not draw one`);
    }
    if (res.headers["cache-control"] !== "no-store") p.push(`Cache-Control ${res.headers["cache-control"]}`);
    if (wire.method === "HEAD" ? res.text !== "" : picture === "svg" && (!res.text.startsWith("<svg") || res.text.includes("<script"))) {
      p.push(`not a picture: ${res.text.slice(0, 80)}`);
    }
    outcome = "ok";
  } else {
    if (res.headers["content-type"] !== "application/json; charset=utf-8") p.push(`Content-Type ${res.headers["content-type"]}`);
    if (res.headers["cache-control"] !== "no-store") p.push(`Cache-Control ${res.headers["cache-control"]}`);
    if (wire.method === "HEAD") {
      // HEAD answers as GET would, without the body: only the status tells the outcome.
      if (res.text !== "") p.push("a body on HEAD");
      const statusOf = (c: string) => (c === "ok" ? 200 : CONTRACT[c]);
      outcome = (expected ?? Object.keys(CONTRACT)).find((c) => statusOf(c) === res.status) ?? `status ${res.status}`;
    } else {
      outcome = checkEnvelope(spec, wire, res, p, fx);
    }
  }
  if (expected && !expected.includes(outcome)) p.push(`expected ${expected.join(" | ")}, got ${outcome}`);
  return p;
}

function checkEnvelope(spec: Spec, wire: Wire, res: Res, p: string[], fx: Fixtures): string {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text);
  } catch {
    p.push("the body is not JSON");
    return `status ${res.status}`;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    p.push("the body is not an object");
    return `status ${res.status}`;
  }
  const meta = body.meta as Record<string, unknown> | undefined;
  if (!meta || Object.keys(meta).sort().join() !== "api_version,request_id,timestamp") {
    p.push("meta is not {timestamp, api_version, request_id}");
  } else {
    if (meta.api_version !== "1.0") p.push("meta.api_version");
    if (typeof meta.timestamp !== "string" || !ISO_Z.test(meta.timestamp)) p.push("meta.timestamp");
    if (meta.request_id !== res.headers["x-request-id"]) p.push("meta.request_id differs from X-Request-Id");
  }
  const route = routeOf(spec.template, wire.method);
  if (body.success === true) {
    const expectedKeys = route?.paginated ? "data,meta,pagination,success" : "data,meta,success";
    if (Object.keys(body).sort().join() !== expectedKeys) p.push(`success envelope keys ${Object.keys(body)}`);
    if (!route || spec.pathKind !== "canonical") return "ok";
    const status = route.accepted ? 202 : route.location ? 201 : 200;
    if (res.status !== status) p.push(`success with status ${res.status}`);
    const data = route.response.safeParse(body.data);
    if (!data.success) p.push(`data does not match the documented response: ${JSON.stringify(data.error.issues).slice(0, 300)}`);
    // The new resource; a participant token's is its tournament's list of tokens, a sign-up's /participant (section 17).
    if (status === 201) {
      const location = String(res.headers.location ?? "");
      const want = !MINTING.includes(route.op) ? `/${(body.data as { id: string }).id}` : data.success ? route.location!(body.data) : null;
      if (want !== null && !location.endsWith(want)) p.push(`Location ${location}`);
    }
    if (data.success) checkData(route, wire, body.data, p, fx);
    return "ok";
  }
  if (body.success !== false) {
    p.push("no boolean success");
    return `status ${res.status}`;
  }
  if (Object.keys(body).sort().join() !== "error,meta,success") p.push(`error envelope keys ${Object.keys(body)}`);
  const error = body.error as Record<string, unknown> | undefined;
  if (!error || typeof error !== "object") {
    p.push("no error object");
    return `status ${res.status}`;
  }
  for (const k of Object.keys(error)) if (!["code", "message", "details"].includes(k)) p.push(`error.${k}`);
  const code = String(error.code);
  if (!(code in CONTRACT)) p.push(`unknown error code ${code}`);
  else if (CONTRACT[code] !== res.status) p.push(`${code} with status ${res.status}`);
  if (typeof error.message !== "string" || error.message.length === 0) p.push("error.message");
  if (error.details !== undefined) {
    // Section 12: a stage_tie's details list the tied teams, each naming `advancing` and the team
    // (team_id, team_name, from_position: docs/api.md). Section 16: a player_already_registered's name
    // the player and the registration that holds them; a lineup_incomplete's (the start's) each short
    // registration with its team and the players it holds. Every other detail is {field, message}.
    const tie = code === "stage_tie";
    const taken = code === "player_already_registered";
    const short = code === "lineup_incomplete";
    const keys = tie
      ? "field,from_position,message,team_id,team_name"
      : taken
      ? "field,message,player_id,registration_id"
      : short
      ? "players,registration_id,team_id,team_name"
      : "field,message";
    // (a check-in's lineup_incomplete names its registration without the team's name)
    const shaped = (d: Record<string, unknown>) =>
      Object.keys(d).sort().join() === keys || (short && Object.keys(d).sort().join() === "players,registration_id,team_id");
    const ok = Array.isArray(error.details) &&
      error.details.every((d) =>
        d && typeof d === "object" && shaped(d) &&
        (short
          ? UUID.test(d.registration_id) && UUID.test(d.team_id) && ["string", "undefined"].includes(typeof d.team_name) &&
            Number.isInteger(d.players)
          : typeof d.field === "string" && typeof d.message === "string") &&
        (!tie ||
          (d.field === "advancing" && UUID.test(d.team_id) && typeof d.team_name === "string" && Number.isInteger(d.from_position))) &&
        (!taken || (UUID.test(d.player_id) && UUID.test(d.registration_id)))
      );
    if (!ok) p.push(`error.details is not [{${keys}}]`);
  }
  // "details names each field" (contract, section 2); a stage_tie's, the tied teams (two at least)
  if (code === "validation_error" && !(Array.isArray(error.details) && error.details.length > 0)) {
    p.push("a validation_error without details");
  }
  if (code === "stage_tie" && !(Array.isArray(error.details) && error.details.length >= 2)) p.push("a stage_tie without the tied teams");
  if (code === "player_already_registered" && !(Array.isArray(error.details) && error.details.length >= 1)) {
    p.push("a player_already_registered without the player");
  }
  if (code === "unauthorized" && !/^Bearer\b/.test(String(res.headers["www-authenticate"]))) p.push("401 without WWW-Authenticate: Bearer");
  if (code === "method_not_allowed" && !res.headers.allow) p.push("405 without Allow");
  if (code === "rate_limited" && !res.headers["retry-after"]) p.push("429 without Retry-After");
  return code;
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};
/** An object with its keys in order (jsonb keeps its own). */
const sortedKeys = (
  o: unknown,
) => (o && typeof o === "object" ? Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))) : o);

/** What an accepted request of the section 9 routes (and the new match fields) must give back, beyond its schema. */
function checkData(route: Route, wire: Wire, data: unknown, p: string[], fx: Fixtures): void {
  // deno-lint-ignore no-explicit-any
  const d = data as any;
  const body = validBody(route, wire) ?? {};
  const same = (field: string, got: unknown, want: unknown) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) p.push(`${field} is ${JSON.stringify(got)}, sent ${JSON.stringify(want)}`);
  };
  // Section 12: a tournament's format and format_options read as its first stage's; advance on every stage but the last.
  // deno-lint-ignore no-explicit-any
  const checkStages = (x: any) => {
    const st = x.stages as { format: string; format_options: unknown; advance: unknown }[];
    if (!Array.isArray(st) || st.length < 1 || st.length > 4) return void p.push(`stages ${JSON.stringify(st)?.slice(0, 100)}`);
    if (x.format !== st[0].format || JSON.stringify(x.format_options) !== JSON.stringify(st[0].format_options)) {
      p.push(
        `format ${x.format} ${JSON.stringify(x.format_options)} is not stage 1's ${st[0].format} ${JSON.stringify(st[0].format_options)}`,
      );
    }
    if (st.some((one, i) => (one.advance === null) !== (i === st.length - 1))) {
      p.push(`advance ${JSON.stringify(st.map((one) => one.advance))}`);
    }
  };
  if (["tournaments.create", "tournaments.get", "tournaments.update"].includes(route.op)) {
    checkStages(d);
    if (Array.isArray(body.stages)) same("stages", d.stages.length, body.stages.length);
  }
  if (route.op === "tournaments.list") { for (const x of d) checkStages(x); }
  const queryOf = () => {
    const at = wire.path.indexOf("?");
    return new URL(`http://x/?${at < 0 ? "" : wire.path.slice(at + 1)}`).searchParams;
  };
  // Section 16: a lineup has at most one captain, wherever a registration shows it.
  if (route.op.startsWith("registrations.") || route.op === "lineups.put") {
    for (const r of Array.isArray(d) ? d : [d]) {
      if (Array.isArray(r?.lineup) && r.lineup.filter((e: { captain: boolean }) => e.captain).length > 1) {
        p.push(`registration ${r.id}: a lineup with two captains`);
      }
    }
  }
  switch (route.op) {
    case "stages.list": {
      const numbers = d.map((x: { number: number }) => x.number);
      same("stage numbers", numbers, numbers.map((_: number, i: number) => i + 1));
      if (wire.tstate && wire.stages) same("stage count", d.length, wire.stages);
      for (const x of d) {
        if (
          (x.status === "pending") !== (x.started_at === null) || (x.status === "pending") !== (x.team_count === null) ||
          (x.status === "completed") !== (x.completed_at !== null)
        ) p.push(`stage ${x.number}: ${JSON.stringify(x)}`);
      }
      // stages start in order: a started stage follows a completed one
      for (const [i, x] of d.entries()) {
        if (i > 0 && x.status !== "pending" && d[i - 1].status !== "completed") {
          p.push(`stage ${x.number} ${x.status} after ${d[i - 1].status}`);
        }
      }
      break;
    }
    case "stages.get":
    case "stages.update":
      same("number", d.number, wire.stage);
      // a PATCH that succeeds leaves the stage in the status asked for (a start, or the same status again)
      if (route.op === "stages.update") same("status", d.status, body.status);
      if (d.status !== "pending" && d.qualifiers !== null) p.push(`qualifiers on a ${d.status} stage`);
      break;
    case "results.get": {
      const stage = route.query!.safeParse(Object.fromEntries(queryOf())).data as { stage?: number } | undefined;
      const current = d.tournament.stage;
      if (!Number.isInteger(current) || current < 1 || current > 4) p.push(`tournament.stage ${current}`);
      for (const m of d.matches as { stage: number }[]) {
        if (stage?.stage !== undefined && m.stage !== stage.stage) p.push(`?stage=${stage.stage} gave a match of stage ${m.stage}`);
        if (m.stage > current) p.push(`a match of stage ${m.stage} while stage ${current} is played`);
      }
      break;
    }
    case "teams.get":
    case "teams.update":
      if (wire.team && d.id !== wire.team) p.push(`team ${d.id} for ${wire.team}`);
      if (wire.teamRole && d.owned !== ["core", "inUse", "disposable"].includes(wire.teamRole)) {
        p.push(`owned ${d.owned} for team role ${wire.teamRole}`);
      }
      if (route.op === "teams.update") {
        if ("name" in body) same("name", d.name, body.name);
        if ("tag" in body) same("tag", d.tag, body.tag);
        if ("logo_url" in body) same("logo_url", d.logo_url, body.logo_url);
      }
      break;
    case "teams.create":
      if (d.owned !== true) p.push("a created team is not owned");
      same("name", d.name, body.name);
      same("tag", d.tag, body.tag);
      same("logo_url", d.logo_url, body.logo_url ?? null);
      break;
    case "teams.list": {
      const at = wire.path.indexOf("?");
      const query = Object.fromEntries(new URL(`http://x/?${at < 0 ? "" : wire.path.slice(at + 1)}`).searchParams);
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (d.length > limit) p.push(`${d.length} teams for limit ${limit}`);
      if (query.owned !== undefined && d.some((t: { owned: boolean }) => t.owned !== (query.owned === "true"))) {
        p.push(`owned=${query.owned} gave a team of the other kind`);
      }
      // substring in any case: checked where case folding is plain ASCII
      const search = query.search ?? "";
      if (/^[\x20-\x7e]+$/.test(search)) {
        const needle = search.toLowerCase();
        const miss = d.find((t: { name: string; tag: string }) =>
          /^[\x20-\x7e]*$/.test(t.name + t.tag) &&
          !t.name.toLowerCase().includes(needle) && !t.tag.toLowerCase().includes(needle)
        );
        if (miss) p.push(`search=${search} gave ${JSON.stringify(miss.name)} / ${JSON.stringify(miss.tag)}`);
      }
      break;
    }
    case "teams.delete":
      if (typeof d.message !== "string" || !d.message) p.push("DELETE without a message");
      break;
    case "me": {
      const key = [...fx.keys.full, ...fx.keys.limited].find((k) => k.id === wire.keyId);
      if (d.key.id !== wire.keyId || !key) p.push(`GET /me named key ${d.key.id}, not the caller's ${wire.keyId}`);
      else {
        if (d.key.prefix !== key.key.slice(0, d.key.prefix.length) || d.key.prefix.length < 8 || d.key.prefix.length > 16) {
          p.push(`prefix ${d.key.prefix}`);
        }
        if ([...d.key.scopes].sort().join() !== [...key.scopes].sort().join()) p.push(`scopes ${d.key.scopes}`);
      }
      if (d.account.id !== fx.accountId) p.push(`GET /me named account ${d.account.id}`);
      const r = d.rate_limit;
      if (r.limit !== 100 || r.window !== 60 || !(r.remaining >= 0 && r.remaining < 100) || !(r.reset >= 1 && r.reset <= 60)) {
        p.push(`rate_limit ${JSON.stringify(r)}`);
      }
      break;
    }
    case "registrations.update":
      if ("payment_status" in body) same("payment_status", d.payment_status, body.payment_status);
      if ("seed" in body) same("seed", d.seed, body.seed);
      if ("checked_in" in body && (d.checked_in_at !== null) !== body.checked_in) {
        p.push(`checked_in ${body.checked_in} gave checked_in_at ${d.checked_in_at}`);
      }
      break;
    case "registrations.delete":
      same("message", d.message, "Registration withdrawn");
      break;
    case "lineups.put": {
      // the registration of the path, its lineup the entries sent, in order
      const reg = /\/registrations\/([^/?;]+)\/lineup/.exec(wire.path)?.[1];
      if (reg && d.id !== safeDecode(reg).toLowerCase()) p.push(`registration ${d.id} for ${reg}`);
      same(
        "lineup",
        d.lineup.map((e: { player_id: string; role: string; captain: boolean }) => [e.player_id, e.role, e.captain]),
        (body.players as { player_id: string; role: string; captain?: boolean }[]).map((e) => [
          e.player_id.toLowerCase(),
          e.role,
          e.captain ?? false,
        ]),
      );
      break;
    }
    case "players.create":
    case "players.get":
    case "players.update": {
      if (route.op !== "players.create" && wire.player && d.id !== wire.player) p.push(`player ${d.id} for ${wire.player}`);
      const sent = route.op === "players.create"
        ? {
          handle: body.handle,
          name: body.name ?? null,
          country: body.country ?? null,
          external_id: body.external_id ?? null,
          game_accounts: body.game_accounts ?? {},
        }
        : route.op === "players.update"
        ? body
        : {};
      for (const [f, v] of Object.entries(sent)) {
        same(f, f === "game_accounts" ? sortedKeys(d[f]) : d[f], f === "game_accounts" ? sortedKeys(v) : v);
      }
      if (Date.parse(d.updated_at) < Date.parse(d.created_at)) p.push(`updated_at ${d.updated_at} before created_at ${d.created_at}`);
      break;
    }
    case "players.list": {
      const query = Object.fromEntries(queryOf());
      const limit = query.limit === undefined ? 20 : Number(query.limit);
      if (d.length > limit) p.push(`${d.length} players for limit ${limit}`);
      if (query.external_id !== undefined && d.some((x: { external_id: string }) => x.external_id !== query.external_id)) {
        p.push(`external_id=${query.external_id} gave another`);
      }
      const search = query.search ?? "";
      if (/^[\x20-\x7e]+$/.test(search)) {
        const needle = search.toLowerCase();
        const miss = d.find((x: { handle: string; name: string | null; external_id: string | null }) => {
          const hay = [x.handle, x.name ?? "", x.external_id ?? ""];
          return hay.every((h) => /^[\x20-\x7e]*$/.test(h)) && !hay.some((h) => h.toLowerCase().includes(needle));
        });
        if (miss) p.push(`search=${search} gave ${JSON.stringify(miss.handle)}`);
      }
      break;
    }
    case "players.delete":
      same("message", d.message, "Player deleted");
      break;
    case "roster.list":
      if (d.filter((m: { captain: boolean }) => m.captain).length > 1) p.push("a roster with two captains");
      break;
    case "roster.put":
      if (wire.player && d.id !== wire.player) p.push(`member ${d.id} for ${wire.player}`);
      same("role and captain", [d.role, d.captain], [body.role, body.captain ?? false]);
      break;
    case "roster.delete":
      same("message", d.message, "Player removed");
      break;
    case "webhooks.create":
    case "webhooks.rotate":
      // the secret, shown on these two answers only: whsec_ + base64 of 32 bytes
      if (!/^whsec_[A-Za-z0-9+/]{43}=$/.test(String(d.secret))) p.push(`secret ${JSON.stringify(d.secret)?.slice(0, 12)}…`);
      if (route.op === "webhooks.create") {
        same("url", d.url, body.url);
        same("events", d.events, body.events);
        same("tournament_id", d.tournament_id, typeof body.tournament_id === "string" ? body.tournament_id.toLowerCase() : null);
        same("description", d.description, body.description ?? null);
        same("enabled", [d.enabled, d.disabled_reason], [true, null]);
      } else if (wire.hook && d.id !== wire.hook) p.push(`endpoint ${d.id} for ${wire.hook}`);
      break;
    case "webhooks.get":
    case "webhooks.update":
      if ("secret" in d) p.push("a secret outside create and rotate-secret");
      if (wire.hook && d.id !== wire.hook) p.push(`endpoint ${d.id} for ${wire.hook}`);
      if (route.op === "webhooks.update") {
        for (const f of ["url", "events", "description"]) if (f in body) same(f, d[f], body[f]);
        if ("tournament_id" in body) {
          same("tournament_id", d.tournament_id, typeof body.tournament_id === "string" ? body.tournament_id.toLowerCase() : null);
        }
        if ("enabled" in body) same("enabled", d.enabled, body.enabled);
        if (d.enabled && d.disabled_reason !== null) p.push(`enabled with disabled_reason ${d.disabled_reason}`);
      }
      break;
    case "webhooks.list":
      if (d.some((e: object) => "secret" in e)) p.push("a secret in the endpoint list");
      break;
    case "webhooks.delete":
      same("message", d.message, "Webhook deleted");
      break;
    case "webhooks.test":
      same("test delivery", [d.event_type, d.status, d.attempts, d.payload?.type], ["webhook.test", "pending", 0, "webhook.test"]);
      if (wire.hook && d.payload?.data?.id !== wire.hook) p.push(`a test event about ${d.payload?.data?.id}`);
      break;
    case "deliveries.retry":
      same("status", d.status, "pending");
      break;
    // Section 17: the organiser's participant tokens.
    case "tokens.create":
    case "signup_tokens.create": {
      if (!/^tpt_[0-9A-Za-z]{49}$/.test(String(d.token))) p.push(`token ${JSON.stringify(d.token)?.slice(0, 12)}…`);
      else if (d.prefix !== d.token.slice(0, 12)) p.push(`prefix ${d.prefix}`);
      same("tournament_id", d.tournament_id, wire.tid);
      same("name", d.name, body.name ?? (route.op === "tokens.create" ? "Registration token" : "Sign-up token"));
      if (route.op === "tokens.create") {
        const reg = /\/registrations\/([^/?;]+)\/tokens/.exec(wire.path)?.[1];
        if (reg) same("registration_id", d.registration_id, safeDecode(reg).toLowerCase());
        same("kind and scopes", [d.kind, [...d.scopes].sort()], [
          "registration",
          [...((body.scopes as string[]) ?? REGISTRATION_TOKEN_SCOPES)].sort(),
        ]);
      } else {
        same("sign-up token", [d.kind, d.scopes, d.registration_id, d.uses, d.max_uses], [
          "signup",
          ["participant:register"],
          null,
          0,
          body.max_uses ?? null,
        ]);
      }
      break;
    }
    case "tokens.list":
      if (d.some((k: { tournament_id: string }) => k.tournament_id !== wire.tid)) p.push("a token of another tournament in the list");
      break;
    case "tokens.delete":
      same("message", d.message, "Token revoked");
      break;
    // Section 17: what a participant token acts for is its own registration and tournament.
    case "participant.get": {
      const t = wire.token;
      if (t) {
        same("token", [d.token.id, [...d.token.scopes].sort()], [t.id, [...t.scopes].sort()]);
        same("tournament", d.tournament.id, t.tid);
        same("registration", d.registration?.id ?? null, t.reg);
      }
      break;
    }
    case "participant.matches": {
      const t = wire.token;
      if (t && !t.team && d.length) p.push("matches for a sign-up token");
      for (const m of d) {
        if (t?.team && m.team1_id !== t.team && m.team2_id !== t.team) p.push(`match ${m.id} is not the token's team's`);
      }
      break;
    }
    case "participant.signup": {
      const r = d.registration;
      same("tournament", r.tournament_id, wire.token?.tid);
      same("the new token", [d.token.registration_id, d.token.kind, [...d.token.scopes].sort()], [
        r.id,
        "registration",
        [...REGISTRATION_TOKEN_SCOPES].sort(),
      ]);
      if (!/^tpt_[0-9A-Za-z]{49}$/.test(String(d.token.token))) p.push("a sign-up without its token");
      same("state", r.state, "accepted");
      const sent = (body.lineup ?? []) as { role: string; captain?: boolean }[];
      same(
        "lineup",
        r.lineup.map((e: { role: string; captain: boolean }) => [e.role, e.captain]),
        sent.map((e) => [e.role, e.captain ?? false]),
      );
      break;
    }
    case "participant.lineup": {
      same("registration", d.id, wire.token?.reg);
      const sent = body.players as { player_id?: string; role: string; captain?: boolean }[];
      same(
        "lineup",
        d.lineup.map((e: { player_id: string; role: string; captain: boolean }, i: number) => [
          sent[i]?.player_id ? e.player_id : "new",
          e.role,
          e.captain,
        ]),
        sent.map((e) => [e.player_id?.toLowerCase() ?? "new", e.role, e.captain ?? false]),
      );
      break;
    }
    case "participant.check_in":
      same("registration", d.id, wire.token?.reg);
      if ((d.checked_in_at !== null) !== body.checked_in) p.push(`checked_in ${body.checked_in} gave checked_in_at ${d.checked_in_at}`);
      break;
    case "participant.withdraw":
      same("message", d.message, "Registration withdrawn");
      break;
    case "deliveries.list": {
      const at = wire.path.indexOf("?");
      // A repeated parameter: the last one counts, in the API (Object.fromEntries) as in expectFor.
      const status = new URL(`http://x/?${at < 0 ? "" : wire.path.slice(at + 1)}`).searchParams.getAll("status").at(-1);
      if (status && d.some((x: { status: string }) => x.status !== status)) p.push(`status=${status} gave another status`);
      break;
    }
    case "games.put": {
      const number = Number(decodeURIComponent(/\/games\/([^/?;]+)/.exec(wire.path)?.[1] ?? ""));
      const game = (d.games as { number: number; team1_score: number; team2_score: number; winner_id: string; lineups: unknown }[])
        .find((g) => g.number === number);
      // who played, as sent (null when not given: a correction without lineups drops them)
      same("game lineups", game?.lineups, body.lineups ?? null);
      same("game", [game?.team1_score, game?.team2_score, game?.winner_id], [
        body.team1_score,
        body.team2_score,
        (body.team1_score as number) > (body.team2_score as number) ? d.team1_id : d.team2_id,
      ]);
      same("games won", [d.team1_score, d.team2_score], [
        d.games.filter((g: { winner_id: string }) => g.winner_id === d.team1_id).length,
        d.games.filter((g: { winner_id: string }) => g.winner_id === d.team2_id).length,
      ]);
      break;
    }
    case "matches.report": {
      if (typeof body.forfeit === "string") {
        same("forfeit", d.forfeit, body.forfeit);
        if (d.status !== "completed" || d.team1_score !== null || d.team2_score !== null) {
          p.push(`a forfeit gave ${d.status} ${d.team1_score}:${d.team2_score}`);
        }
        same("winner_id", d.winner_id, body.forfeit === "team1" ? d.team2_id : d.team1_id);
      } else if (body.team1_score !== undefined) {
        same("score", [d.team1_score, d.team2_score, d.forfeit, d.status], [body.team1_score, body.team2_score, null, "completed"]);
        same("winner_id", d.winner_id, (body.team1_score as number) > (body.team2_score as number) ? d.team1_id : d.team2_id);
      }
      if (body.scheduled_at === null) same("scheduled_at", d.scheduled_at, null);
      else if (typeof body.scheduled_at === "string") {
        // stored to the millisecond (rounded), given back in UTC
        if (Math.abs(Date.parse(d.scheduled_at) - Date.parse(body.scheduled_at)) > 1 || !d.scheduled_at.endsWith("Z")) {
          p.push(`scheduled_at ${d.scheduled_at} for ${body.scheduled_at}`);
        }
      }
      break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// the database: a rejected request changes nothing

/**
 * `team`: a registration's team (a team's deletion takes its open registrations with it).
 * `hook` and `etype`: a webhook delivery's endpoint and event type.
 */
type Print = Map<
  string,
  {
    kind: string;
    id: string;
    tid: string | null;
    team?: string | null;
    hook?: string | null;
    etype?: string | null;
    /** The player a roster member or a lineup entry names (section 16). */
    player?: string | null;
    h: string;
  }
>;

async function fingerprint(fx: Fixtures): Promise<Print> {
  const rows = await sql<{ kind: string; id: string; tid: string | null; team: string | null; h: string }>(
    `select 'tournament' kind, t.id::text id, t.id::text tid, null team, md5(t::text) h from app.tournaments t where t.account_id = any($1)
     union all select 'registration', r.id::text, r.tournament_id::text, r.team_id::text, md5(r::text) from app.registrations r where r.account_id = any($1)
     union all select 'match', m.id::text, m.tournament_id::text, null, md5(m::text) from app.matches m where m.account_id = any($1)
     union all select 'stage', s.id::text, s.tournament_id::text, null, md5(s::text) from app.stages s where s.account_id = any($1)
     union all select 'stage_entry', e.tournament_id || ' ' || e.stage || ' ' || e.team_id, e.tournament_id::text, null, md5(e::text)
                 from app.stage_entries e where e.account_id = any($1)
     union all select 'idempotency', i.api_key_id || ' ' || i.idempotency_key, null, null, md5(i::text) from app.idempotency_keys i where i.account_id = any($1)
     union all select 'account', a.id::text, null, null, md5(a::text) from app.accounts a where a.id = any($1)
     -- (a participant token, section 17: its tournament's, and its registration's team's, whose deletion takes it)
     union all select 'api_key', k.id::text, k.tournament_id::text, (select r.team_id::text from app.registrations r where r.id = k.registration_id),
                      md5(row(k.account_id, k.name, k.prefix, k.key_hash, k.scopes, k.expires_at, k.revoked_at, k.created_at,
                              k.tournament_id, k.registration_id, k.max_uses, k.uses)::text)
                 from app.api_keys k where k.account_id = any($1)
     union all select 'member', m.account_id || ' ' || m.user_id, null, null, md5(m::text) from app.account_members m where m.account_id = any($1)
     -- the platform teams, and every team of the accounts (the fuzz account's, and another's it may not change)
     union all select 'team', tm.id::text, null, null, md5(tm::text) from app.teams tm where tm.id = any($2::uuid[]) or tm.account_id = any($1)
     -- what an injected statement could drop or add: the tables, functions and roles themselves
     union all select 'schema', 'objects', null, null, md5(string_agg(x, ',' order by x)) from (
       select c.oid::regclass::text x from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname in ('app', 'api', 'admin', 'auth')
       union all select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app', 'api', 'admin')
       union all select r.rolname || r.rolsuper::text || r.rolbypassrls::text from pg_roles r
        where r.rolname in ('tournament_api', 'tournament_api_owner', 'anon', 'authenticated')) objects`,
    [fx.accounts, fx.teams],
  );
  // Webhook endpoints, and which deliveries exist: without what the dispatchers of
  // tests/webhooks/delivery.test.ts change as they attempt them (failing_since, a delivery's attempts and
  // status; an endpoint they disable for failing counts as enabled).
  const hooks = await sql<{ kind: string; id: string; tid: string | null; hook: string | null; etype: string | null; h: string }>(
    `select 'webhook' kind, w.id::text id, null tid, w.id::text hook, null etype,
            md5(row(w.account_id, w.url, w.events, w.tournament_id, w.description, w.enabled or w.disabled_reason is not null,
                    w.secret, w.previous_secret, w.created_at, w.updated_at)::text) h
       from app.webhook_endpoints w where w.account_id = any($1)
     union all select 'delivery', d.id::text, e.tournament_id::text, d.endpoint_id::text, e.type,
                      md5(row(d.endpoint_id, d.event_id, e.payload)::text)
       from app.webhook_deliveries d join app.webhook_events e on e.id = d.event_id where d.account_id = any($1)`,
    [fx.accounts],
  );
  // Section 16: the accounts' players, rosters (`team`: the member's) and lineups (`tid`: the entry's
  // tournament; `team`: its registration's, whose deletion takes the entry with it).
  const people = await sql<{ kind: string; id: string; tid: string | null; team: string | null; player: string; h: string }>(
    `select 'player' kind, p.id::text id, null tid, null team, p.id::text player, md5(p::text) h from app.players p where p.account_id = any($1)
     union all select 'member', m.team_id || ' ' || m.player_id, null, m.team_id::text, m.player_id::text, md5(m::text)
                 from app.team_members m where m.account_id = any($1)
     union all select 'lineup', e.registration_id || ' ' || e.player_id, e.tournament_id::text, r.team_id::text, e.player_id::text, md5(e::text)
                 from app.lineup_entries e join app.registrations r on r.id = e.registration_id where e.account_id = any($1)`,
    [fx.accounts],
  );
  return new Map([...rows, ...hooks, ...people].map((r) => [`${r.kind} ${r.id}`, r]));
}

/** Whether a response is one whose outcome api.call saves under its Idempotency-Key (P0001 errors and successes). */
function savedForRetry(res: Res): boolean {
  if (res.status < 300) return true;
  let error: { code?: string; message?: string } = {};
  try {
    error = JSON.parse(res.text).error ?? {};
  } catch { /* not an envelope: reported elsewhere */ }
  if (res.status === 409) return error.code !== "idempotency_conflict";
  if (res.status === 404) return error.message !== "Not found." && error.message !== "No such route.";
  return res.status === 400 && error.message === "The request is invalid.";
}

interface BatchVerdict {
  problems: string[];
  verified: number;
  unverified: number;
}

/** Compares two fingerprints, allowing only the changes that the batch's accepted requests explain. */
function attribute(before: Print, after: Print, outcomes: Outcome[]): BatchVerdict {
  const added = new Set<string>();
  const dirty = new Set<string>();
  const dirtyTeams = new Set<string>();
  const deletedTeams = new Set<string>();
  /** Tournaments an accepted request made or changed: their events' deliveries. */
  const touched = new Set<string>();
  /** Webhook endpoints an accepted request made or changed (with their deliveries). */
  const dirtyHooks = new Set<string>();
  /** Players an accepted request changed or deleted (section 16): their lineups, and their tournaments, follow. */
  const dirtyPlayers = new Set<string>();
  const deletedPlayers = new Set<string>();
  /** Teams whose roster an accepted participant request made (a sign-up's new team: section 17). */
  const rosterTeams = new Set<string>();
  for (const o of outcomes) {
    const route = o.spec.pathKind === "canonical" ? routeOf(o.spec.template, o.wire.method) : null;
    if (!route || route.method === "GET") continue;
    if (o.res.status >= 200 && o.res.status < 300) {
      const data = JSON.parse(o.res.text).data;
      if (o.wire.tid) touched.add(o.wire.tid);
      if (route.op === "tournaments.create") {
        added.add(`tournament ${data.id}`);
        touched.add(data.id);
      } else if (route.op === "registrations.create") added.add(`registration ${data.id}`);
      else if (route.op === "teams.create") added.add(`team ${data.id}`);
      else if (route.op === "players.create") added.add(`player ${data.id}`);
      else if (route.op === "participant.signup" || route.op === "participant.lineup") {
        // Section 17: a sign-up makes a team (and its roster) and players, or takes the account's players by
        // external_id (their handles updated); a participant's lineup may too. The rest is the token's tournament's.
        const r = route.op === "participant.signup" ? data.registration : data;
        if (route.op === "participant.signup") {
          added.add(`team ${r.team_id}`);
          rosterTeams.add(r.team_id);
        }
        for (const e of r.lineup as { player_id: string }[]) {
          added.add(`player ${e.player_id}`);
          dirtyPlayers.add(e.player_id);
        }
      } else if (o.wire.player && route.op.startsWith("players.")) {
        dirtyPlayers.add(o.wire.player);
        if (route.op === "players.delete") deletedPlayers.add(o.wire.player);
      } else if (route.op === "webhooks.create") {
        added.add(`webhook ${data.id}`);
        dirtyHooks.add(data.id);
      } else if (o.wire.hook) dirtyHooks.add(o.wire.hook);
      else if (o.wire.team) {
        dirtyTeams.add(o.wire.team);
        if (route.op === "teams.delete") deletedTeams.add(o.wire.team);
      }
      // An accepted request about a tournament may change it (its version, at least), whatever else it names.
      if (o.wire.tid) dirty.add(o.wire.tid);
    }
    if (route.method === "POST" && o.wire.keyId && o.spec.idem !== null && savedForRetry(o.res)) {
      added.add(`idempotency ${o.wire.keyId} ${o.spec.idem.trim()}`);
    }
  }
  // A player changed or deleted: the lineups that held it in tournaments still in registration change
  // (a new handle, or the entry gone), and so do their registrations and tournaments (versions, events).
  for (const r of before.values()) if (r.kind === "lineup" && r.player && dirtyPlayers.has(r.player) && r.tid) dirty.add(r.tid);
  // A tournament that lost a registration with a deleted team: its version went up (section 14).
  const lostRegistration = new Set(
    [...before.values()]
      .filter((r) => r.kind === "registration" && !after.has(`registration ${r.id}`) && !!r.team && deletedTeams.has(r.team))
      .map((r) => r.tid),
  );
  const problems: string[] = [];
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(key);
    const now = after.get(key);
    if (was?.h === now?.h) continue;
    const row = (now ?? was)!;
    const explained = (row.tid !== null && dirty.has(row.tid)) || (!was && added.has(key)) ||
      (row.kind === "team" && dirtyTeams.has(row.id)) ||
      // a deleted team's registrations in tournaments still in registration go with it (and their participant tokens)
      (!now && (row.kind === "registration" || row.kind === "api_key") && !!row.team && deletedTeams.has(row.team)) ||
      (row.kind === "tournament" && lostRegistration.has(row.id)) ||
      (row.kind === "webhook" && dirtyHooks.has(row.id)) ||
      // section 16: a player changed or deleted; a roster changed (or gone with its team or player); a
      // lineup entry gone with its registration's deleted team, or with its player
      (row.kind === "player" && dirtyPlayers.has(row.id)) ||
      (row.kind === "member" &&
        (dirtyTeams.has(row.team ?? "") || rosterTeams.has(row.team ?? "") || (!now && deletedPlayers.has(row.player ?? "")))) ||
      (row.kind === "lineup" && !now && (deletedTeams.has(row.team ?? "") || deletedPlayers.has(row.player ?? ""))) ||
      // a delivery: of an event of a tournament an accepted request changed, or of an endpoint one
      // changed (a test event; a deletion takes them with it), or of a withdrawal by a team's deletion
      (row.kind === "delivery" && ((!!row.tid && (touched.has(row.tid) || dirty.has(row.tid))) || dirtyHooks.has(row.hook ?? "") ||
        (row.etype === "registration.withdrawn" && deletedTeams.size > 0)));
    if (explained) continue;
    const suspects = outcomes.filter((o) =>
      o.res.status >= 400 && (!row.tid || o.wire.tid === row.tid) &&
      (row.kind !== "team" || !o.wire.team || o.wire.team === row.id) &&
      (!row.hook || !o.wire.hook || o.wire.hook === row.hook)
    );
    problems.push(
      `${key} was ${!was ? "added" : !now ? "removed" : "changed"} though no accepted request explains it; ` +
        `rejected requests that may have done it:\n${suspects.slice(0, 5).map((o) => describeRequest(o)).join("\n")}`,
    );
  }
  // An endpoint the account still has after the batch existed during it (ids are never reused):
  // a request about it answered 404 lied, unless the 404 is about the body's tournament_id.
  const aboutTournament = (o: Outcome) => {
    try {
      return JSON.parse(o.res.text).error?.message === "Tournament not found.";
    } catch {
      return false;
    }
  };
  for (const o of outcomes) {
    if (
      o.wire.hook && o.res.status === 404 && o.spec.pathKind === "canonical" && after.has(`webhook ${o.wire.hook}`) &&
      (!o.wire.path.includes("/deliveries/") || o.wire.coherent) && !aboutTournament(o)
    ) {
      problems.push(`404 for endpoint ${o.wire.hook}, which exists:\n${describeRequest(o)}`);
    }
  }
  let verified = 0;
  let unverified = 0;
  for (const o of outcomes) {
    if (o.res.status < 400) continue;
    if (
      (o.wire.tid && dirty.has(o.wire.tid)) || (o.wire.team && dirtyTeams.has(o.wire.team)) ||
      (o.wire.hook && dirtyHooks.has(o.wire.hook)) || (o.wire.player && dirtyPlayers.has(o.wire.player))
    ) unverified++;
    else verified++;
  }
  return { problems, verified, unverified };
}

/**
 * Whether a request is a participant token's mint (section 17) answered 500 whose registration (a registration
 * token's) or tournament (a sign-up token's) is gone after its batch: the known defect of a mint racing a deletion.
 */
function mintRace(o: Outcome, after: Print): boolean {
  const route = o.spec.pathKind === "canonical" ? routeOf(o.spec.template, o.wire.method) : undefined;
  if (o.res.status !== 500 || (route?.op !== "tokens.create" && route?.op !== "signup_tokens.create")) return false;
  const m = /\/tournaments\/([^/?;]+)\/(?:registrations\/([^/?;]+)\/tokens|signup-tokens)/.exec(o.wire.path);
  if (!m) return false;
  const id = (s: string) => safeDecode(s).toLowerCase();
  return m[2] ? !after.has(`registration ${id(m[2])}`) : !after.has(`tournament ${id(m[1])}`);
}

function describeRequest(o: Outcome): string {
  const headers = { ...o.wire.headers };
  if (headers.authorization) {
    headers.authorization = String(headers.authorization).replace(/tmk_[0-9A-Za-z]+/g, "tmk_<key>").replace(
      /tpt_[0-9A-Za-z]+/g,
      "tpt_<token>",
    );
  }
  const bytes = o.wire.body ?? (o.wire.chunks ? Buffer.concat(o.wire.chunks) : undefined);
  const body = bytes === undefined
    ? ""
    : bytes.length > 300
    ? ` body (${bytes.length} bytes, ${o.spec.label}) ${JSON.stringify(bytes.subarray(0, 200).toString("latin1"))}…`
    : ` body (${o.spec.label}) ${JSON.stringify(bytes.toString("latin1"))}`;
  return `  ${o.wire.method} ${o.wire.path.slice(0, 300)} auth=${o.spec.auth.kind} headers=${JSON.stringify(headers)}${body}` +
    `\n    → ${o.res.status} ${o.res.text.slice(0, 400)}`;
}

// ---------------------------------------------------------------------------------------------

describe("what the fuzzer found", () => {
  // Postgres stores offsets up to ±15:59 and years up to 294276, but the API answers with
  // 4-digit years: a later instant came back as "10000-01-01T…Z" (not ISO 8601, Date.parse → NaN),
  // and an offset past ±15:59 was a 400 without details.
  it.each([
    ["9999-12-31T23:59:59-14:00", /between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z/],
    ["9999-12-31T23:59:59.9999999Z", /between/],
    ["2027-06-01T12:00:00+23:59", /offset between -15:59 and \+15:59/],
    ["2027-06-01T12:00:00-16:00", /offset/],
  ])("refuses starts_at %s with a validation_error naming the field, and creates nothing", async (startsAt, message) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ starts_at: startsAt }) });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(res.body.error.details).toEqual([{ field: "starts_at", message: expect.stringMatching(message) }]);
    expect(await sql("select id from app.tournaments where account_id = $1", [t.accountId])).toEqual([]);
  });

  it("refuses a registration_closes before year 1 in UTC on PATCH, naming the field", async () => {
    const t = await tenant();
    const created = await t.request("POST", "/tournaments", { body: tournamentBody() });
    const res = await t.request("PATCH", `/tournaments/${created.body.data.id}`, {
      body: { registration_closes: "0001-01-01T00:00:00+14:00" },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.details).toEqual([{ field: "registration_closes", message: expect.stringMatching(/between/) }]);
  });

  // Section 17: a participant token's expires_at in the past is a 400 naming the field (the route's own
  // description: "A future date-time"); the contract's order puts input (400) before existence (404), and a
  // tournament's dates are checked so ("the same 400 for any id"). The token routes look the tournament up first.
  // KNOWN DEFECT (the fuzz's oracle tolerates it, see expectOutcome): these fail until it is fixed.
  it.each([
    ["a registration token", (tid: string) => `/tournaments/${tid}/registrations/${crypto.randomUUID()}/tokens`],
    ["a sign-up token", (tid: string) => `/tournaments/${tid}/signup-tokens`],
  ])("refuses %s expiring in the past as input, whatever the ids name (400 before 404)", async (_kind, pathOf) => {
    const t = await tenant();
    const created = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expect(created.status, created.text).toBe(201);
    const body = { expires_at: "2020-01-01T00:00:00Z" };
    for (const tid of [created.body.data.id, crypto.randomUUID()]) {
      const res = await t.request("POST", pathOf(tid), { body });
      expect([res.status, res.body.error.code], `${pathOf(tid)}: ${res.text}`).toEqual([400, "validation_error"]);
      expect(res.body.error.details).toEqual([{ field: "expires_at", message: expect.any(String) }]);
    }
    expect(await sql("select id from app.api_keys where account_id = $1 and tournament_id is not null", [t.accountId])).toEqual([]);
  });

  // Section 17: minting checks that the registration (or the tournament) is there, then inserts the token; when a
  // concurrent request deletes it in between (a withdrawal, the organiser's DELETE, a team's deletion), the insert
  // failed its foreign key: a 500 (23503 api_keys_registration_fkey), where the contract wants not_found (a 5xx is a
  // bug). Here the deletion is held open until the mint waits on it, then committed. KNOWN DEFECT: fails until it is
  // fixed (the fuzz counts such 500s apart, see "fuzzing every route").
  it.each(
    [
      ["a registration token", "registration"],
      ["a sign-up token", "tournament"],
    ] as const,
  )("answers 404 for %s whose registration or tournament a concurrent request deletes, not a 500", async (_kind, gone) => {
    const t = await tenant();
    const tour = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expect(tour.status, tour.text).toBe(201);
    const [team] = await createTeams(1, "Race");
    const reg = await t.request("POST", `/tournaments/${tour.body.data.id}/registrations`, { body: { team_id: team } });
    expect(reg.status, reg.text).toBe(201);
    const client = await admin().connect();
    try {
      await client.query("begin");
      await client.query(
        gone === "registration" ? "delete from app.registrations where id = $1" : "delete from app.tournaments where id = $1",
        [gone === "registration" ? reg.body.data.id : tour.body.data.id],
      );
      const minted = t.request(
        "POST",
        gone === "registration"
          ? `/tournaments/${tour.body.data.id}/registrations/${reg.body.data.id}/tokens`
          : `/tournaments/${tour.body.data.id}/signup-tokens`,
        { body: {} },
      );
      await new Promise((r) => setTimeout(r, 500)); // the mint found the row, and waits on its lock to insert
      await client.query("commit");
      const res = await minted;
      expect([res.status, res.body.error?.code], res.text).toEqual([404, "not_found"]);
    } finally {
      await client.query("rollback").catch(() => {});
      client.release();
    }
    expect(await sql("select id from app.api_keys where account_id = $1 and tournament_id is not null", [t.accountId])).toEqual([]);
  });

  it.each(["2030-01-01T00:00:00+15:59", "2030-01-01T00:00:00-15:59", "9999-12-31T23:59:59+14:00"])(
    "still accepts %s, returned in UTC",
    async (startsAt) => {
      const t = await tenant();
      const res = await t.request("POST", "/tournaments", { body: tournamentBody({ starts_at: startsAt }) });
      expect(res.status, res.text).toBe(201);
      expect(res.body.data.starts_at).toBe(new Date(startsAt).toISOString());
    },
  );
});

describe("the fuzzer's own checks", () => {
  // The database check must be able to fail: a change that no accepted request explains.
  it("blames a rejected request for a row that changed, and not an accepted one for its own row", () => {
    const print = (h: string): Print => new Map([["tournament t1", { kind: "tournament", id: "t1", tid: "t1", h }]]);
    const outcome = (status: number, method: string, tid: string): Outcome => ({
      spec: { template: "/tournaments/{id}", pathKind: "canonical", idem: null, label: "x", auth: { kind: "full", format: "" } } as Spec,
      wire: {
        method,
        path: "/x",
        headers: {},
        fresh: false,
        scopes: null,
        keyId: null,
        owner: "A",
        coherent: true,
        tid,
        tstate: null,
        team: null,
        teamRole: null,
      },
      res: { status, headers: {}, text: status < 300 ? '{"data":{}}' : "{}" },
      expected: null,
      problems: [],
    });
    expect(attribute(print("a"), print("b"), [outcome(409, "PATCH", "t1")]).problems).toHaveLength(1);
    expect(attribute(print("a"), print("b"), [outcome(200, "PATCH", "t1")]).problems).toEqual([]);
    expect(attribute(print("a"), print("a"), [outcome(409, "PATCH", "t1")]).problems).toEqual([]);
  });

  it("flags a 5xx, a body that is not the envelope, a wrong request id, a leak and an unexpected outcome", () => {
    const spec = { template: "/tournaments", pathKind: "canonical", auth: { kind: "full", format: "" } } as Spec;
    const wire: Wire = {
      method: "GET",
      path: "/x",
      headers: {},
      fresh: false,
      scopes: null,
      keyId: null,
      owner: "A",
      coherent: true,
      tid: null,
      tstate: null,
      team: null,
      teamRole: null,
    };
    const fx = { secrets: ["other-account-id"] } as Fixtures;
    const headers = { "x-request-id": "r1", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
    const meta = { timestamp: new Date().toISOString(), api_version: "1.0", request_id: "r1" };
    const envelope = (body: unknown, status = 200, h: Record<string, string> = headers) =>
      check(spec, wire, { status, headers: h, text: typeof body === "string" ? body : JSON.stringify(body) }, ["ok"], fx);
    const ok = { success: true, data: [], pagination: { page: 1, limit: 20, total: 0 }, meta };
    expect(envelope(ok)).toEqual([]);
    expect(envelope({ success: false, error: { code: "internal_error", message: "x" }, meta }, 500)).toEqual(
      expect.arrayContaining(["status 500", "expected ok, got internal_error"]),
    );
    expect(envelope("<html>Bad Gateway</html>", 502)).toContain("the body is not JSON");
    expect(envelope(ok, 200, { ...headers, "x-request-id": "r2" })).toContain("meta.request_id differs from X-Request-Id");
    expect(envelope({ ...ok, data: [{ id: "other-account-id" }] })).toContain("another account's data in the response: other-account-id");
    expect(envelope({ ...ok, meta: { ...meta, api_version: "2" } })).toContain("meta.api_version");
    expect(envelope({ success: false, error: { code: "teapot", message: "x" }, meta }, 418)).toContain("unknown error code teapot");
    expect(envelope({ success: false, error: { code: "not_found", message: "x" }, meta }, 400)).toContain("not_found with status 400");
  });

  const T1 = "11111111-1111-4111-8111-111111111111";
  const teamWire = (method: string, teamRole: TeamRole | null, extra: Partial<Wire> = {}): Wire => ({
    method,
    path: `/x/teams/${T1}`,
    headers: {},
    fresh: false,
    scopes: ALL_SCOPES,
    keyId: null,
    owner: "A",
    coherent: true,
    tid: null,
    tstate: null,
    team: teamRole ? T1 : null,
    teamRole,
    ...extra,
  });
  const teamSpec = {
    template: "/teams/{team_id}",
    pathKind: "canonical",
    idem: null,
    label: "x",
    query: "",
    auth: { kind: "full", format: "" },
  } as Spec;

  it("explains a registration gone with its deleted team, and blames a rejected request for a team that changed", () => {
    const regs = (h?: string): Print => new Map(h ? [["registration r1", { kind: "registration", id: "r1", tid: "t1", team: T1, h }]] : []);
    const team = (h: string): Print => new Map([[`team ${T1}`, { kind: "team", id: T1, tid: null, h }]]);
    const outcome = (status: number, method: string): Outcome => ({
      spec: teamSpec,
      wire: teamWire(method, "disposable"),
      res: { status, headers: {}, text: status < 300 ? '{"data":{"message":"Team deleted"}}' : "{}" },
      expected: null,
      problems: [],
    });
    expect(attribute(regs("a"), regs(), [outcome(200, "DELETE")]).problems).toEqual([]);
    expect(attribute(regs("a"), regs(), [outcome(409, "DELETE")]).problems).toHaveLength(1);
    expect(attribute(regs("a"), regs("b"), [outcome(200, "DELETE")]).problems).toHaveLength(1); // changed, not gone
    expect(attribute(team("a"), team("b"), [outcome(403, "PATCH")]).problems).toHaveLength(1);
    expect(attribute(team("a"), team("b"), [outcome(200, "PATCH")]).problems).toEqual([]);
  });

  it("predicts a team's answers by whose it is, and checks what comes back", () => {
    const expectTeam = (method: string, role: TeamRole | null, owner: Wire["owner"] = "A") =>
      expectFor({ ...teamSpec, method }, teamWire(method, role, { owner }));
    expect(expectTeam("GET", "other", "B")).toEqual(["ok"]);
    expect(expectTeam("GET", "platform", "none")).toEqual(["ok"]);
    expect(expectTeam("DELETE", "platform", "none")).toEqual(["team_not_owned"]);
    expect(expectTeam("DELETE", "inUse")).toEqual(["team_in_use"]);
    expect(expectTeam("GET", null, "none")).toEqual(["not_found"]);
    expect(expectTeam("DELETE", null, "bad")).toEqual(["not_found"]);
    expect(expectFor({ ...teamSpec, template: "/me", method: "GET" }, teamWire("GET", null, { scopes: ["read:results"] }))).toEqual(["ok"]);

    const fx = {
      secrets: [],
      accountId: "acc",
      keys: { full: [{ id: "k1", key: "tmk_abcdefgh123", scopes: ALL_SCOPES }], limited: [] },
    } as unknown as Fixtures;
    const data = (d: unknown, route: string, method: string, wire: Wire) => {
      const problems: string[] = [];
      checkData(routeOf(route, method)!, wire, d, problems, fx);
      return problems;
    };
    const team = { id: T1, name: "n", tag: "t", logo_url: null, owned: true, created_at: "2026-01-01T00:00:00.000Z" };
    expect(data(team, "/teams/{team_id}", "GET", teamWire("GET", "core"))).toEqual([]);
    expect(data(team, "/teams/{team_id}", "GET", teamWire("GET", "other", { owner: "B" }))).toEqual(["owned true for team role other"]);
    const list = (query: string, teams: unknown[]) => data(teams, "/teams", "GET", { ...teamWire("GET", null), path: `/x/teams?${query}` });
    expect(list("owned=false", [{ ...team, owned: false }])).toEqual([]);
    expect(list("owned=false", [team])).toHaveLength(1);
    expect(list("search=%25", [{ ...team, name: "100% Gaming" }])).toEqual([]);
    expect(list("search=%25", [team])).toHaveLength(1); // % is a plain character
    const me = {
      key: {
        id: "k1",
        name: "k",
        prefix: "tmk_abcdefgh",
        scopes: [...ALL_SCOPES].reverse(),
        expires_at: null,
        created_at: team.created_at,
      },
      account: { id: "acc", name: "a" },
      rate_limit: { limit: 100, remaining: 99, reset: 60, window: 60 },
    };
    expect(data(me, "/me", "GET", teamWire("GET", null, { keyId: "k1" }))).toEqual([]);
    expect(data(me, "/me", "GET", teamWire("GET", null, { keyId: "k2" }))).toHaveLength(1);
    expect(data({ ...me, account: { id: "other", name: "b" } }, "/me", "GET", teamWire("GET", null, { keyId: "k1" }))).toHaveLength(1);
  });

  it("predicts a webhook endpoint's answers by whose it is, and blames what no accepted request explains", () => {
    const H = "22222222-2222-4222-8222-222222222222";
    const T = "33333333-3333-4333-8333-333333333333";
    const fx = { aCore: [{ id: T, regs: [], matches: [] }] } as unknown as Fixtures;
    const hookSpec = (template: string, method: string) =>
      ({ template, method, pathKind: "canonical", idem: null, label: "x", query: "", auth: { kind: "full", format: "" } }) as Spec;
    const hookWire = (method: string, extra: Partial<Wire> = {}): Wire => ({
      method,
      path: `/x/webhooks/${H}`,
      headers: { "content-type": "application/json" },
      fresh: false,
      scopes: ALL_SCOPES,
      keyId: null,
      owner: "A",
      coherent: true,
      tid: null,
      tstate: null,
      team: null,
      teamRole: null,
      hook: H,
      hookRole: "core",
      ...extra,
    });
    const patch = (body: unknown, extra: Partial<Wire> = {}) =>
      expectFor(hookSpec("/webhooks/{webhook_id}", "PATCH"), hookWire("PATCH", { body: Buffer.from(JSON.stringify(body)), ...extra }), fx);
    expect(expectFor(hookSpec("/webhooks/{webhook_id}", "GET"), hookWire("GET"), fx)).toEqual(["ok"]);
    expect(expectFor(hookSpec("/webhooks/{webhook_id}", "GET"), hookWire("GET", { hookRole: "disposable" }), fx)).toEqual([
      "ok",
      "not_found",
    ]);
    expect(patch({ tournament_id: T })).toEqual(["ok"]);
    expect(patch({ tournament_id: crypto.randomUUID() })).toEqual(["not_found"]);
    expect(patch({ events: [] })).toEqual(["validation_error"]);
    expect(patch({ enabled: true }, { owner: "B", hook: null, hookRole: null, coherent: false })).toEqual(["not_found"]);
    const create = (body: unknown) =>
      expectFor(
        hookSpec("/webhooks", "POST"),
        hookWire("POST", { path: "/x/webhooks", body: Buffer.from(JSON.stringify(body)), hook: null, hookRole: null }),
        fx,
      );
    expect(create({ url: "http://127.0.0.1:9/x", events: ["*"] })).toEqual(["ok", "webhook_limit_reached"]);
    expect(create({ url: "http://127.0.0.1:9/x", events: ["*"], tournament_id: crypto.randomUUID() })).toEqual(["not_found"]);

    const row = (kind: string, id: string, extra: object, h: string): Print =>
      new Map([[`${kind} ${id}`, { kind, id, tid: null, h, ...extra }]]);
    const outcome = (status: number, method: string, wire: Partial<Wire>, text = "{}"): Outcome => ({
      spec: hookSpec("/webhooks/{webhook_id}", method),
      wire: hookWire(method, wire),
      res: { status, headers: {}, text },
      expected: null,
      problems: [],
    });
    // an endpoint changed by a rejected PATCH, or by an accepted one
    expect(attribute(row("webhook", H, { hook: H }, "a"), row("webhook", H, { hook: H }, "b"), [outcome(400, "PATCH", {})]).problems)
      .toHaveLength(1);
    expect(
      attribute(row("webhook", H, { hook: H }, "a"), row("webhook", H, { hook: H }, "b"), [outcome(200, "PATCH", {}, '{"data":{}}')])
        .problems,
    ).toEqual([]);
    // a delivery of an event of a tournament an accepted request changed; and one nothing explains
    const delivery = row("delivery", "d1", { tid: T, hook: H, etype: "tournament.updated" }, "a");
    const tournamentPatch: Outcome = {
      ...outcome(200, "PATCH", { hook: null, hookRole: null, tid: T }, '{"data":{}}'),
      spec: hookSpec("/tournaments/{id}", "PATCH"),
    };
    expect(attribute(new Map(), delivery, [tournamentPatch]).problems).toEqual([]);
    expect(attribute(new Map(), delivery, [{ ...tournamentPatch, res: { status: 409, headers: {}, text: "{}" } }]).problems).toHaveLength(
      1,
    );
    // a 404 about an endpoint that is still there
    const ghost = attribute(row("webhook", H, { hook: H }, "a"), row("webhook", H, { hook: H }, "a"), [
      outcome(404, "DELETE", { hookRole: "disposable" }),
    ]);
    expect(ghost.problems).toEqual([expect.stringContaining(`404 for endpoint ${H}, which exists`)]);
    // ... but not a 404 about the body's tournament_id (an unknown one or another account's)
    const aimed = attribute(row("webhook", H, { hook: H }, "a"), row("webhook", H, { hook: H }, "a"), [
      outcome(404, "PATCH", {}, '{"success":false,"error":{"code":"not_found","message":"Tournament not found."}}'),
    ]);
    expect(aimed.problems).toEqual([]);
  });

  it("predicts a stage's answers: a started tournament's stages are known, a number the function refuses is 404", () => {
    const T = "44444444-4444-4444-8444-444444444444";
    const stageSpec = (template: string, method: string, query = "") =>
      ({ template, method, pathKind: "canonical", idem: null, label: "x", query, auth: { kind: "full", format: "" } }) as Spec;
    const stageWire = (method: string, extra: Partial<Wire> = {}): Wire => ({
      method,
      path: `/x/tournaments/${T}/stages/2`,
      headers: { "content-type": "application/json" },
      fresh: false,
      scopes: ALL_SCOPES,
      keyId: null,
      owner: "A",
      coherent: true,
      tid: T,
      tstate: "started",
      team: null,
      teamRole: null,
      stage: 2,
      stages: 2,
      ...extra,
    });
    const STAGE = "/tournaments/{tournament_id}/stages/{number}";
    const patch = (body: unknown, extra: Partial<Wire> = {}) =>
      expectFor(stageSpec(STAGE, "PATCH"), stageWire("PATCH", { body: Buffer.from(JSON.stringify(body)), ...extra }));
    expect(patch({ status: "ongoing" })).toEqual(["ok", "invalid_status_transition", "stage_tie"]);
    expect(patch({ status: "ongoing", advancing: [T, crypto.randomUUID()] })).toEqual([
      "ok",
      "invalid_status_transition",
      "stage_tie",
      "validation_error",
    ]);
    expect(patch({ status: "pending" })).toEqual(["ok", "invalid_status_transition"]);
    expect(patch({ status: "pending" }, { stage: 1 })).toEqual(["invalid_status_transition"]); // stage 1 started with the tournament
    expect(patch({ status: "ongoing" }, { stage: 1 })).toEqual(["ok", "invalid_status_transition"]);
    expect(patch({ status: "completed" }, { tstate: "completed" })).toEqual(["ok"]);
    expect(patch({ status: "ongoing" }, { tstate: "completed" })).toEqual(["invalid_status_transition"]);
    expect(patch({ status: "ongoing" }, { stage: 3 })).toEqual(["not_found"]); // past its stages
    expect(patch({ status: "ongoing" }, { tstate: null })).toEqual(["ok", "invalid_status_transition", "stage_tie", "not_found"]);
    expect(patch({ status: "started" })).toEqual(["validation_error"]);
    expect(patch({ status: "pending", advancing: [T] })).toEqual(["validation_error"]);
    expect(patch({ status: "ongoing", extra: 1 })).toEqual(["validation_error"]);
    expect(patch({ status: "ongoing" }, { owner: "bad", stage: null, coherent: false })).toEqual(["not_found"]);
    expect(patch({ status: "ongoing" }, { owner: "B", coherent: false, tstate: null })).toEqual(["not_found"]);
    expect(expectFor(stageSpec(STAGE, "GET"), stageWire("GET", { stage: 3 }))).toEqual(["not_found"]);
    expect(expectFor(stageSpec(STAGE, "GET"), stageWire("GET"))).toEqual(["ok"]);
    const results = (query: string, extra: Partial<Wire> = {}) =>
      expectFor(
        stageSpec("/tournaments/{tournament_id}/results", "GET", query),
        stageWire("GET", { path: `/x/tournaments/${T}/results?${query}`, stage: null, ...extra }),
      );
    expect(results("stage=2")).toEqual(["ok"]);
    expect(results("stage=02")).toEqual(["ok"]);
    expect(results("stage=3")).toEqual(["validation_error"]); // past its stages: a 400 naming stage
    expect(results("stage=5")).toEqual(["validation_error"]); // past any tournament's: the schema's
    expect(results("stage=1&stage=3")).toEqual(["validation_error"]); // the last one counts
    expect(results("stage=3", { tstate: null })).toEqual(["ok", "not_found", "validation_error"]);
    expect(results("stage=1", { tstate: null })).toEqual(["ok", "not_found"]);
    expect(results("stage=3", { owner: "B", coherent: false, tstate: null })).toEqual(["not_found"]);
    expect([
      stageNumber("2"),
      stageNumber("%32"),
      stageNumber("9999"),
      stageNumber("01"),
      stageNumber("10000"),
      stageNumber("%"),
      stageNumber("1%20"),
      stageNumber("%EF%BC%91"),
    ]).toEqual([2, 2, 9999, null, null, null, null, null]);

    const fx = { secrets: [] } as unknown as Fixtures;
    const data = (d: unknown, template: string, method: string, wire: Wire) => {
      const problems: string[] = [];
      checkData(routeOf(template, method)!, wire, d, problems, fx);
      return problems;
    };
    const doc = {
      number: 2,
      name: "Playoffs",
      format: "single_elimination",
      format_options: {},
      advance: null,
      status: "ongoing",
      team_count: 2,
      started_at: "2026-01-01T00:00:00.000Z",
      completed_at: null,
      standings: [],
      qualifiers: null,
    };
    const body = (b: unknown) => ({ body: Buffer.from(JSON.stringify(b)) });
    expect(data(doc, STAGE, "PATCH", stageWire("PATCH", body({ status: "ongoing" })))).toEqual([]);
    expect(data(doc, STAGE, "PATCH", stageWire("PATCH", body({ status: "pending" })))).toHaveLength(1);
    expect(data(doc, STAGE, "GET", stageWire("GET", { stage: 1 }))).toHaveLength(1);
    const list = [{ ...doc, number: 1, status: "completed", completed_at: doc.started_at }, {
      ...doc,
      status: "pending",
      team_count: null,
      started_at: null,
    }];
    expect(data(list, "/tournaments/{tournament_id}/stages", "GET", stageWire("GET"))).toEqual([]);
    expect(data([list[1], list[0]], "/tournaments/{tournament_id}/stages", "GET", stageWire("GET"))).not.toEqual([]);
    expect(data([list[0]], "/tournaments/{tournament_id}/stages", "GET", stageWire("GET"))).toHaveLength(1); // 2 stages known
    const res = (stage: number) => ({
      tournament: { id: T, format: "round_robin", status: "ongoing", stage: 2 },
      standings: [],
      matches: [{ stage }],
    });
    const resultsWire = stageWire("GET", { path: `/x/tournaments/${T}/results?stage=1`, stage: null });
    expect(data(res(1), "/tournaments/{tournament_id}/results", "GET", resultsWire)).toEqual([]);
    expect(data(res(2), "/tournaments/{tournament_id}/results", "GET", resultsWire)).toHaveLength(1);
    const tournament = {
      format: "swiss",
      format_options: { rounds: null },
      stages: [{ format: "swiss", format_options: { rounds: null }, advance: { top: 4 } }, {
        format: "single_elimination",
        format_options: {},
        advance: null,
      }],
    };
    const tWire = stageWire("GET", { path: `/x/tournaments/${T}`, stage: null });
    expect(data(tournament, "/tournaments/{id}", "GET", tWire)).toEqual([]);
    expect(data({ ...tournament, format: "round_robin" }, "/tournaments/{id}", "GET", tWire)).toHaveLength(1);
    expect(data({ ...tournament, stages: [tournament.stages[1], tournament.stages[0]] }, "/tournaments/{id}", "GET", tWire)).not.toEqual(
      [],
    );

    // A stage_tie's details name the tied teams; no other error's details carry more than field and message.
    const headers = { "x-request-id": "r1", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
    const meta = { timestamp: new Date().toISOString(), api_version: "1.0", request_id: "r1" };
    const tied = (i: number) => ({
      field: "advancing",
      message: `Team ${i} shares place 3 at the cut`,
      team_id: crypto.randomUUID(),
      team_name: `Team ${i}`,
      from_position: 3,
    });
    const answer = (code: string, status: number, details: unknown[]) =>
      check(
        stageSpec(STAGE, "PATCH"),
        stageWire("PATCH"),
        { status, headers, text: JSON.stringify({ success: false, error: { code, message: "x", details }, meta }) },
        [code],
        fx,
      );
    expect(answer("stage_tie", 409, [tied(3), tied(4)])).toEqual([]);
    expect(answer("stage_tie", 409, [tied(3)])).toEqual(["a stage_tie without the tied teams"]);
    expect(answer("stage_tie", 409, [tied(3), { field: "advancing", message: "x" }])).toHaveLength(1);
    expect(answer("stage_tie", 409, [tied(3), { ...tied(4), team_id: "x" }])).toHaveLength(1);
    expect(answer("validation_error", 400, [tied(3)])).toHaveLength(1);
    expect(answer("validation_error", 400, [{ field: "advancing", message: "x" }])).toEqual([]);
  });

  it("predicts a player's, a roster's and a lineup's answers by whose they are, and blames what no accepted request explains", () => {
    const P = "55555555-5555-4555-8555-555555555555";
    const T = "66666666-6666-4666-8666-666666666666";
    const R = "77777777-7777-4777-8777-777777777777";
    const fx = { players: { core: [P], inUse: [], disposable: [], created: [] }, aCore: [], secrets: [] } as unknown as Fixtures;
    const spec = (template: string, method: string) =>
      ({ template, method, pathKind: "canonical", idem: null, label: "x", query: "", auth: { kind: "full", format: "" } }) as Spec;
    const wire = (method: string, extra: Partial<Wire> = {}): Wire => ({
      method,
      path: `/x/players/${P}`,
      headers: { "content-type": "application/json" },
      fresh: false,
      scopes: ALL_SCOPES,
      keyId: null,
      owner: "A",
      coherent: true,
      tid: null,
      tstate: null,
      team: null,
      teamRole: null,
      player: P,
      playerRole: "core",
      ...extra,
    });
    const body = (b: unknown) => ({ body: Buffer.from(JSON.stringify(b)) });
    const PLAYER = "/players/{player_id}";
    const player = (method: string, extra: Partial<Wire> = {}) => expectFor(spec(PLAYER, method), wire(method, extra), fx);
    expect(player("GET")).toEqual(["ok"]);
    expect(player("GET", { playerRole: "disposable" })).toEqual(["ok", "not_found"]);
    expect(player("GET", { playerRole: "other", owner: "B", coherent: false })).toEqual(["not_found"]);
    expect(player("DELETE", { player: null, playerRole: null, owner: "none", coherent: false })).toEqual(["not_found"]);
    expect(player("DELETE", { playerRole: "inUse" })).toEqual(["player_in_use"]);
    expect(player("DELETE", { playerRole: "disposable" })).toEqual(["ok", "player_in_use", "not_found"]);
    expect(player("PATCH", body({ external_id: "x" }))).toEqual(["ok", "external_id_taken"]);
    expect(player("PATCH", body({ external_id: null, handle: " h " }))).toEqual(["ok"]);
    expect(player("PATCH", body({ country: "se" }))).toEqual(["validation_error"]);
    expect(player("PATCH", body({}))).toEqual(["validation_error"]);
    const create = (b: unknown) =>
      expectFor(spec("/players", "POST"), wire("POST", { path: "/x/players", player: null, playerRole: null, ...body(b) }), fx);
    expect(create({ handle: "h", external_id: "e" })).toEqual(["ok", "external_id_taken"]);
    expect(create({ handle: "h", game_accounts: { myspace: "1" } })).toEqual(["validation_error"]);
    // a roster: its team's account alone (403 before the player is looked up), with its own players
    const MEMBER = "/teams/{team_id}/players/{player_id}";
    const member = (teamRole: TeamRole, playerRole: PlayerRole | null, method = "PUT") =>
      expectFor(
        spec(MEMBER, method),
        wire(method, {
          path: `/x/teams/${T}/players/${P}`,
          team: T,
          teamRole,
          player: playerRole ? P : null,
          playerRole,
          ...(method === "PUT" ? body({ role: "player" }) : {}),
        }),
        fx,
      );
    expect(member("other", "core")).toEqual(["team_not_owned"]);
    expect(member("platform", "other")).toEqual(["team_not_owned"]);
    expect(member("core", "core")).toEqual(["ok"]);
    expect(member("core", "other")).toEqual(["not_found"]);
    expect(member("core", null)).toEqual(["not_found"]);
    expect(member("disposable", "core")).toEqual(["ok", "not_found"]);
    expect(member("core", "core", "DELETE")).toEqual(["ok", "not_found"]);
    expect(member("other", "core", "DELETE")).toEqual(["team_not_owned"]);
    // a lineup: locked once its tournament started; a player the account does not hold is never taken
    const LINEUP = "/tournaments/{tournament_id}/registrations/{registration_id}/lineup";
    const lineup = (players: unknown, extra: Partial<Wire> = {}) =>
      expectFor(
        spec(LINEUP, "PUT"),
        wire("PUT", {
          path: `/x/tournaments/${T}/registrations/${R}/lineup`,
          tid: T,
          player: null,
          playerRole: null,
          ...body({ players }),
          ...extra,
        }),
        fx,
      );
    expect(lineup([{ player_id: P, role: "player" }], { tstate: "started" })).toEqual(["tournament_locked"]);
    expect(lineup([{ player_id: P, role: "player" }])).toEqual([
      "ok",
      "player_already_registered",
      "validation_error",
      "not_found",
      "tournament_locked",
    ]);
    expect(lineup([{ player_id: R, role: "coach" }])).toEqual(["validation_error", "not_found", "tournament_locked"]);
    expect(lineup([{ player_id: P, role: "player" }, { player_id: P, role: "coach" }])).toEqual(["validation_error"]);
    expect(lineup([{ player_id: P, role: "player" }], { owner: "B", coherent: false, tid: null })).toEqual(["not_found"]);

    // The database: an entry gone with its deleted player, or changed with its player's handle, is explained by
    // the accepted request; by a rejected one, it is not. A member changes with an accepted roster PUT of its team.
    const row = (kind: string, id: string, extra: object, h: string): Print =>
      new Map([[`${kind} ${id}`, { kind, id, tid: null, h, ...extra }]]);
    const outcome = (status: number, template: string, method: string, extra: Partial<Wire> = {}): Outcome => ({
      spec: spec(template, method),
      wire: wire(method, extra),
      res: { status, headers: {}, text: status < 300 ? '{"data":{}}' : "{}" },
      expected: null,
      problems: [],
    });
    const entry = (h: string) => row("lineup", `${R} ${P}`, { tid: T, team: null, player: P }, h);
    expect(attribute(entry("a"), new Map(), [outcome(200, PLAYER, "DELETE")]).problems).toEqual([]);
    expect(attribute(entry("a"), new Map(), [outcome(409, PLAYER, "DELETE")]).problems).toHaveLength(1);
    expect(attribute(entry("a"), entry("b"), [outcome(200, PLAYER, "PATCH")]).problems).toEqual([]);
    expect(attribute(entry("a"), entry("b"), [outcome(400, PLAYER, "PATCH")]).problems).toHaveLength(1);
    expect(attribute(entry("a"), entry("b"), [outcome(200, PLAYER, "GET")]).problems).toHaveLength(1);
    const memberRow = (h: string) => row("member", `${T} ${P}`, { team: T, player: P }, h);
    expect(attribute(memberRow("a"), memberRow("b"), [outcome(200, MEMBER, "PUT", { team: T, teamRole: "core" })]).problems).toEqual([]);
    expect(attribute(memberRow("a"), memberRow("b"), [outcome(403, MEMBER, "PUT", { team: T, teamRole: "other" })]).problems).toHaveLength(
      1,
    );
    expect(attribute(memberRow("a"), new Map(), [outcome(200, PLAYER, "DELETE")]).problems).toEqual([]);
    expect(attribute(row("player", P, {}, "a"), row("player", P, {}, "b"), [outcome(409, PLAYER, "PATCH")]).problems).toHaveLength(1);

    // A player_already_registered's details name the player and the registration; a lineup_incomplete's, each short registration.
    const headers = { "x-request-id": "r1", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
    const meta = { timestamp: new Date().toISOString(), api_version: "1.0", request_id: "r1" };
    const answer = (code: string, details: unknown[]) =>
      check(
        spec(LINEUP, "PUT"),
        wire("PUT"),
        {
          status: 409,
          headers,
          text: JSON.stringify({ success: false, error: { code, message: "x", details }, meta }),
        },
        [code],
        fx,
      );
    const taken = { field: "players[0].player_id", message: "x", player_id: P, registration_id: R };
    expect(answer("player_already_registered", [taken])).toEqual([]);
    expect(answer("player_already_registered", [{ field: "players[0].player_id", message: "x" }])).toHaveLength(1);
    expect(answer("player_already_registered", [])).toHaveLength(1);
    expect(answer("lineup_incomplete", [{ registration_id: R, team_id: T, team_name: "t", players: 0 }])).toEqual([]);
    expect(answer("lineup_incomplete", [{ registration_id: R, team_id: T, players: 0 }])).toEqual([]); // a check-in's
    expect(answer("lineup_incomplete", [{ registration_id: R, team_id: T, team_name: "t" }])).toHaveLength(1);
  });

  it("predicts a participant route's answers by what its token acts for, and a token route's by whose tournament it is", () => {
    const T = "88888888-8888-4888-8888-888888888888";
    const R = "99999999-9999-4999-8999-999999999999";
    const token = (kind: PToken["kind"], scopes: string[] = [...REGISTRATION_TOKEN_SCOPES]): PToken => ({
      id: "k1",
      key: "tpt_x",
      scopes,
      tid: T,
      reg: kind === "closed" || kind === "open" ? null : R,
      team: kind === "closed" || kind === "open" ? null : T,
      kind,
    });
    const spec = (template: string, method: string, auth: object = { kind: "full", format: "", which: 0 }) =>
      ({ template, method, pathKind: "canonical", idem: null, label: "x", query: "", auth }) as Spec;
    const wire = (method: string, tok: PToken | null, body?: unknown, extra: Partial<Wire> = {}): Wire => ({
      method,
      path: "/x",
      headers: { "content-type": "application/json" },
      fresh: false,
      scopes: tok?.scopes ?? null,
      keyId: tok?.id ?? null,
      owner: "A",
      coherent: true,
      tid: tok?.tid ?? null,
      tstate: null,
      team: null,
      teamRole: null,
      token: tok,
      ...(body !== undefined ? { body: Buffer.from(JSON.stringify(body)) } : {}),
      ...extra,
    });
    const p = (template: string, method: string, tok: PToken | null, body?: unknown) =>
      expectFor(spec(template, method), wire(method, tok, body));
    const SIGNUP = { team: { name: "n", tag: "t" } };
    const register = ["participant:register"];
    expect(p("/participant", "GET", token("locked"))).toEqual(["ok"]);
    expect(p("/participant", "GET", token("live"))).toEqual(["ok", "unauthorized"]); // a live token may be gone
    expect(p("/participant/matches", "GET", token("closed", register))).toEqual(["ok"]);
    expect(p("/participant/registration", "PATCH", token("locked"), { checked_in: true })).toEqual(["tournament_locked"]);
    expect(p("/participant/registration", "PATCH", token("locked"), { checked_in: false })).toEqual(["ok"]);
    expect(p("/participant/registration", "PATCH", token("live"), { checked_in: true })).toEqual(["ok", "unauthorized"]);
    expect(p("/participant/registration", "PATCH", token("locked"), { checked_in: "yes" })).toEqual(["validation_error"]);
    expect(p("/participant/registration", "PATCH", token("locked", ["participant:lineup"]), { checked_in: true })).toEqual([
      "insufficient_scope",
    ]);
    expect(p("/participant/registration", "DELETE", token("locked"))).toEqual(["registration_closed"]);
    expect(p("/participant/registration", "DELETE", token("closed", register))).toEqual(["insufficient_scope"]);
    expect(p("/participant/registrations", "POST", token("closed", register), SIGNUP)).toEqual(["registration_closed"]);
    expect(p("/participant/registrations", "POST", token("open", register), SIGNUP)).toEqual([
      "ok",
      "validation_error",
      "player_already_registered",
      "tournament_full",
    ]);
    expect(p("/participant/registrations", "POST", token("locked"), SIGNUP)).toEqual(["insufficient_scope"]);
    expect(p("/participant/registrations", "POST", token("open", register), { team: SIGNUP.team, tournament_id: T })).toEqual([
      "validation_error",
    ]);
    expect(p("/participant/lineup", "PUT", token("locked"), { players: [{ handle: "h", role: "player" }] })).toEqual(["tournament_locked"]);
    expect(p("/participant/lineup", "PATCH", token("locked"), { players: [] })).toEqual(["method_not_allowed"]);
    // refused credentials: an API key on a participant route (as on an organiser route, a token), a disabled account's token
    expect(expectFor(spec("/participant", "GET", { kind: "otherKind" }), wire("GET", null))).toEqual(["unauthorized"]);
    expect(expectFor(spec("/participant", "GET", { kind: "disabled" }), wire("GET", null))).toEqual(["api_access_disabled"]);
    // the organiser's token routes: the account's own tournament's, or not found (a past expiry: see "what the fuzzer found")
    const TOKEN = "/tournaments/{tournament_id}/tokens/{token_id}";
    const SIGNUPS = "/tournaments/{tournament_id}/signup-tokens";
    const organiser = (template: string, method: string, body?: unknown, extra: Partial<Wire> = {}) =>
      expectFor(spec(template, method), wire(method, null, body, { scopes: ALL_SCOPES, tid: T, token: null, ...extra }));
    expect(organiser(TOKEN, "DELETE")).toEqual(["ok", "not_found"]);
    expect(organiser(TOKEN, "DELETE", undefined, { owner: "B", coherent: false, tid: null })).toEqual(["not_found"]);
    expect(organiser(SIGNUPS, "POST", { max_uses: 3 })).toEqual(["ok", "not_found"]);
    expect(organiser(SIGNUPS, "POST", { max_uses: 0 })).toEqual(["validation_error"]);
    expect(organiser(SIGNUPS, "POST", { expires_at: "2020-01-01T00:00:00Z" })).toEqual(["validation_error", "not_found"]);
    expect(organiser(SIGNUPS, "POST", { expires_at: "2020-01-01T00:00:00Z" }, { owner: "B", coherent: false })).toEqual([
      "not_found",
      "validation_error",
    ]);

    // What comes back: the token's own registration and tournament; no token's plaintext but where one is minted.
    const fx = { secrets: [] } as unknown as Fixtures;
    const data = (d: unknown, template: string, method: string, w: Wire) => {
      const problems: string[] = [];
      checkData(routeOf(template, method)!, w, d, problems, fx);
      return problems;
    };
    const me = (token: string, registration: string | null) => ({
      token: { id: token, name: "n", scopes: [...REGISTRATION_TOKEN_SCOPES], expires_at: null },
      tournament: { id: T },
      registration: registration && { id: registration },
    });
    expect(data(me("k1", R), "/participant", "GET", wire("GET", token("locked")))).toEqual([]);
    expect(data(me("k2", R), "/participant", "GET", wire("GET", token("locked")))).toHaveLength(1);
    expect(data(me("k1", T), "/participant", "GET", wire("GET", token("locked")))).toHaveLength(1);
    const match = (team1_id: string, team2_id: string) => ({ id: "m", team1_id, team2_id });
    expect(data([match(T, R)], "/participant/matches", "GET", wire("GET", token("locked")))).toEqual([]);
    expect(data([match(R, R)], "/participant/matches", "GET", wire("GET", token("locked")))).toHaveLength(1);
    // A mint's 500 is the known race (see "what the fuzzer found") only when its registration is gone after the batch.
    const mintOutcome = (status: number): Outcome => ({
      spec: spec("/tournaments/{tournament_id}/registrations/{registration_id}/tokens", "POST"),
      wire: wire("POST", null, {}, { path: `/functions/v1/api/v1/tournaments/${T}/registrations/${R}/tokens` }),
      res: { status, headers: {}, text: "{}" },
      expected: null,
      problems: [],
    });
    const registration: Print = new Map([[`registration ${R}`, { kind: "registration", id: R, tid: T, h: "a" }]]);
    expect(mintRace(mintOutcome(500), new Map())).toBe(true);
    expect(mintRace(mintOutcome(500), registration)).toBe(false);
    expect(mintRace(mintOutcome(409), new Map())).toBe(false);
    const headers = { "x-request-id": "r1", "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };
    const meta = { timestamp: new Date().toISOString(), api_version: "1.0", request_id: "r1" };
    const leak = JSON.stringify({ success: true, data: { ...me("k1", R), extra: `tpt_${"a".repeat(49)}` }, meta });
    expect(check(spec("/participant", "GET"), wire("GET", token("locked")), { status: 200, headers, text: leak }, ["ok"], fx))
      .toContain("a participant token in the response");
  });

  it("refuses a logo_url holding a lone surrogate as invalid input (it was a 500 before the key check)", () => {
    const head = `tmk_${"a".repeat(43)}`;
    const key = `Bearer ${head}${base62(crc32(new TextEncoder().encode(head)), 6)}`; // well formed, whatever it names
    const post = (logo: string, authorization: string | null) => {
      const body = Buffer.from(`{"name":"n","tag":"t","logo_url":${logo}}`);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (authorization) headers.authorization = authorization;
      const wire: Wire = { ...teamWire("POST", null), headers, body, scopes: authorization ? ALL_SCOPES : null };
      return expectFor({ ...teamSpec, template: "/teams", method: "POST", idem: null }, wire);
    };
    expect(post('"https://example.com/\\ud800"', key)).toEqual(["validation_error"]);
    expect(post('"https://example.com/\\ud800"', null)).toEqual(["unauthorized"]);
    expect(post('"https://example.com/x"', key)).toEqual(["ok"]);
    expect(post('"https://example.com/\\u0000"', key)).toEqual(["validation_error"]);
  });
});

describe("fuzzing every route", () => {
  let fx: Fixtures;
  beforeAll(async () => {
    fx = await fixtures();
  }, 60_000);

  it(
    `answers ${REQUESTS} generated requests without a 5xx, with valid envelopes, as the contract predicts, and changes nothing when it rejects`,
    async () => {
      console.log(`[fuzz] seed ${SEED}: replay with FUZZ_SEED=${SEED}`);
      const started = Date.now();
      const stats = {
        sent: 0,
        byStatus: {} as Record<string, number>,
        byRoute: {} as Record<string, number>,
        acceptedByRoute: {} as Record<string, number>,
        byLabel: {} as Record<string, number>,
        byOutcome: {} as Record<string, Record<string, number>>,
        accepted: 0,
        verified: 0,
        unverified: 0,
        oracle: 0,
        mintRaces: 0,
      };
      const racedIds = new Set<string>();
      const requestIds: string[] = [];
      let before = await fingerprint(fx);
      const property = fc.asyncProperty(fc.array(requestArb(fx), { minLength: BATCH, maxLength: BATCH }), async (specs) => {
        const outcomes = await pool(specs, CONCURRENCY, async (spec): Promise<Outcome> => {
          const wire = materialize(spec, fx);
          const res = await send(wire);
          const expected = expectFor(spec, wire, fx);
          return { spec, wire, res, expected, problems: check(spec, wire, res, expected, fx) };
        });
        const after = await fingerprint(fx);
        const verdict = attribute(before, after, outcomes);
        before = after;
        await refresh(fx);
        for (const o of outcomes) {
          stats.sent++;
          stats.byStatus[o.res.status] = (stats.byStatus[o.res.status] ?? 0) + 1;
          const name = `${o.wire.method} ${o.spec.template}`;
          stats.byRoute[name] = (stats.byRoute[name] ?? 0) + 1;
          stats.byLabel[o.spec.label] = (stats.byLabel[o.spec.label] ?? 0) + 1;
          if (o.spec.pathKind === "canonical" && o.wire.method === routeOf(o.spec.template, o.wire.method)?.method) {
            let code = String(o.res.status);
            try {
              code = JSON.parse(o.res.text).error?.code ?? code;
            } catch { /* not an envelope: reported by check */ }
            const counts = (stats.byOutcome[name] ??= {});
            counts[code] = (counts[code] ?? 0) + 1;
          }
          if (o.res.status >= 200 && o.res.status < 300) {
            stats.accepted++;
            stats.acceptedByRoute[name] = (stats.acceptedByRoute[name] ?? 0) + 1;
          }
          if (o.expected) stats.oracle++;
          const id = o.res.headers["x-request-id"];
          if (typeof id === "string") requestIds.push(id);
          const route = o.spec.pathKind === "canonical" ? routeOf(o.spec.template, o.wire.method) : null;
          if (route && route.method !== "GET" && o.res.status >= 200 && o.res.status < 300) {
            track(fx, route.op, JSON.parse(o.res.text).data);
          }
        }
        stats.verified += verdict.verified;
        stats.unverified += verdict.unverified;
        // KNOWN DEFECT (failing in "what the fuzzer found"): a token minted for a registration (or tournament) that a
        // concurrent request of the batch deleted is a 500. Such a 500 alone, of a mint whose registration or
        // tournament is gone after the batch, is counted apart (and its log line excused below), not failed on.
        const raced = outcomes.filter((o) => o.problems.every((x) => /^status 5\d\d$|got internal_error$/.test(x)) && mintRace(o, after));
        stats.mintRaces += raced.length;
        for (const o of raced) racedIds.add(String(o.res.headers["x-request-id"]));
        const failed = outcomes.filter((o) => o.problems.length > 0 && !raced.includes(o));
        if (failed.length > 0 || verdict.problems.length > 0) {
          throw new Error([
            ...failed.slice(0, 10).map((o) => `${o.problems.join("; ")}\n${describeRequest(o)}`),
            ...verdict.problems,
          ].join("\n"));
        }
      });
      const run = await fc.check(property, {
        seed: SEED,
        numRuns: Math.ceil(REQUESTS / BATCH),
        endOnFailure: process.env.FUZZ_SHRINK === undefined,
      });
      if (run.failed) {
        // The failing requests themselves, not fast-check's dump of the whole batch.
        throw new Error(
          `fuzz failed (replay: FUZZ_SEED=${SEED}, batch path ${run.counterexamplePath}):\n` +
            `${(run.errorInstance as Error | undefined)?.message ?? run.errorInstance}`,
        );
      }
      const seconds = (Date.now() - started) / 1000;
      console.log(
        `[fuzz] ${stats.sent} requests in ${seconds.toFixed(1)} s (seed ${SEED}); by status ${JSON.stringify(stats.byStatus)}; ` +
          `${stats.accepted} accepted; ${stats.oracle} with an exact prediction; "changes nothing" checked for ${stats.verified} ` +
          `rejected requests (${stats.unverified} shared a tournament or team with an accepted change)` +
          (stats.mintRaces ? `; ${stats.mintRaces} mint(s) raced a deletion into a 500 (known defect)` : "") +
          (process.env.FUZZ_VERBOSE ? `\n${JSON.stringify(stats, null, 1)}` : ""),
      );

      expect(stats.sent).toBeGreaterThanOrEqual(REQUESTS);
      // The run exercised more than refusals: every route accepted something (at the default size
      // and above; a small FUZZ_REQUESTS may miss one), and most requests had an exact prediction.
      // Every route is generated (the participant routes too: section 17), each as often: an even
      // share is REQUESTS / routes.length, of which a route keeps its own method 85% of the time
      // (plus the others' that land on it), ~0.87 of the share. Each must get over 0.55 of it: a
      // route the generator starved fails, chance does not (with 54 routes at the default size,
      // ~160 expected, sd ~13: the bound is over 4 sd away; 27/40 of it, the bound when there were
      // 27 routes, came within 3 sd as routes were added).
      for (const route of routes) {
        const name = `${route.method} ${route.path}`;
        expect(stats.byRoute[name], name).toBeGreaterThan((REQUESTS / routes.length) * 0.55);
        if (REQUESTS >= 10_000) expect(stats.acceptedByRoute[name] ?? 0, name).toBeGreaterThan(0);
      }
      expect(stats.accepted).toBeGreaterThan(REQUESTS / 20);
      expect(stats.oracle).toBeGreaterThan(REQUESTS * 0.8);
      // The "changes nothing" check covered nearly every rejected request (the others shared a
      // tournament with an accepted change in the same batch).
      expect(stats.verified).toBeGreaterThan(9 * stats.unverified);

      // What the accepted requests left behind still keeps the rules: capacity, one bracket of
      // 2^k − 1 matches per started tournament (its stage 1, when single elimination without a
      // third-place match; since section 12 a first stage of another format has matches of its own),
      // winners who played, the last stage decided before completion.
      // Since section 9: the teams taking part are those with a bracket seed (with check-in, only the
      // checked-in ones), numbered 1..N, seeded teams first by seed, then by registration order; a
      // forfeit completes its match without scores, the other team winning; seeds are unique.
      const broken = await sql(
        `select t.id, t.status, t.max_teams, t.stage,
              (select count(*) from app.registrations r where r.tournament_id = t.id)::int regs,
              (select count(*) from app.registrations r where r.tournament_id = t.id and r.bracket_seed is not null)::int playing,
              (select coalesce(array_agg(r.bracket_seed order by r.seed nulls last, r.seq), '{}')
                 from app.registrations r where r.tournament_id = t.id and r.bracket_seed is not null) bracket_seeds,
              (select count(*) from app.registrations r where r.tournament_id = t.id and r.bracket_seed is not null
                  and t.check_in_opens is not null and r.checked_in_at is null)::int not_checked_in,
              (select count(*) - count(distinct r.seed) from app.registrations r where r.tournament_id = t.id and r.seed is not null)::int seed_twice,
              (select count(*) from app.matches m where m.tournament_id = t.id and m.stage = 1)::int matches,
              app.stage_list(t) #>> '{0,format}' first_format,
              coalesce((app.stage_list(t) #>> '{0,format_options,third_place_match}')::boolean, false) third_place,
              jsonb_array_length(app.stage_list(t)) stage_count,
              (select count(*) from app.matches m where m.tournament_id = t.id and m.stage > t.stage)::int matches_ahead,
              (select coalesce(array_agg(s.number order by s.number), '{}') from app.stages s where s.tournament_id = t.id) started_stages,
              (select count(*) from app.stages s where s.tournament_id = t.id and s.number < t.stage and s.status <> 'completed')::int open_before,
              (select count(*) from app.matches m where m.tournament_id = t.id and m.status = 'completed'
                  and (m.winner_id is null or m.winner_id not in (m.team1_id, m.team2_id)))::int bad_winners,
              (select count(*) from app.matches m where m.tournament_id = t.id and m.forfeit is not null
                  and (m.status <> 'completed' or m.team1_score is not null or m.team2_score is not null
                       or m.winner_id is distinct from case m.forfeit when 'team1' then m.team2_id else m.team1_id end))::int bad_forfeits,
              (select s.status = 'completed' from app.stages s
                where s.tournament_id = t.id and s.number = jsonb_array_length(app.stage_list(t))) is true final_decided
         from app.tournaments t where t.account_id = any($1)`,
        [fx.accounts],
      );
      expect(broken.length).toBeGreaterThan(10);
      for (const t of broken) {
        expect(t.regs, t.id).toBeLessThanOrEqual(t.max_teams);
        const playing = t.status === "registration" ? 0 : t.playing;
        if (t.status !== "registration") expect(t.bracket_seeds, t.id).toEqual(Array.from({ length: playing }, (_, i) => i + 1));
        const size = 2 ** Math.ceil(Math.log2(Math.max(playing, 2)));
        if (t.status === "registration") expect(t.matches, t.id).toBe(0);
        else if (t.first_format === "single_elimination" && !t.third_place) expect(t.matches, t.id).toBe(size - 1);
        else expect(t.matches, t.id).toBeGreaterThan(0);
        // the stages started are 1..the current one, those before it completed, and no match is ahead of it
        expect(t.started_stages, t.id).toEqual(t.status === "registration" ? [] : Array.from({ length: t.stage }, (_, i) => i + 1));
        expect(t.stage, t.id).toBeLessThanOrEqual(t.stage_count);
        expect([t.open_before, t.matches_ahead], t.id).toEqual([0, 0]);
        expect(t.not_checked_in, t.id).toBe(0);
        expect(t.seed_twice, t.id).toBe(0);
        expect(t.bad_winners, t.id).toBe(0);
        expect(t.bad_forfeits, t.id).toBe(0);
        if (t.status === "completed") expect(t.final_decided, t.id).toBe(true);
      }
      // Section 16: every roster member and lineup entry is its own account's (team, player, registration of
      // the tournament it names); a player is in one lineup of a tournament (coaches aside); a lineup has at
      // most one captain and two coaches; with lineups required, every team that took part held a full one.
      const [people] = await sql(
        `select
           (select count(*) from app.team_members m join app.players p on p.id = m.player_id join app.teams tm on tm.id = m.team_id
             where m.account_id = any($1) and (p.account_id <> m.account_id or tm.account_id is distinct from m.account_id))::int stray_members,
           (select count(*) from app.lineup_entries e join app.players p on p.id = e.player_id join app.registrations r on r.id = e.registration_id
             where e.account_id = any($1)
               and (p.account_id <> e.account_id or r.account_id <> e.account_id or r.tournament_id <> e.tournament_id))::int stray_entries,
           (select count(*) from (select 1 from app.lineup_entries e where e.account_id = any($1) and e.role <> 'coach'
                                   group by e.tournament_id, e.player_id having count(*) > 1) x)::int twice,
           (select count(*) from (select 1 from app.lineup_entries e where e.account_id = any($1) group by e.registration_id
                                   having count(*) filter (where e.captain) > 1 or count(*) filter (where e.role = 'coach') > 2) x)::int bad_lineups,
           (select count(*) from app.registrations r join app.tournaments t on t.id = r.tournament_id
             where r.account_id = any($1) and t.lineups = 'required' and r.bracket_seed is not null
               and (select count(*) from app.lineup_entries e where e.registration_id = r.id and e.role = 'player') < t.team_size)::int short,
           (select count(*) from app.lineup_entries e where e.account_id = any($1))::int entries`,
        [fx.accounts],
      );
      expect(people).toMatchObject({ stray_members: 0, stray_entries: 0, twice: 0, bad_lineups: 0, short: 0 });
      expect(people.entries).toBeGreaterThan(0);

      // The function logged each request without an error line and without a key.
      await new Promise((r) => setTimeout(r, 200));
      const mine = new Set(requestIds);
      const lines = fs.readFileSync(inject("logFile"), "utf8").split("\n").filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l)).filter((l) => mine.has(l.request_id));
      expect(lines.length).toBeGreaterThan(requestIds.length * 0.99);
      expect(lines.filter((l) => l.level !== "info" && !racedIds.has(l.request_id))).toEqual([]);
      const log = fs.readFileSync(inject("logFile"), "utf8");
      expect(log).not.toMatch(KEY_IN_TEXT);
      expect(log).not.toMatch(TOKEN_IN_TEXT);
    },
    300_000,
  );
});
