// The shared security suite (contract sections 1, 2, 6 and 17): for every route registered in
// functions/api/routes.ts, the credential checks, the account check, the scope check and tenant
// isolation, with the credential the route takes: an API key (`tmk_`) on the organiser's routes,
// a participant token (`tpt_`) on the participant's (`route.participant`), where an API key is
// refused as an unknown token; then the rate limit's exactness under concurrency, per key and per
// token. (A participant token's isolation across accounts: tests/keys/tenant-isolation.test.ts.)
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { routes } from "../../functions/api/routes.ts";
import type { Route } from "../../functions/api/route.ts";
import { base62, crc32, type KeyPrefix } from "../../functions/api/keys.ts";
import { REGISTRATION_TOKEN_SCOPES } from "../../functions/api/contract.ts";
import { freePort, startFunction } from "../../scripts/stack.mjs";
import {
  ALL_SCOPES,
  type ApiResponse,
  apiUrl,
  type Call,
  caller,
  createAccount,
  createKey,
  createTeams,
  createTournament,
  expectStatus,
  rateHits,
  request,
  sql,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A well-formed key (valid checksum) that no account holds; with `tpt_`, a participant token that exists nowhere. */
function unknownKey(prefix: KeyPrefix = "tmk_"): string {
  let body = prefix;
  for (const b of crypto.getRandomValues(new Uint8Array(43))) body += ALPHABET[b % 62];
  return body + base62(crc32(new TextEncoder().encode(body)), 6);
}

/** The key with one checksum character changed. */
function badChecksum(key: string): string {
  const i = key.length - 3;
  const other = ALPHABET[(ALPHABET.indexOf(key[i]) + 1) % 62];
  return key.slice(0, i) + other + key.slice(i + 1);
}

const routeName = (r: Route) => `${r.method} ${r.path}`;
/** The organiser's routes (an API key) and the participant's (a participant token: contract section 17). */
const organiserRoutes = routes.filter((r) => !r.participant);
const participantRoutes = routes.filter((r) => r.participant);

/** Owner's data that every other request must leave alone. */
interface Fixture {
  owner: Tenant;
  tournamentId: string;
  /**
   * A tournament of two stages whose stage 1 is completed: stage 2 is the next to start, so that
   * an intruder's PATCH of it would change something if the accounts were not kept apart.
   */
  stagedTournamentId: string;
  registrationId: string;
  matchId: string;
  spareTeamId: string;
  /** A team the owner made through the API: readable by every account, writable by the owner alone. */
  teamId: string;
  /** The owner's webhook endpoint (it points where nothing listens) and one of its deliveries. */
  webhookId: string;
  deliveryId: string;
  /**
   * The owner's player (private to the account, section 16): on the roster of the owner's team and
   * in the lineup of the owner's registration, so that a leak would show or change all three.
   */
  playerId: string;
  /** A registration token of the owner's registration (the organiser's token routes name it). */
  tokenId: string;
  /**
   * The participant routes' ground: the owner's tournament still in registration, check-in open,
   * and a registration in it (the owner's team, its player in the lineup), for whose tokens the
   * participant routes act.
   */
  openTournamentId: string;
  openRegistrationId: string;
  /** The owner's requests, on fresh keys as they run out (the participant tests mint many tokens). */
  call: Call;
}

/** The owner's player's handle and external id: no answer to another account may name them. */
const PLAYER = { handle: "Owner Star", external_id: "owner-star-1" };

/** Nothing listens on port 9 of the loopback: a dispatcher's attempt there is refused at once (tests/webhooks/delivery.test.ts). */
const NOWHERE = "http://127.0.0.1:9/x";
let fx: Fixture;

/** A valid body for each route that takes one (the intruder's request must be well formed). */
function sampleBody(route: Route): unknown {
  const samples: Record<string, unknown> = {
    "POST /tournaments": tournamentBody({ name: "Intruder Cup" }),
    "PATCH /tournaments/{id}": { name: "Hijacked", max_teams: 64 },
    "POST /tournaments/{tournament_id}/registrations": { team_id: fx.spareTeamId },
    "PATCH /tournaments/{tournament_id}/matches/{match_id}": { team1_score: 0, team2_score: 9 },
    "PATCH /tournaments/{tournament_id}/registrations/{registration_id}": { seed: 1, payment_status: "refunded" },
    "POST /teams": { name: "Intruder Team", tag: "INT" },
    "PATCH /teams/{team_id}": { name: "Hijacked", logo_url: null },
    "POST /webhooks": { url: NOWHERE, events: ["*"] },
    "PATCH /webhooks/{webhook_id}": { url: `${NOWHERE}/hijacked`, events: ["match.ready"], enabled: false },
    "PATCH /tournaments/{tournament_id}/stages/{number}": { status: "ongoing" },
    "PUT /tournaments/{tournament_id}/matches/{match_id}/games/{number}": { team1_score: 13, team2_score: 2, map: "Intruder" },
    "POST /players": { handle: "Intruder", external_id: PLAYER.external_id, game_accounts: { steam: "1" } },
    "PATCH /players/{player_id}": { handle: "Hijacked", country: "SE", external_id: null },
    "PUT /teams/{team_id}/players/{player_id}": { role: "coach", captain: true },
    "PUT /tournaments/{tournament_id}/registrations/{registration_id}/lineup": {
      players: [{ player_id: fx.playerId, role: "substitute", captain: true }],
    },
    "POST /tournaments/{tournament_id}/registrations/{registration_id}/tokens": { name: "Intruder token", scopes: ["participant:lineup"] },
    "POST /tournaments/{tournament_id}/signup-tokens": { name: "Intruder sign-ups", max_uses: 5 },
    // The participant's: each would change the token's registration (or make one) if it got through.
    "POST /participant/registrations": {
      team: { name: "Signed Up", tag: "SUP" },
      lineup: [{ handle: "Signer", role: "player", captain: true }],
    },
    "PUT /participant/lineup": { players: [{ handle: "Newcomer", role: "player", captain: true }] },
    "PATCH /participant/registration": { checked_in: true },
    "POST /participant/matches/{match_id}/report": { team1_score: 2, team2_score: 0 },
    "POST /participant/matches/{match_id}/report/dispute": { note: "Intruder" },
  };
  if (!route.body) return undefined;
  if (!(routeName(route) in samples)) throw new Error(`no sample body for ${routeName(route)}: add one to the security suite`);
  return samples[routeName(route)];
}

/** The stage a stage route names: the staged tournament's stage 2, the one that would start next. */
const STAGE = "2";

/**
 * The route's path with the fixture's ids (or random UUIDs) in place of its parameters. A stage
 * `{number}` is no id: it stays the fixture's stage number (a game's: 1), so that "random" names a
 * tournament that exists nowhere (a UUID there would be refused before the tournament is looked up).
 */
function pathFor(route: Route, ids: "fixture" | "random" = "fixture"): string {
  const staged = route.path.includes("/stages");
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "number") return route.path.includes("/games/") ? "1" : STAGE;
    if (ids === "random") return crypto.randomUUID();
    const tournamentId = staged ? fx.stagedTournamentId : fx.tournamentId;
    const value = {
      id: tournamentId,
      tournament_id: tournamentId,
      registration_id: fx.registrationId,
      match_id: fx.matchId,
      team_id: fx.teamId,
      webhook_id: fx.webhookId,
      delivery_id: fx.deliveryId,
      player_id: fx.playerId,
      token_id: fx.tokenId,
    }[name];
    if (!value) throw new Error(`no fixture id for {${name}} in ${route.path}: add one to the security suite`);
    return value;
  });
}

/**
 * Everything the owner (or `accountId`) holds, as the operator sees it. Webhook endpoints and deliveries without
 * what the dispatchers of tests/webhooks/delivery.test.ts change as they attempt them (failing_since, a
 * delivery's attempts and status; an endpoint they disable for failing counts as enabled). Participant
 * tokens: the account's, and any of its tournaments (without last_used_at, which every counted request sets).
 */
async function snapshot(accountId: string = fx.owner.accountId): Promise<string> {
  const [row] = await sql(
    `select json_build_object(
       'tournaments', (select json_agg(t order by t.id) from app.tournaments t where t.account_id = $1),
       'registrations', (select json_agg(r order by r.id) from app.registrations r where r.account_id = $1),
       'matches', (select json_agg(m order by m.id) from app.matches m where m.account_id = $1),
       'stages', (select json_agg(s order by s.id) from app.stages s where s.account_id = $1),
       'stage_entries', (select json_agg(e order by e.tournament_id, e.stage, e.team_id) from app.stage_entries e where e.account_id = $1),
       'teams', (select json_agg(t order by t.id) from app.teams t where t.account_id = $1),
       'webhooks', (select json_agg(json_build_object('id', w.id, 'url', w.url, 'events', w.events, 'tournament_id', w.tournament_id,
                      'description', w.description, 'on', w.enabled or w.disabled_reason is not null, 'secret', w.secret,
                      'previous_secret', w.previous_secret, 'updated_at', w.updated_at) order by w.id)
                      from app.webhook_endpoints w where w.account_id = $1),
       'deliveries', (select json_agg(json_build_array(d.id, d.endpoint_id, d.event_id) order by d.id)
                        from app.webhook_deliveries d where d.account_id = $1),
       'players', (select json_agg(p order by p.id) from app.players p where p.account_id = $1),
       'team_members', (select json_agg(m order by m.team_id, m.player_id) from app.team_members m where m.account_id = $1),
       'lineup_entries', (select json_agg(e order by e.registration_id, e.player_id) from app.lineup_entries e where e.account_id = $1),
       'tokens', (select json_agg(json_build_object('id', k.id, 'account_id', k.account_id, 'name', k.name, 'hash', k.key_hash,
                    'scopes', k.scopes, 'expires_at', k.expires_at, 'revoked_at', k.revoked_at, 'tournament_id', k.tournament_id,
                    'registration_id', k.registration_id, 'max_uses', k.max_uses, 'uses', k.uses) order by k.id)
                    from app.api_keys k
                   where k.tournament_id is not null
                     and (k.account_id = $1 or k.tournament_id in (select t.id from app.tournaments t where t.account_id = $1))))::text s`,
    [accountId],
  );
  return row.s;
}

function send(route: Route, headers: Record<string, string>, key?: string): Promise<ApiResponse> {
  const body = sampleBody(route);
  return request(route.method, pathFor(route), { body, headers, key });
}

function expectUnauthorized(res: ApiResponse) {
  expectStatus(res, 401);
  expect(res.headers.get("ratelimit-limit")).toBeNull(); // refused before the rate limit: nothing counted
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe("unauthorized");
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
}

beforeAll(async () => {
  const owner = await tenant();
  const tournament = await createTournament(owner, { name: "Owner Cup", max_teams: 4 });
  const [a, b, spare] = await createTeams(3, "Security");
  const team = await owner.request("POST", "/teams", { body: { name: "Owner Team", tag: "OWN", logo_url: "https://example.com/own.png" } });
  expectStatus(team, 201);
  // The owner's player, the captain of its team's roster and in the lineup of its first registration.
  const player = await owner.request("POST", "/players", { body: { ...PLAYER, name: "Owner Player", country: "SE" } });
  expectStatus(player, 201);
  expectStatus(
    await owner.request("PUT", `/teams/${team.body.data.id}/players/${player.body.data.id}`, { body: { role: "player", captain: true } }),
    200,
  );
  for (const team_id of [a, b]) {
    expectStatus(await owner.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id } }), 201);
  }
  const [reg] = await sql<{ id: string }>("select id from app.registrations where tournament_id = $1 order by seq limit 1", [
    tournament.id,
  ]);
  expectStatus(
    await owner.request("PUT", `/tournaments/${tournament.id}/registrations/${reg.id}/lineup`, {
      body: { players: [{ player_id: player.body.data.id, role: "player", captain: true }] },
    }),
    200,
  );
  expectStatus(await owner.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
  const [match] = await sql<{ id: string }>("select id from app.matches where tournament_id = $1 and status = 'ready'", [tournament.id]);
  const webhook = await owner.request("POST", "/webhooks", { body: { url: NOWHERE, events: ["*"], description: "Owner Cup hook" } });
  expectStatus(webhook, 201);
  const delivery = await owner.request("POST", `/webhooks/${webhook.body.data.id}/test`);
  expectStatus(delivery, 202);
  // Group stage played, playoffs not started: PATCH .../stages/2 {"status": "ongoing"} would start them.
  const staged = await createTournament(owner, {
    name: "Owner Cup Playoffs",
    max_teams: 4,
    stages: [{ name: "Groups", format: "round_robin", advance: { per_group: 2 } }, { name: "Playoffs", format: "single_elimination" }],
  });
  for (const team_id of [a, b]) {
    expectStatus(await owner.request("POST", `/tournaments/${staged.id}/registrations`, { body: { team_id } }), 201);
  }
  expectStatus(await owner.request("PATCH", `/tournaments/${staged.id}`, { body: { status: "ongoing" } }), 200);
  const [groupMatch] = await sql<{ id: string }>("select id from app.matches where tournament_id = $1 and status = 'ready'", [staged.id]);
  expectStatus(
    await owner.request("PATCH", `/tournaments/${staged.id}/matches/${groupMatch.id}`, { body: { team1_score: 2, team2_score: 1 } }),
    200,
  );
  const stages = await owner.request("GET", `/tournaments/${staged.id}/stages`);
  expectStatus(stages, 200);
  expect(stages.body.data.map((s: { status: string }) => s.status)).toEqual(["completed", "pending"]);
  const next = await owner.request("GET", `/tournaments/${staged.id}/stages/${STAGE}`);
  expectStatus(next, 200);
  expect(next.body.data.qualifiers.map((q: { team_id: string; tied: boolean }) => [q.team_id, q.tied]).sort())
    .toEqual([[a, false], [b, false]].sort());
  // A registration token of the owner's registration (DELETE .../tokens/{token_id} names it).
  const token = await owner.request("POST", `/tournaments/${tournament.id}/registrations/${reg.id}/tokens`, {
    body: { name: "Owner token" },
  });
  expectStatus(token, 201);
  // The participant routes' ground: a tournament in registration with check-in open, and the owner's team
  // registered in it (its roster, the owner's player, becomes the lineup).
  const open = await createTournament(owner, {
    name: "Owner Cup Open",
    max_teams: 64,
    check_in_opens: new Date(Date.now() - 3_600_000).toISOString(),
  });
  const openReg = await owner.request("POST", `/tournaments/${open.id}/registrations`, { body: { team_id: team.body.data.id } });
  expectStatus(openReg, 201);
  expect(openReg.body.data.lineup.map((e: { player_id: string }) => e.player_id)).toEqual([player.body.data.id]);
  fx = {
    owner,
    tokenId: token.body.data.id,
    openTournamentId: open.id,
    openRegistrationId: openReg.body.data.id,
    call: caller(owner),
    tournamentId: tournament.id,
    stagedTournamentId: staged.id,
    registrationId: reg.id,
    matchId: match.id,
    spareTeamId: spare,
    teamId: team.body.data.id,
    webhookId: webhook.body.data.id,
    deliveryId: delivery.body.data.id,
    playerId: player.body.data.id,
  };
});

describe.each(organiserRoutes.map((r) => [routeName(r), r] as const))("%s", (_name, route) => {
  it("returns 401 with WWW-Authenticate: Bearer when there is no Authorization header", async () => {
    expectUnauthorized(await send(route, {}));
  });

  it("returns 401 when the Authorization header is not Bearer <key>", async () => {
    const { key } = await fx.owner.newKey();
    for (
      const value of [
        key,
        `Token ${key}`,
        `Basic ${Buffer.from(`${key}:`).toString("base64")}`,
        "Bearer",
        "Bearer ",
        `Bearer ${key} extra`,
        `Bearer${key}`,
      ]
    ) {
      expectUnauthorized(await send(route, { authorization: value }));
    }
  });

  it("returns 401 for malformed keys", async () => {
    const { key } = await fx.owner.newKey();
    for (
      const bad of [
        "tmk_short",
        `${key}x`,
        key.slice(0, -1),
        `sk_${key.slice(4)}`,
        `${key.slice(0, 10)}-${key.slice(11)}`,
        key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase(),
      ]
    ) {
      expectUnauthorized(await send(route, {}, bad));
    }
  });

  it("returns 401 for a real key with a changed checksum", async () => {
    const { key } = await fx.owner.newKey();
    expectUnauthorized(await send(route, {}, badChecksum(key)));
  });

  it("returns 401 for a well-formed key that does not exist", async () => {
    expectUnauthorized(await send(route, {}, unknownKey()));
  });

  it("returns 401 for a revoked key", async () => {
    const { id, key } = await fx.owner.newKey();
    await sql("select admin.revoke_api_key($1)", [id]);
    expectUnauthorized(await send(route, {}, key));
  });

  it("returns 401 for an expired key", async () => {
    const { id, key } = await fx.owner.newKey();
    await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [id]);
    expectUnauthorized(await send(route, {}, key));
  });

  it("gives one message for every kind of refused key (no oracle)", async () => {
    const revoked = await fx.owner.newKey();
    await sql("select admin.revoke_api_key($1)", [revoked.id]);
    const expired = await fx.owner.newKey();
    await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
    const responses = await Promise.all([
      send(route, {}),
      send(route, {}, "tmk_short"),
      send(route, {}, unknownKey()),
      send(route, {}, badChecksum(revoked.key)),
      send(route, {}, revoked.key),
      send(route, {}, expired.key),
    ]);
    for (const res of responses) expectUnauthorized(res);
    const bodies = responses.map((r) => JSON.stringify(r.body.error));
    expect(new Set(bodies).size).toBe(1);
  });

  it("returns 403 api_access_disabled for a valid key of a disabled account, and changes nothing", async () => {
    const before = await snapshot();
    const { key } = await createKey(await createAccount(false), ALL_SCOPES);
    const res = await send(route, {}, key);
    expectStatus(res, 403);
    expect(res.body.error.code).toBe("api_access_disabled");
    expect(await snapshot()).toBe(before);
  });

  // GET /me needs no scope: any valid key passes.
  if (route.scope) {
    const scope = route.scope;
    it(`returns 403 insufficient_scope naming ${scope} for a key with every other scope, and changes nothing`, async () => {
      const before = await snapshot();
      const { key } = await fx.owner.newKey(ALL_SCOPES.filter((s) => s !== scope));
      const res = await send(route, {}, key);
      expectStatus(res, 403);
      expect(res.body.error.code).toBe("insufficient_scope");
      expect(res.body.error.message).toContain(scope);
      expect(await snapshot()).toBe(before);
    });

    it(`passes the scope check with a key holding only ${scope}`, async () => {
      const t = await tenant([scope]);
      const res = await t.request(route.method, pathFor(route, "random"), { body: sampleBody(route) });
      expect([401, 403], res.text).not.toContain(res.status);
      expect([200, 201, 404], res.text).toContain(res.status);
    });
  }

  it("answers another account's data as if it did not exist, and changes nothing", async () => {
    const before = await snapshot();
    const intruder = await tenant();
    const res = await send(route, {}, intruder.key);
    if (route.path === "/teams/{team_id}") {
      // Teams are shared: every account reads them, only the owner writes them (no owner named).
      if (route.method === "GET") {
        expectStatus(res, 200);
        expect(res.body.data).toMatchObject({ id: fx.teamId, name: "Owner Team", owned: false });
      } else {
        expectStatus(res, 403);
        expect(res.body.error.code).toBe("team_not_owned");
      }
      expect(res.text).not.toContain(fx.owner.accountId);
    } else if (route.path.startsWith("/teams/{team_id}/")) {
      // A team's roster is its owner's alone (section 16): the team is no secret, so the answer is
      // 403 team_not_owned, the same as for a team of the platform, whose roster no account may touch.
      expectStatus(res, 403);
      expect(res.body.error.code).toBe("team_not_owned");
      const platform = await intruder.request(route.method, pathFor(route).replace(fx.teamId, fx.spareTeamId), {
        body: sampleBody(route),
      });
      expect(platform.body.error, platform.text).toEqual(res.body.error);
    } else if (route.path.includes("{")) {
      expectStatus(res, 404);
      expect(res.body.error.code).toBe("not_found");
      // Same answer as for an id that exists nowhere.
      const nowhere = await intruder.request(route.method, pathFor(route, "random"), { body: sampleBody(route) });
      expectStatus(nowhere, 404);
      expect(res.body.error.message).toBe(nowhere.body.error.message);
    } else if (route.method === "POST" && route.path === "/players") {
      // The owner's external_id is the owner's alone: the same one is free in another account (no oracle).
      expectStatus(res, 201);
      expect(res.body.data).toMatchObject({ handle: "Intruder", external_id: PLAYER.external_id });
    } else {
      expect(res.status, res.text).toBeLessThan(300);
    }
    expect(res.text).not.toContain(fx.tournamentId);
    expect(res.text).not.toContain(fx.stagedTournamentId);
    expect(res.text).not.toContain("Owner Cup");
    // The owner's player: neither its id nor anything of it.
    for (const secret of [fx.playerId, PLAYER.handle, "Owner Player"]) expect(res.text).not.toContain(secret);
    if (routeName(route) !== "POST /players") expect(res.text).not.toContain(PLAYER.external_id);
    expect(await snapshot()).toBe(before);
    if (route.method === "GET" && route.path === "/teams") {
      // The shared team list: the owner's team is there, not the intruder's.
      expect(res.body.data.every((t: { owned: boolean }) => !t.owned)).toBe(true);
      expect(res.text).not.toContain(fx.owner.accountId);
    } else if (route.method === "GET" && route.path === "/me") {
      expect(res.body.data.account.id).toBe(intruder.accountId);
      expect(res.text).not.toContain(fx.owner.accountId);
    } else if (route.method === "GET" && !route.path.includes("{")) {
      expect(res.body.data).toEqual([]);
      expect(res.body.pagination.total).toBe(0);
    }
  });
});

/** A participant token minted by the owner (contract section 17): of a registration (default scopes unless given), or a sign-up token. */
async function mint(
  kind: "registration" | "signup",
  { registrationId = fx.openRegistrationId, scopes, t, tournamentId = fx.openTournamentId }: {
    registrationId?: string;
    scopes?: string[];
    t?: Call;
    tournamentId?: string;
  } = {},
): Promise<{ id: string; token: string; scopes: string[] }> {
  t ??= await ownerCall(); // a key of its own each time: the suite mints far more than one key's 100 a minute
  const res = kind === "signup"
    ? await t("POST", `/tournaments/${tournamentId}/signup-tokens`, { body: {} })
    : await t("POST", `/tournaments/${tournamentId}/registrations/${registrationId}/tokens`, { body: scopes ? { scopes } : {} });
  expectStatus(res, 201);
  return res.body.data;
}

/** The owner's requests with a fresh key (each key has its own 100 a minute). */
async function ownerCall(): Promise<Call> {
  const { key } = await fx.owner.newKey(ALL_SCOPES);
  return (method, path, options = {}) => request(method, path, { ...options, key });
}

/** A fresh registration (a platform team) in the owner's open tournament: a withdrawal or a check-in leaves the fixture's alone. */
async function freshRegistration(): Promise<string> {
  const [team] = await createTeams(1, "Fresh");
  const res = await (await ownerCall())("POST", `/tournaments/${fx.openTournamentId}/registrations`, { body: { team_id: team } });
  expectStatus(res, 201);
  return res.body.data.id;
}

describe.each(participantRoutes.map((r) => [routeName(r), r] as const))("%s (a participant token's route)", (_name, route) => {
  const signup = route.op === "participant.signup";
  /** A live token of the kind the route acts for: a sign-up token for a sign-up, else a registration token (default scopes). */
  const liveToken = () => mint(signup ? "signup" : "registration");
  // A report route names a match: the fixture's started tournament's, which no token's team plays.
  const path = () => route.path.replace("{match_id}", fx.matchId);
  const sendWith = (headers: Record<string, string>, key?: string) =>
    request(route.method, path(), { body: sampleBody(route), headers, key });

  it("returns 401 with WWW-Authenticate: Bearer when there is no Authorization header", async () => {
    expectUnauthorized(await sendWith({}));
  });

  it("returns 401 when the Authorization header is not Bearer <token>", async () => {
    const { token } = await liveToken();
    for (
      const value of [
        token,
        `Token ${token}`,
        `Basic ${Buffer.from(`${token}:`).toString("base64")}`,
        "Bearer",
        "Bearer ",
        `Bearer ${token} extra`,
        `Bearer${token}`,
      ]
    ) {
      expectUnauthorized(await sendWith({ authorization: value }));
    }
  });

  it("returns 401 for malformed tokens", async () => {
    const { token } = await liveToken();
    for (
      const bad of [
        "tpt_short",
        `${token}x`,
        token.slice(0, -1),
        `sk_${token.slice(4)}`,
        `tmk_${token.slice(4)}`, // an API key's prefix on a token's body: its checksum no longer matches
        `${token.slice(0, 10)}-${token.slice(11)}`,
        token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
      ]
    ) {
      expectUnauthorized(await sendWith({}, bad));
    }
  });

  it("returns 401 for a real token with a changed checksum", async () => {
    const { token } = await liveToken();
    expectUnauthorized(await sendWith({}, badChecksum(token)));
  });

  it("returns 401 for a well-formed token that does not exist", async () => {
    expectUnauthorized(await sendWith({}, unknownKey("tpt_")));
  });

  it("returns 401 for a revoked token", async () => {
    const { id, token } = await liveToken();
    expectStatus(await (await ownerCall())("DELETE", `/tournaments/${fx.openTournamentId}/tokens/${id}`), 200);
    expectUnauthorized(await sendWith({}, token));
  });

  it("returns 401 for an expired token", async () => {
    const { id, token } = await liveToken();
    await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [id]);
    expectUnauthorized(await sendWith({}, token));
  });

  it("returns 401 for an API key (every scope), as for a token that does not exist, and changes nothing", async () => {
    const before = await snapshot();
    const { id, key } = await fx.owner.newKey(ALL_SCOPES);
    const res = await sendWith({}, key);
    expectUnauthorized(res);
    expect(res.body.error).toEqual((await sendWith({}, unknownKey("tpt_"))).body.error);
    expect(await rateHits(id)).toBe(0); // the key is not charged
    expect(await snapshot()).toBe(before);
  });

  it("gives one message for every kind of refused credential (no oracle)", async () => {
    const revoked = await liveToken();
    expectStatus(await (await ownerCall())("DELETE", `/tournaments/${fx.openTournamentId}/tokens/${revoked.id}`), 200);
    const expired = await liveToken();
    await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
    const responses = await Promise.all([
      sendWith({}),
      sendWith({}, "tpt_short"),
      sendWith({}, unknownKey("tpt_")),
      sendWith({}, badChecksum(revoked.token)),
      sendWith({}, revoked.token),
      sendWith({}, expired.token),
      sendWith({}, fx.owner.key),
      sendWith({}, unknownKey()),
    ]);
    for (const res of responses) expectUnauthorized(res);
    const bodies = responses.map((r) => JSON.stringify(r.body.error));
    expect(new Set(bodies).size).toBe(1);
  });

  it("returns 403 api_access_disabled for a valid token of a disabled account's tournament, and changes nothing", async () => {
    const other = await tenant();
    const call = caller(other);
    const tour = await createTournament(other, { name: "Disabled Cup", check_in_opens: new Date(Date.now() - 3_600_000).toISOString() });
    const [team] = await createTeams(1, "Disabled");
    const reg = await call("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } });
    expectStatus(reg, 201);
    const { token } = await mint(signup ? "signup" : "registration", { t: call, tournamentId: tour.id, registrationId: reg.body.data.id });
    await sql("select admin.set_api_access($1, false)", [other.accountId]);
    const before = await snapshot(other.accountId);
    const owner = await snapshot();
    const res = await sendWith({}, token);
    expectStatus(res, 403);
    expect(res.body.error.code).toBe("api_access_disabled");
    expect(await snapshot(other.accountId)).toBe(before);
    expect(await snapshot()).toBe(owner);
  });

  // GET /participant and GET /participant/matches need no scope: any valid token passes.
  if (route.scope) {
    const scope = route.scope;
    it(`returns 403 insufficient_scope naming ${scope} for a token with every other scope, and changes nothing`, async () => {
      // A sign-up token's only scope is participant:register; a registration token carries any of the others.
      const lacking = signup
        ? [await mint("registration", { scopes: [...REGISTRATION_TOKEN_SCOPES] })]
        : [await mint("registration", { scopes: REGISTRATION_TOKEN_SCOPES.filter((s) => s !== scope) }), await mint("signup")];
      const before = await snapshot();
      for (const { token, scopes } of lacking) {
        expect(scopes).not.toContain(scope);
        const res = await sendWith({}, token);
        expectStatus(res, 403);
        expect(res.body.error.code).toBe("insufficient_scope");
        expect(res.body.error.message).toContain(scope);
      }
      expect(await snapshot()).toBe(before);
    });

    it(`passes the scope check with a token holding only ${scope}`, async () => {
      // A registration of its own (a withdrawal or a check-in would change the fixture's), in a tournament that takes
      // the request: so the token gets as far as the operation, and the operation accepts it.
      const { token, scopes } = signup ? await mint("signup") : await mint("registration", {
        registrationId: await freshRegistration(),
        scopes: [scope],
      });
      expect(scopes).toEqual([scope]);
      const res = await sendWith({}, token);
      if (route.path.includes("{match_id}")) {
        // The operation is reached: the match is none of the token's team's (contract section 18: 404).
        expect([res.status, res.body.error?.code], res.text).toEqual([404, "not_found"]);
      } else {
        expect(res.status, res.text).toBe(route.location ? 201 : 200);
      }
    });
  }
});

describe("keys over time", () => {
  it("a key revoked after use is refused on the next request", async () => {
    const t = await tenant();
    expectStatus(await t.request("GET", "/tournaments"), 200);
    await sql("select admin.revoke_api_key($1)", [t.keyId]);
    expectUnauthorized(await t.request("GET", "/tournaments"));
  });

  it("a key past its expiry is refused on the next request", async () => {
    const accountId = await createAccount(true);
    const { id, key } = await createKey(accountId, ALL_SCOPES, new Date(Date.now() + 3_600_000));
    expectStatus(await request("GET", "/tournaments", { key }), 200);
    await sql("update app.api_keys set expires_at = now() - interval '1 millisecond' where id = $1", [id]);
    expectUnauthorized(await request("GET", "/tournaments", { key }));
  });

  it("an account whose access is turned off is refused on the next request, and allowed again once on", async () => {
    const t = await tenant();
    expectStatus(await t.request("GET", "/tournaments"), 200);
    await sql("select admin.set_api_access($1, false)", [t.accountId]);
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 403);
    expect(res.body.error.code).toBe("api_access_disabled");
    await sql("select admin.set_api_access($1, true)", [t.accountId]);
    expectStatus(await t.request("GET", "/tournaments"), 200);
  });

  it("a key with several scopes can use each of them", async () => {
    const t = await tenant(["read:tournaments", "write:tournaments"]);
    const created = await createTournament(t);
    expectStatus(await t.request("GET", `/tournaments/${created.id}`), 200);
    const res = await t.request("GET", `/tournaments/${created.id}/registrations`);
    expectStatus(res, 403);
    expect(res.body.error.message).toContain("read:registrations");
  });
});

describe("rate limit", () => {
  const burst = async (key: string, count: number, urls: string[]) => {
    const responses = await Promise.all(Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${urls[i % urls.length]}/tournaments`, { headers: { authorization: `Bearer ${key}` } });
      return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
    }));
    return {
      passed: responses.filter((r) => r.status !== 429),
      limited: responses.filter((r) => r.status === 429),
    };
  };
  const hits = rateHits;

  it("lets exactly 100 of 150 parallel requests with one fresh key through; the 50 others get 429 with Retry-After", async () => {
    const t = await tenant();
    const { passed, limited } = await burst(t.key, 150, [apiUrl()]);
    expect(passed.map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(limited).toHaveLength(50);
    for (const r of limited) {
      expect(r.body.error.code).toBe("rate_limited");
      const retry = Number(r.retryAfter);
      expect(Number.isInteger(retry)).toBe(true);
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
    }
    // 429s do not count: the window holds the 100 accepted requests only, even after more refusals.
    expect(await hits(t.keyId)).toBe(100);
    const more = await burst(t.key, 10, [apiUrl()]);
    expect(more.limited).toHaveLength(10);
    expect(await hits(t.keyId)).toBe(100);
  });

  it("limits each key separately", async () => {
    const t = await tenant();
    const { passed } = await burst(t.key, 100, [apiUrl()]);
    expect(passed).toHaveLength(100);
    expectStatus(await t.request("GET", "/tournaments"), 429);
    const other = await t.newKey();
    expectStatus(await request("GET", "/tournaments", { key: other.key }), 200);
  });

  it("limits each participant token on its own ring: 150 parallel requests with one token → exactly 100 pass; its sibling is not charged", async () => {
    const [one, sibling] = [await mint("registration"), await mint("registration")];
    const responses = await Promise.all(Array.from({ length: 150 }, () => request("GET", "/participant", { key: one.token })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(100);
    const limited = responses.filter((r) => r.status !== 200);
    expect(limited).toHaveLength(50);
    for (const r of limited) {
      expect(r.status).toBe(429);
      expect(r.body.error.code).toBe("rate_limited");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    expect(await hits(one.id)).toBe(100);
    expect(await hits(sibling.id)).toBe(0);
    const other = await request("GET", "/participant", { key: sibling.token });
    expectStatus(other, 200);
    expect(other.headers.get("ratelimit-remaining")).toBe("99");
  });

  describe("across function instances", () => {
    let second: { url: string; stop: () => Promise<void> } | undefined;
    beforeAll(async () => {
      second = await startFunction({ port: await freePort(), databaseUrl: inject("functionDbUrl") });
    });
    afterAll(async () => {
      await second?.stop();
    });

    it("shares one window between two instances: 150 parallel requests split over both → exactly 100 pass", async () => {
      const t = await tenant();
      const { passed, limited } = await burst(t.key, 150, [apiUrl(), `${second!.url}/functions/v1/api/v1`]);
      expect(passed.map((r) => r.status)).toEqual(Array(100).fill(200));
      expect(limited).toHaveLength(50);
      expect(await hits(t.keyId)).toBe(100);
    });
  });
});
