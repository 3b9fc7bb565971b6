// Tenant isolation (issue 6, part 5). Over HTTP: for every route, both directions between two
// accounts and three scope sets (every scope, only the route's, all but the route's), the other
// account's ids answer exactly like ids that exist nowhere (403 when the scope is missing, since
// the scope check comes before existence; 404 otherwise), and its rows stay unchanged. Teams are
// shared: another account's team reads as not owned and writing it is 403 team_not_owned, the
// same answer as for a platform team; /me shows the caller's own key and account. Players
// (section 16) are private: another account's player is 404, its team's roster 403
// team_not_owned, its registration's lineup 404, and its player in the caller's own roster or
// lineup is as a player that exists nowhere. In SQL: the function's role (no account bound, or
// bound to the other account) and a Supabase user who is a member of the other account can
// neither read nor change an account's rows, nor add rows of their own that name its private
// ones (its player, its registration), not even through the operation functions
// (tests/database/rls.test.ts covers anon and strangers). Participant tokens (section 17): the
// organiser's token routes are the matrix's like any route (another account's tokens are 404);
// a token acts for its own registration and tournament alone, whatever the request names, over
// HTTP and in api.call, and the operations refuse another account's ids. Keys and tokens: no
// plaintext key or token in the function's log, in any table of app, auth and public, nor in
// pg_stat_statements, after requests that fail in every way a key can.
import fs from "node:fs";
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, inject, it, onTestFinished } from "vitest";
import { routes } from "../../functions/api/routes.ts";
import type { Route } from "../../functions/api/route.ts";
import { base62, crc32 } from "../../functions/api/keys.ts";
import {
  admin,
  ALL_SCOPES,
  type ApiResponse,
  createAccount,
  createKey,
  createTeams,
  createTournament,
  expectStatus,
  request,
  sql,
  type Tenant,
  tenant,
} from "../support/helpers.ts";

/** An account with data in every table: tournaments in two states, registrations, matches, an idempotency record, a member. */
interface World {
  name: string;
  t: Tenant;
  game: string;
  open: { id: string };
  ongoing: { id: string };
  /** Two stages, the first completed: stage 2 is the next to start (PATCH .../stages/2 would start it). */
  staged: { id: string };
  reg: string;
  ongoingReg: string;
  ready: string;
  completed: string;
  spareTeam: string;
  /** A team the account made through the API: every account reads it, only this one writes it. */
  ownTeam: string;
  member: string;
  /** A webhook endpoint (pointing where nothing listens) and one of its deliveries. */
  webhook: string;
  delivery: string;
  /** A player (private to the account): the captain of ownTeam's roster, and in the lineup of `reg`. */
  player: string;
  /** A registration token of `reg` (section 17), and a registration token of `ongoingReg` with its plaintext. */
  token: string;
  ongoingToken: { id: string; token: string };
  /** Everything that identifies this account's data. */
  secrets: string[];
}

async function world(name: string, game: string): Promise<World> {
  const t = await tenant();
  await sql("update app.accounts set name = $2 where id = $1", [t.accountId, `${name} Esports`]);
  const teams = await createTeams(6, `${name} Team`);
  const open = await createTournament(t, { name: `${name} Open`, game_id: game, max_teams: 8 });
  const ongoing = await createTournament(t, { name: `${name} Ongoing`, game_id: game, max_teams: 8 });
  for (const team_id of teams.slice(0, 2)) {
    expectStatus(await t.request("POST", `/tournaments/${open.id}/registrations`, { body: { team_id } }), 201);
  }
  for (const team_id of teams.slice(0, 4)) {
    expectStatus(await t.request("POST", `/tournaments/${ongoing.id}/registrations`, { body: { team_id } }), 201);
  }
  expectStatus(await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { status: "ongoing" } }), 200);
  const [first] = await sql("select id from app.matches where tournament_id = $1 and status = 'ready' order by position limit 1", [
    ongoing.id,
  ]);
  expectStatus(
    await t.request("PATCH", `/tournaments/${ongoing.id}/matches/${first.id}`, { body: { team1_score: 3, team2_score: 1 } }),
    200,
  );
  const staged = await createTournament(t, {
    name: `${name} Staged`,
    game_id: game,
    max_teams: 4,
    stages: [{ name: `${name} Groups`, format: "round_robin", advance: { per_group: 2 } }, {
      name: `${name} Playoffs`,
      format: "single_elimination",
    }],
  });
  for (const team_id of teams.slice(0, 2)) {
    expectStatus(await t.request("POST", `/tournaments/${staged.id}/registrations`, { body: { team_id } }), 201);
  }
  expectStatus(await t.request("PATCH", `/tournaments/${staged.id}`, { body: { status: "ongoing" } }), 200);
  const [groupMatch] = await sql("select id from app.matches where tournament_id = $1 and status = 'ready'", [staged.id]);
  expectStatus(
    await t.request("PATCH", `/tournaments/${staged.id}/matches/${groupMatch.id}`, { body: { team1_score: 3, team2_score: 1 } }),
    200,
  );
  const next = await t.request("GET", `/tournaments/${staged.id}/stages/${STAGE}`);
  expectStatus(next, 200);
  expect([next.body.data.status, next.body.data.qualifiers.length], next.text).toEqual(["pending", 2]);
  // An idempotency record for a success and one for a saved state error.
  expectStatus(
    await t.request("POST", "/tournaments", {
      body: { ...baseBody(game), name: `${name} Retried` },
      headers: { "idempotency-key": `${name}-create` },
    }),
    201,
  );
  expectStatus(
    await t.request("POST", `/tournaments/${ongoing.id}/registrations`, {
      body: { team_id: teams[5] },
      headers: { "idempotency-key": `${name}-late` },
    }),
    409,
  );
  const ownTeam = await t.request("POST", "/teams", { body: { name: `${name} Own Team`, tag: name.slice(0, 3).toUpperCase() } });
  expectStatus(ownTeam, 201);
  // A player, on the roster of the account's team and in the lineup of the open tournament's first registration.
  const player = await t.request("POST", "/players", {
    body: {
      handle: `${name} Star`,
      name: `${name} Star Person`,
      country: "SE",
      external_id: `${name}-star`,
      game_accounts: { steam: name },
    },
  });
  expectStatus(player, 201);
  expectStatus(
    await t.request("PUT", `/teams/${ownTeam.body.data.id}/players/${player.body.data.id}`, { body: { role: "player", captain: true } }),
    200,
  );
  // A webhook endpoint, and a delivery of its test event (a dispatcher of tests/webhooks/delivery.test.ts may attempt it: refused at once).
  const webhook = await t.request("POST", "/webhooks", { body: { url: `${NOWHERE}/${name}`, events: ["*"], description: `${name} Hook` } });
  expectStatus(webhook, 201);
  const delivery = await t.request("POST", `/webhooks/${webhook.body.data.id}/test`);
  expectStatus(delivery, 202);
  const [{ id: member }] = await sql(
    "insert into auth.users (id, email) values (gen_random_uuid(), gen_random_uuid() || '@example.com') returning id",
  );
  await sql("select admin.add_account_member($1, $2)", [t.accountId, member]);

  const [reg] = await sql("select id from app.registrations where tournament_id = $1 order by seq limit 1", [open.id]);
  expectStatus(
    await t.request("PUT", `/tournaments/${open.id}/registrations/${reg.id}/lineup`, {
      body: { players: [{ player_id: player.body.data.id, role: "player", captain: true }] },
    }),
    200,
  );
  const [ongoingReg] = await sql("select id from app.registrations where tournament_id = $1 order by seq limit 1", [ongoing.id]);
  const [ready] = await sql("select id from app.matches where tournament_id = $1 and status = 'ready' order by position limit 1", [
    ongoing.id,
  ]);
  // Participant tokens: one of `reg` (the organiser's token routes name it), one of `ongoingReg`.
  const token = await t.request("POST", `/tournaments/${open.id}/registrations/${reg.id}/tokens`, { body: { name: `${name} Token` } });
  expectStatus(token, 201);
  const ongoingToken = await t.request("POST", `/tournaments/${ongoing.id}/registrations/${ongoingReg.id}/tokens`, { body: {} });
  expectStatus(ongoingToken, 201);
  const ids = await sql(
    `select id::text from app.tournaments where account_id = $1 union all select id::text from app.registrations where account_id = $1
     union all select id::text from app.matches where account_id = $1`,
    [t.accountId],
  );
  return {
    name,
    t,
    game,
    open,
    ongoing,
    staged,
    reg: reg.id,
    ongoingReg: ongoingReg.id,
    ready: ready.id,
    completed: first.id,
    spareTeam: teams[5],
    ownTeam: ownTeam.body.data.id,
    member,
    webhook: webhook.body.data.id,
    delivery: delivery.body.data.id,
    player: player.body.data.id,
    token: token.body.data.id,
    ongoingToken: { id: ongoingToken.body.data.id, token: ongoingToken.body.data.token },
    secrets: [
      token.body.data.id,
      `${name} Token`,
      ongoingToken.body.data.id,
      t.accountId,
      game,
      `${name} Open`,
      `${name} Ongoing`,
      `${name} Staged`,
      `${name} Groups`,
      `${name} Playoffs`,
      `${name} Retried`,
      `${name} Hook`,
      `${NOWHERE}/${name}`,
      webhook.body.data.id,
      delivery.body.data.id,
      delivery.body.data.event_id,
      player.body.data.id,
      `${name} Star`,
      `${name}-star`,
      ...ids.map((r) => r.id),
    ],
  };
}

/** Nothing listens on port 9 of the loopback: a dispatcher's attempt there is refused at once. */
const NOWHERE = "http://127.0.0.1:9/x";

/** The stage the stage routes name: the staged tournament's stage 2, the next to start. */
const STAGE = "2";

const baseBody = (game: string) => ({
  name: "Cup",
  game_id: game,
  team_size: 5,
  max_teams: 8,
  starts_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
});

/**
 * Every row of the account, in every table that holds account data (the rate-limit state aside).
 * Webhook endpoints and deliveries without what the dispatchers of tests/webhooks/delivery.test.ts change
 * as they attempt them (failing_since, a delivery's attempts and status; an endpoint they disable
 * for failing counts as enabled).
 */
async function fingerprint(accountId: string): Promise<string> {
  const [row] = await sql(
    `select json_build_object(
       'account', (select to_json(a) from app.accounts a where a.id = $1),
       'keys', (select json_agg(json_build_object('id', k.id, 'name', k.name, 'prefix', k.prefix, 'hash', k.key_hash,
                  'scopes', k.scopes, 'expires_at', k.expires_at, 'revoked_at', k.revoked_at, 'tournament_id', k.tournament_id,
                  'registration_id', k.registration_id, 'max_uses', k.max_uses, 'uses', k.uses) order by k.id)
                  from app.api_keys k where k.account_id = $1),
       'tournaments', (select json_agg(t order by t.id) from app.tournaments t where t.account_id = $1),
       'registrations', (select json_agg(r order by r.id) from app.registrations r where r.account_id = $1),
       'matches', (select json_agg(m order by m.id) from app.matches m where m.account_id = $1),
       'stages', (select json_agg(s order by s.id) from app.stages s where s.account_id = $1),
       'stage_entries', (select json_agg(e order by e.tournament_id, e.stage, e.team_id) from app.stage_entries e where e.account_id = $1),
       'idempotency', (select json_agg(i order by i.api_key_id, i.idempotency_key) from app.idempotency_keys i where i.account_id = $1),
       'members', (select json_agg(m order by m.user_id) from app.account_members m where m.account_id = $1),
       'teams', (select json_agg(t order by t.id) from app.teams t where t.account_id = $1),
       'webhooks', (select json_agg(json_build_object('id', w.id, 'url', w.url, 'events', w.events, 'tournament_id', w.tournament_id,
                      'description', w.description, 'on', w.enabled or w.disabled_reason is not null, 'secret', w.secret,
                      'previous_secret', w.previous_secret, 'created_at', w.created_at, 'updated_at', w.updated_at) order by w.id)
                      from app.webhook_endpoints w where w.account_id = $1),
       'webhook_events', (select json_agg(json_build_array(e.id, e.type, e.tournament_id, e.payload) order by e.id)
                            from app.webhook_events e where e.account_id = $1),
       'deliveries', (select json_agg(json_build_array(d.id, d.endpoint_id, d.event_id) order by d.id)
                        from app.webhook_deliveries d where d.account_id = $1),
       'players', (select json_agg(p order by p.id) from app.players p where p.account_id = $1),
       'team_members', (select json_agg(m order by m.team_id, m.player_id) from app.team_members m where m.account_id = $1),
       'lineup_entries', (select json_agg(e order by e.registration_id, e.player_id) from app.lineup_entries e where e.account_id = $1))::text s`,
    [accountId],
  );
  return row.s;
}

let x: World;
let y: World;
beforeAll(async () => {
  [x, y] = await Promise.all([
    world("Ampere", "a0a0a0a0-0000-4000-8000-00000000a0a0"),
    world("Bolt", "b0b0b0b0-0000-4000-8000-00000000b0b0"),
  ]);
  for (const w of [x, y]) {
    for (
      const table of [
        "tournaments",
        "registrations",
        "matches",
        "stages",
        "stage_entries",
        "idempotency_keys",
        "account_members",
        "webhook_endpoints",
        "webhook_events",
        "webhook_deliveries",
        "players",
        "team_members",
        "lineup_entries",
      ]
    ) {
      const [{ n }] = await sql(`select count(*)::int n from app.${table} where account_id = $1`, [w.t.accountId]);
      expect(n, `${w.name} has rows in ${table}`).toBeGreaterThan(0);
    }
  }
}, 60_000);

// ---------------------------------------------------------------------------------------------
describe("over HTTP, another account's data is invisible and unchanged", () => {
  const routeName = (r: Route) => `${r.method} ${r.path}`;
  // Teams are shared by every account and /me is the caller's own: they have their own tests below. The
  // participant routes take a participant token, not a key (an API key there is 401: tests/keys/security.test.ts),
  // and name nothing in their path: their own tests below.
  const isShared = (r: Route) => r.path === "/me" || r.path === "/teams" || r.path.startsWith("/teams/");
  const accountRoutes = routes.filter((r) => !isShared(r) && !r.participant);
  const SCOPE_SETS = {
    "every scope": (_r: Route) => [...ALL_SCOPES],
    "only the route's scope": (r: Route) => (r.scope ? [r.scope] : [ALL_SCOPES[0]]),
    "every scope but the route's": (r: Route) => ALL_SCOPES.filter((s) => s !== r.scope),
  };

  /** A request that would change or reveal the victim's data if isolation failed. */
  function sampleBody(route: Route, victim: World): unknown {
    switch (route.op) {
      case "tournaments.create":
        return baseBody("6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
      case "tournaments.update":
        return { name: "Hijacked", max_teams: 64 };
      case "registrations.create":
        return { team_id: victim.spareTeam };
      case "matches.report":
        return { team1_score: 0, team2_score: 9 };
      case "registrations.update":
        return { seed: 1, payment_status: "refunded", checked_in: true };
      case "webhooks.create":
        return { url: `${NOWHERE}/intruder`, events: ["*"] };
      case "webhooks.update":
        return { url: `${NOWHERE}/hijacked`, events: ["match.ready"], enabled: false, description: "Hijacked" };
      case "stages.update":
        return { status: "ongoing" };
      case "games.put":
        return { team1_score: 13, team2_score: 2, map: "Hijacked" };
      case "players.create":
        return { handle: "Intruder Star", external_id: `intruder-${crypto.randomUUID()}` };
      case "players.update":
        return { handle: "Hijacked", country: "NO", external_id: null, game_accounts: {} };
      case "lineups.put":
        return { players: [{ player_id: victim.player, role: "substitute", captain: true }] };
      case "tokens.create":
        return { name: "Intruder token", scopes: ["participant:lineup", "participant:withdraw"] };
      case "signup_tokens.create":
        return { name: "Intruder sign-ups", max_uses: 10 };
      default:
        if (route.body) throw new Error(`no sample body for ${routeName(route)}: add one to the isolation suite`);
        return undefined;
    }
  }

  /** The same request with a body the schema refuses (input comes before existence). */
  function invalidBody(route: Route): unknown {
    switch (route.op) {
      case "tournaments.update":
        return { max_teams: 0 };
      case "registrations.create":
        return { team_id: "not-a-uuid" };
      case "matches.report":
        return { team1_score: 1 }; // both scores are needed (equal ones are a draw where the stage allows draws: SQL decides)
      case "registrations.update":
        return { seed: 0 };
      case "webhooks.update":
        return { events: [] };
      case "stages.update":
        return { status: "started" };
      case "games.put":
        return { team1_score: 5, team2_score: 5 };
      case "players.update":
        return { country: "se" };
      case "lineups.put":
        return { players: [{ player_id: "not-a-uuid", role: "player" }] };
      case "tokens.create":
        return { scopes: ["participant:register"] };
      case "signup_tokens.create":
        return { max_uses: 0 };
      default:
        return undefined;
    }
  }

  /**
   * The paths to try: the victim's resource chain, and the two mixes of the intruder's and the victim's ids. A stage
   * number is no id (it names nothing of its own): the victim's staged tournament with its next stage, the number
   * kept as it is (`own`) when the victim's ids are replaced by ids that exist nowhere.
   */
  function paths(route: Route, intruder: World, victim: World): { label: string; ids: [string, "victim" | "own"][] }[] {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    if (route.path.includes("/stages")) {
      return names.includes("number")
        ? [{ label: `the victim's tournament, stage ${STAGE}`, ids: [[victim.staged.id, "victim"], [STAGE, "own"]] }]
        : [{ label: "the victim's tournament", ids: [[victim.staged.id, "victim"]] }];
    }
    const hooks = names[0] === "webhook_id";
    const tournamentOf = (
      w: World,
    ) => (hooks ? w.webhook : names[1] === "match_id" || route.path.endsWith("/results") ? w.ongoing.id : w.open.id);
    const childOf = (
      w: World,
    ) => (names[1] === "delivery_id" ? w.delivery : names[1] === "match_id" ? w.ready : names[1] === "token_id" ? w.token : w.reg);
    const [parent, child] = hooks ? ["webhook", "delivery"] : ["tournament", "child"];
    if (names.length === 0) return [{ label: "no id", ids: [] }];
    if (names[0] === "player_id") return [{ label: "the victim's player", ids: [[victim.player, "victim"]] }];
    if (names.length === 1) return [{ label: `the victim's ${parent}`, ids: [[tournamentOf(victim), "victim"]] }];
    // A game number (a match's game 1) is no id either: kept as it is.
    const game: [string, "own"][] = names.includes("number") ? [["1", "own"]] : [];
    return [
      { label: `the victim's ${parent} and ${child}`, ids: [[tournamentOf(victim), "victim"], [childOf(victim), "victim"], ...game] },
      {
        label: `the intruder's ${parent}, the victim's ${child}`,
        ids: [[tournamentOf(intruder), "own"], [childOf(victim), "victim"], ...game],
      },
      {
        label: `the victim's ${parent}, the intruder's ${child}`,
        ids: [[tournamentOf(victim), "victim"], [childOf(intruder), "own"], ...game],
      },
    ];
  }

  const fill = (route: Route, ids: string[]) => {
    let i = 0;
    return route.path.replace(/\{\w+\}/g, () => ids[i++]);
  };

  function expectNoTrace(res: ApiResponse, victim: World) {
    for (const s of victim.secrets) expect(res.text, `the response names ${s}`).not.toContain(s);
  }

  const directions = [["Bolt", "Ampere"], ["Ampere", "Bolt"]] as const;
  describe.each(directions)("%s's keys against %s's data", (intruderName, victimName) => {
    const pick = () => (intruderName === "Bolt" ? [y, x] : [x, y]) as [World, World];

    describe.each(accountRoutes.map((r) => [routeName(r), r] as const))("%s", (_name, route) => {
      it.each(Object.keys(SCOPE_SETS) as (keyof typeof SCOPE_SETS)[])("with %s", async (set) => {
        const [intruder, victim] = pick();
        const before = await fingerprint(victim.t.accountId);
        const scopes = SCOPE_SETS[set](route);
        const { key } = await createKey(intruder.t.accountId, scopes);
        const send = (path: string, body: unknown) => request(route.method, path, { key, body });
        const hasScope = route.scope === null || scopes.includes(route.scope);

        const sample = sampleBody(route, victim);
        for (const { label, ids } of paths(route, intruder, victim)) {
          const bodies = [sample, ...(hasScope && invalidBody(route) ? [invalidBody(route)] : [])];
          for (const body of bodies) {
            const res = await send(fill(route, ids.map(([id]) => id)), body);
            // The same request with the victim's ids replaced by ids that exist nowhere.
            const nowhere = await send(fill(route, ids.map(([id, whose]) => (whose === "victim" ? crypto.randomUUID() : id))), body);
            expectNoTrace(res, victim);
            const what = `${label}, body ${JSON.stringify(body)}: ${res.text}`;
            if (!hasScope) {
              expect(res.status, what).toBe(403);
              expect(res.body.error.code, what).toBe("insufficient_scope");
              expect(res.body.error.message, what).toContain(route.scope);
            } else if (ids.length === 0) {
              expect(res.status, what).toBe(route.method === "POST" ? 201 : 200);
            } else if (body === sample) {
              expect(res.status, what).toBe(404);
              expect(res.body.error.code, what).toBe("not_found");
            } else {
              expect(res.status, what).toBe(400);
              expect(res.body.error.code, what).toBe("validation_error");
            }
            if (ids.length > 0) {
              // No oracle: the victim's ids answer exactly as ids that exist nowhere.
              expect(nowhere.status, `${what}\nvs nowhere: ${nowhere.text}`).toBe(res.status);
              expect(nowhere.body.error, `${what}\nvs nowhere: ${nowhere.text}`).toEqual(res.body.error);
            }
            const table = route.path.startsWith("/webhooks")
              ? "app.webhook_endpoints"
              : route.path.startsWith("/players")
              ? "app.players"
              : "app.tournaments";
            if (hasScope && ids.length === 0 && route.method === "GET") {
              // The intruder's list is its own, complete.
              const own = (await sql(`select id from ${table} where account_id = $1`, [intruder.t.accountId])).map((r) => r.id);
              expect(res.body.pagination.total).toBe(own.length);
              for (const t of res.body.data) expect(own).toContain(t.id);
            }
            if (hasScope && ids.length === 0 && route.method === "POST") {
              const [made] = await sql(`select account_id from ${table} where id = $1`, [res.body.data.id]);
              expect(made.account_id).toBe(intruder.t.accountId);
              // (keeps the intruder at its one endpoint: below the 20-endpoint limit over the runs)
              if (table === "app.webhook_endpoints") {
                await sql("delete from app.webhook_endpoints where account_id = $1 and id <> $2", [intruder.t.accountId, intruder.webhook]);
              }
            }
          }
        }
        expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
      });
    });
  });

  describe.each(directions)("%s's keys against %s's team: read by all, written by its owner alone", (intruderName, victimName) => {
    const pick = () => (intruderName === "Bolt" ? [y, x] : [x, y]) as [World, World];
    const teamRoutes = routes.filter((r) => r.path === "/teams/{team_id}");
    const cases = teamRoutes.flatMap((r) =>
      (Object.keys(SCOPE_SETS) as (keyof typeof SCOPE_SETS)[]).map((set) => [routeName(r), set, r] as const)
    );

    it.each(cases)("%s with %s", async (_name, set, route) => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const teamBefore = await sql("select * from app.teams where id = $1", [victim.ownTeam]);
      const scopes = SCOPE_SETS[set](route);
      const { key } = await createKey(intruder.t.accountId, scopes);
      const body = route.method === "PATCH" ? { name: "Hijacked", tag: "HJ", logo_url: null } : undefined;
      const res = await request(route.method, `/teams/${victim.ownTeam}`, { key, body });
      const what = `${set}: ${res.text}`;
      expectNoTrace(res, victim);
      if (!scopes.includes(route.scope!)) {
        expect(res.status, what).toBe(403);
        expect(res.body.error.code, what).toBe("insufficient_scope");
      } else if (route.method === "GET") {
        expect(res.status, what).toBe(200);
        expect(res.body.data, what).toMatchObject({ id: victim.ownTeam, name: `${victim.name} Own Team`, owned: false });
      } else {
        expect(res.status, what).toBe(403);
        expect(res.body.error.code, what).toBe("team_not_owned");
        // The same answer as for a platform team: nothing tells who owns it.
        const platform = await request(route.method, `/teams/${victim.spareTeam}`, { key, body });
        expect(platform.body.error, platform.text).toEqual(res.body.error);
      }
      expect(await sql("select * from app.teams where id = $1", [victim.ownTeam]), `${victimName}'s team changed`).toEqual(teamBefore);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });

    it("GET /teams shows the other account's team as not owned, and owned=true only the caller's own", async () => {
      const [intruder, victim] = pick();
      const { key } = await createKey(intruder.t.accountId, ["read:teams"]);
      const found = await request("GET", `/teams?search=${encodeURIComponent(`${victim.name} Own Team`)}`, { key });
      expectStatus(found, 200);
      expect(found.body.data.map((t: { id: string; owned: boolean }) => [t.id, t.owned])).toContainEqual([victim.ownTeam, false]);
      expectNoTrace(found, victim);
      const own = await request("GET", "/teams?owned=true&limit=100", { key });
      expectStatus(own, 200);
      const mine = (await sql("select id from app.teams where account_id = $1", [intruder.t.accountId])).map((r) => r.id);
      expect(own.body.pagination.total).toBe(mine.length);
      expect(own.body.data.map((t: { id: string }) => t.id).sort()).toEqual([...mine].sort());
      const others = await request("GET", `/teams?owned=false&search=${encodeURIComponent(`${victim.name} Own Team`)}`, { key });
      expect(others.body.data.map((t: { id: string }) => t.id)).toContain(victim.ownTeam);
    });

    it("POST /teams makes a team of the caller's account, and GET /me shows only the caller's key and account", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const { id: keyId, key } = await createKey(intruder.t.accountId, ["write:teams"]);
      const made = await request("POST", "/teams", { key, body: { name: `${intruderName} Made`, tag: "MD" } });
      expectStatus(made, 201);
      const [row] = await sql("select account_id from app.teams where id = $1", [made.body.data.id]);
      expect(row.account_id).toBe(intruder.t.accountId);
      await sql("delete from app.teams where id = $1", [made.body.data.id]); // keeps the owned=true count above exact
      const me = await request("GET", "/me", { key });
      expectStatus(me, 200);
      expect(me.body.data.key.id).toBe(keyId);
      expect(me.body.data.account.id).toBe(intruder.t.accountId);
      expectNoTrace(me, victim);
      expect(await fingerprint(victim.t.accountId)).toBe(before);
    });
  });

  describe.each(directions)(
    "%s's keys against %s's roster and players: the team is read by all, the rest is its account's",
    (intruderName, victimName) => {
      const pick = () => (intruderName === "Bolt" ? [y, x] : [x, y]) as [World, World];
      const rosterRoutes = routes.filter((r) => r.path.startsWith("/teams/{team_id}/"));
      const cases = rosterRoutes.flatMap((r) =>
        (Object.keys(SCOPE_SETS) as (keyof typeof SCOPE_SETS)[]).map((set) => [routeName(r), set, r] as const)
      );
      const fill = (route: Route, team: string, player: string) => route.path.replace("{team_id}", team).replace("{player_id}", player);
      /** Where the victim's player is held outside the victim's account (a roster or a lineup of another account). */
      const strayed = async (victim: World) =>
        await sql(
          `select 'team_members' t, account_id from app.team_members where player_id = $1 and account_id <> $2
         union all select 'lineup_entries', account_id from app.lineup_entries where player_id = $1 and account_id <> $2`,
          [victim.player, victim.t.accountId],
        );

      it.each(cases)("%s with %s", async (_name, set, route) => {
        const [intruder, victim] = pick();
        const before = await fingerprint(victim.t.accountId);
        const ownBefore = await sql("select * from app.team_members where team_id = $1 order by player_id", [intruder.ownTeam]);
        const scopes = SCOPE_SETS[set](route);
        const hasScope = scopes.includes(route.scope!);
        const { key } = await createKey(intruder.t.accountId, scopes);
        const body = route.method === "PUT" ? { role: "coach", captain: true } : undefined;
        const send = (team: string, player: string) => request(route.method, fill(route, team, player), { key, body });
        // The victim's team, with the victim's player and with the intruder's own: the team is no secret,
        // its roster is: 403 team_not_owned, the same answer as for a platform team (whose roster no account holds).
        for (const player of [victim.player, intruder.player]) {
          const res = await send(victim.ownTeam, player);
          const what = `${set}, the victim's team: ${res.text}`;
          expectNoTrace(res, victim);
          if (!hasScope) {
            expect(res.status, what).toBe(403);
            expect(res.body.error.code, what).toBe("insufficient_scope");
          } else {
            expect(res.status, what).toBe(403);
            expect(res.body.error.code, what).toBe("team_not_owned");
            const platform = await send(victim.spareTeam, player);
            expect(platform.body.error, platform.text).toEqual(res.body.error);
          }
        }
        if (route.path.includes("{player_id}")) {
          // The intruder's own team with the victim's player: as a player that exists nowhere (404).
          const res = await send(intruder.ownTeam, victim.player);
          const nowhere = await send(intruder.ownTeam, crypto.randomUUID());
          const what = `${set}, the intruder's team: ${res.text}`;
          expectNoTrace(res, victim);
          expect(res.status, what).toBe(hasScope ? 404 : 403);
          expect(res.body.error.code, what).toBe(hasScope ? "not_found" : "insufficient_scope");
          expect(nowhere.body.error, `${what}\nvs nowhere: ${nowhere.text}`).toEqual(res.body.error);
        } else if (hasScope) {
          // The intruder's own roster: its own members only.
          const res = await send(intruder.ownTeam, "");
          expectStatus(res, 200);
          expect(res.body.data.map((m: { id: string }) => m.id)).toEqual([intruder.player]);
          expectNoTrace(res, victim);
        }
        expect(await sql("select * from app.team_members where team_id = $1 order by player_id", [intruder.ownTeam])).toEqual(ownBefore);
        expect(await strayed(victim)).toEqual([]);
        expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
      });

      it("the victim's player in the intruder's own lineup is refused as a player that exists nowhere (400 naming the entry)", async () => {
        const [intruder, victim] = pick();
        const before = await fingerprint(victim.t.accountId);
        const lineupBefore = await sql("select * from app.lineup_entries where registration_id = $1 order by player_id", [intruder.reg]);
        const { key } = await createKey(intruder.t.accountId, ["write:registrations"]);
        const path = `/tournaments/${intruder.open.id}/registrations/${intruder.reg}/lineup`;
        const put = (player_id: string, role: string) => request("PUT", path, { key, body: { players: [{ player_id, role }] } });
        for (const role of ["player", "substitute", "coach"]) {
          const res = await put(victim.player, role);
          expect(res.status, res.text).toBe(400);
          expect(res.body.error.code).toBe("validation_error");
          expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(["players[0].player_id"]);
          expectNoTrace(res, victim);
          const nowhere = await put(crypto.randomUUID(), role);
          expect(nowhere.body.error, nowhere.text).toEqual(res.body.error);
        }
        expect(await sql("select * from app.lineup_entries where registration_id = $1 order by player_id", [intruder.reg])).toEqual(
          lineupBefore,
        );
        expect(await strayed(victim)).toEqual([]);
        expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
      });

      it("registering the other account's team copies nothing of its roster, and its external_id is free here", async () => {
        const [intruder, victim] = pick();
        const before = await fingerprint(victim.t.accountId);
        const { key } = await createKey(intruder.t.accountId, ["write:registrations", "write:teams", "read:teams"]);
        // Any account registers any team; only a team of the tournament's own account brings its roster.
        const reg = await request("POST", `/tournaments/${intruder.open.id}/registrations`, { key, body: { team_id: victim.ownTeam } });
        expectStatus(reg, 201);
        expect(reg.body.data.lineup).toEqual([]);
        expectNoTrace(reg, victim);
        expectStatus(await request("DELETE", `/tournaments/${intruder.open.id}/registrations/${reg.body.data.id}`, { key }), 200);
        // The victim's external_id is the victim's: the same one is free in the intruder's account, and its
        // filter and search find nothing of the victim's.
        const made = await request("POST", "/players", { key, body: { handle: "Twin", external_id: `${victim.name}-star` } });
        expectStatus(made, 201);
        for (const query of [`external_id=${victim.name}-star`, `search=${victim.name}`, "search=star", "limit=100"]) {
          const res = await request("GET", `/players?${query}`, { key });
          expectStatus(res, 200);
          const ids = res.body.data.map((p: { id: string }) => p.id);
          expect(ids, query).not.toContain(victim.player);
          for (const secret of [`${victim.name} Star`, victim.t.accountId]) expect(res.text, query).not.toContain(secret);
          if (query.startsWith("external_id")) expect(ids, query).toEqual([made.body.data.id]);
        }
        expectStatus(await request("DELETE", `/players/${made.body.data.id}`, { key }), 200);
        expect(await strayed(victim)).toEqual([]);
        expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
      });
    },
  );

  it.each([["Ampere", "Bolt"], ["Bolt", "Ampere"]])(
    "%s cannot aim a webhook at %s's tournament: 404 not_found, as for a tournament that exists nowhere",
    async (name) => {
      const [self, other] = name === "Ampere" ? [x, y] : [y, x];
      const before = await fingerprint(other.t.accountId);
      const { key } = await createKey(self.t.accountId, ["write:webhooks"]);
      const answers = [];
      for (const tournament_id of [other.open.id, other.ongoing.id, crypto.randomUUID()]) {
        const created = await request("POST", "/webhooks", { key, body: { url: NOWHERE, events: ["*"], tournament_id } });
        const patched = await request("PATCH", `/webhooks/${self.webhook}`, { key, body: { tournament_id } });
        for (const res of [created, patched]) {
          expect(res.status, res.text).toBe(404);
          expect(res.body.error.code).toBe("not_found");
          expectNoTrace(res, other);
        }
        answers.push([created.body.error, patched.body.error]);
      }
      expect(answers[0]).toEqual(answers[2]);
      expect(answers[1]).toEqual(answers[2]);
      expect(await fingerprint(other.t.accountId)).toBe(before);
    },
  );

  it.each([["Ampere"], ["Bolt"]])("%s's own lists, reads and results never show the other account's data", async (name) => {
    const [self, other] = name === "Ampere" ? [x, y] : [y, x];
    const own = await sql("select id, status, game_id from app.tournaments where account_id = $1", [self.t.accountId]);
    const listings = [
      ["", own.length],
      ["?status=registration", own.filter((t) => t.status === "registration").length],
      ["?status=ongoing", own.filter((t) => t.status === "ongoing").length],
      [`?game_id=${other.game}`, 0],
      [`?game_id=${self.game}`, own.filter((t) => t.game_id === self.game).length],
      ["?page=2&limit=1", own.length],
      ["?limit=100", own.length],
    ] as const;
    for (const [query, total] of listings) {
      const res = await self.t.request("GET", `/tournaments${query}`);
      expectStatus(res, 200);
      expect(res.body.pagination.total, query).toBe(total);
      for (const t of res.body.data) expect(own.map((r) => r.id), query).toContain(t.id);
      expectNoTrace(res, other);
    }
    for (
      const path of [
        "/webhooks",
        `/webhooks/${self.webhook}`,
        `/webhooks/${self.webhook}/deliveries`,
        `/tournaments/${self.open.id}`,
        `/tournaments/${self.open.id}/registrations`,
        `/tournaments/${self.ongoing.id}/registrations?status=complete`,
        `/tournaments/${self.open.id}/registrations/${self.reg}`,
        `/tournaments/${self.ongoing.id}/results`,
        `/tournaments/${self.staged.id}/results?stage=1`,
        `/tournaments/${self.staged.id}/stages`,
        `/tournaments/${self.staged.id}/stages/1`,
        `/tournaments/${self.staged.id}/stages/${STAGE}`,
        "/players",
        `/players?search=star`,
        `/players/${self.player}`,
        `/teams/${self.ownTeam}/players`,
      ]
    ) {
      const res = await self.t.request("GET", path);
      expectStatus(res, 200);
      expectNoTrace(res, other);
    }
    const results = await self.t.request("GET", `/tournaments/${self.ongoing.id}/results`);
    const matches = await sql("select id from app.matches where tournament_id = $1 order by round, position", [self.ongoing.id]);
    expect(results.body.data.matches.map((m: { id: string }) => m.id)).toEqual(matches.map((m) => m.id));
  });
});

// ---------------------------------------------------------------------------------------------
describe("participant tokens act for their own registration and tournament alone", () => {
  const directions = [["Bolt", "Ampere"], ["Ampere", "Bolt"]] as const;
  const hash = (s: string) => createHash("sha256").update(s).digest();
  function expectNoTrace(res: ApiResponse, victim: World) {
    for (const s of victim.secrets) expect(res.text, `the response names ${s}`).not.toContain(s);
  }
  /** The world's organiser, on a fresh key (the world's own key is shared by many tests). */
  async function organiser(w: World) {
    const { key } = await createKey(w.t.accountId);
    return (method: string, path: string, body?: unknown) => request(method, path, { key, body });
  }
  /**
   * A fresh tournament of the world's (in registration, check-in open) with a registration (a platform team),
   * a registration token (every registration scope) and a sign-up token. When the test ends, the tournament
   * goes, and with it the players and teams its participants made: the world stays as the other tests expect
   * it (an external_id of the other account's, used here, would otherwise stay taken in this one).
   */
  async function participant(w: World) {
    const call = await organiser(w);
    const tour = await createTournament(w.t, {
      name: `${w.name} Participants`,
      game_id: w.game,
      max_teams: 16,
      check_in_opens: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const [team] = await createTeams(1, `${w.name} Entrant`);
    const reg = await call("POST", `/tournaments/${tour.id}/registrations`, { team_id: team });
    expectStatus(reg, 201);
    const token = await call("POST", `/tournaments/${tour.id}/registrations/${reg.body.data.id}/tokens`, {});
    expectStatus(token, 201);
    const signup = await call("POST", `/tournaments/${tour.id}/signup-tokens`, {});
    expectStatus(signup, 201);
    onTestFinished(async () => {
      const players = await sql("select distinct player_id::text id from app.lineup_entries where tournament_id = $1", [tour.id]);
      const teams = await sql(
        "select team_id::text id from app.registrations r join app.teams t on t.id = r.team_id where r.tournament_id = $1 and t.account_id = $2",
        [tour.id, w.t.accountId],
      );
      expectStatus(await call("DELETE", `/tournaments/${tour.id}`), 200);
      for (const { id } of players) expectStatus(await call("DELETE", `/players/${id}`), 200);
      for (const { id } of teams) expectStatus(await call("DELETE", `/teams/${id}`), 200);
    });
    return {
      tid: tour.id as string,
      reg: reg.body.data.id as string,
      team,
      token: token.body.data as { id: string; token: string },
      signup: signup.body.data as { id: string; token: string },
    };
  }
  /** What the victim's ids would say, if a participant route took them from the request. */
  const aimedAt = (victim: World) =>
    `tournament_id=${victim.open.id}&registration_id=${victim.reg}&token_id=${victim.token}&id=${victim.ongoing.id}`;
  const accountOf = async (table: string, id: string) =>
    (await sql(`select account_id from app.${table} where id = $1`, [id]))[0]?.account_id;

  describe.each(directions)("a token of %s's tournament against %s's data", (intruderName, victimName) => {
    const pick = () => (intruderName === "Bolt" ? [y, x] : [x, y]) as [World, World];

    it("GET /participant shows its own token, tournament and registration, whatever the request names", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const p = await participant(intruder);
      for (const query of ["", `?${aimedAt(victim)}`]) {
        const res = await request("GET", `/participant${query}`, { key: p.token.token });
        expectStatus(res, 200);
        expect(res.body.data.token.id).toBe(p.token.id);
        expect(res.body.data.tournament.id).toBe(p.tid);
        expect(res.body.data.registration.id).toBe(p.reg);
        expectNoTrace(res, victim);
        const signup = await request("GET", `/participant${query}`, { key: p.signup.token });
        expectStatus(signup, 200);
        expect([signup.body.data.token.id, signup.body.data.tournament.id, signup.body.data.registration])
          .toEqual([p.signup.id, p.tid, null]);
        expectNoTrace(signup, victim);
      }
      // No id in the path: a path naming the victim's registration is no route at all.
      const pathed = await request("GET", `/participant/${victim.reg}`, { key: p.token.token });
      expectStatus(pathed, 404);
      expectNoTrace(pathed, victim);
      // The victim's own token still works, and shows the victim's alone.
      const own = await request("GET", "/participant", { key: victim.ongoingToken.token });
      expectStatus(own, 200);
      expect([own.body.data.token.id, own.body.data.tournament.id, own.body.data.registration.id])
        .toEqual([victim.ongoingToken.id, victim.ongoing.id, victim.ongoingReg]);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });

    it("GET /participant/matches shows its own registration's matches in its own tournament: none of another tournament's", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const [{ team_id: team }] = await sql("select team_id from app.registrations where id = $1", [intruder.ongoingReg]);
      const own = (await sql("select id::text from app.matches where tournament_id = $1", [intruder.ongoing.id])).map((m) => m.id);
      for (const query of ["", `?${aimedAt(victim)}`]) {
        const res = await request("GET", `/participant/matches${query}`, { key: intruder.ongoingToken.token });
        expectStatus(res, 200);
        expect(res.body.data.length).toBeGreaterThan(0);
        for (const m of res.body.data) {
          expect(own).toContain(m.id);
          expect([m.team1_id, m.team2_id]).toContain(team);
        }
        expectNoTrace(res, victim);
      }
      // A token of a tournament not started sees no match, though its account's other tournament has some.
      const p = await participant(intruder);
      const none = await request("GET", `/participant/matches?tournament_id=${intruder.ongoing.id}`, { key: p.token.token });
      expectStatus(none, 200);
      expect(none.body.data).toEqual([]);
      // Nor may the organiser revoke a token under another tournament of its account than the token's.
      const call = await organiser(intruder);
      const wrong = await call("DELETE", `/tournaments/${intruder.ongoing.id}/tokens/${p.token.id}`);
      expectStatus(wrong, 404);
      expect(wrong.body.error.code).toBe("not_found");
      expectStatus(await request("GET", "/participant", { key: p.token.token }), 200);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });

    it("a sign-up makes its team, players and registration in its own tournament's account, never the victim's", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const p = await participant(intruder);
      const body = {
        team: { name: "Hijack Team", tag: "HJK" },
        lineup: [{ handle: "Twin", external_id: `${victim.name}-star`, role: "player", captain: true }],
      };
      // The body names no tournament: one that tries is refused as input.
      const aimed = await request("POST", "/participant/registrations", {
        key: p.signup.token,
        body: { ...body, tournament_id: victim.open.id },
      });
      expectStatus(aimed, 400);
      expect(aimed.body.error.code).toBe("validation_error");
      const res = await request("POST", `/participant/registrations?${aimedAt(victim)}`, { key: p.signup.token, body });
      expectStatus(res, 201);
      expectNoTrace(res, victim);
      const { registration, token } = res.body.data;
      expect([registration.tournament_id, token.tournament_id, token.registration_id]).toEqual([
        p.tid,
        p.tid,
        registration.id,
      ]);
      // The victim's external_id names the victim's player in the victim's account only: here it is a new player.
      const [entry] = registration.lineup;
      expect(entry.player_id).not.toBe(victim.player);
      expect(await accountOf("players", entry.player_id)).toBe(intruder.t.accountId);
      expect(await accountOf("teams", registration.team_id)).toBe(intruder.t.accountId);
      expect(await accountOf("registrations", registration.id)).toBe(intruder.t.accountId);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });

    it("PUT /participant/lineup: the victim's player is as one that exists nowhere; its external_id makes the token's account a player", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const p = await participant(intruder);
      const put = (players: unknown[], query = "") =>
        request("PUT", `/participant/lineup${query}`, { key: p.token.token, body: { players } });
      const res = await put([{ player_id: victim.player, role: "player" }], `?${aimedAt(victim)}`);
      expectStatus(res, 400);
      expect(res.body.error.code).toBe("validation_error");
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(["players[0].player_id"]);
      expectNoTrace(res, victim);
      const nowhere = await put([{ player_id: crypto.randomUUID(), role: "player" }]);
      expect(nowhere.body.error, nowhere.text).toEqual(res.body.error);
      const made = await put(
        [{ handle: "Twin", external_id: `${victim.name}-star`, role: "player", captain: true }],
        `?${aimedAt(victim)}`,
      );
      expectStatus(made, 200);
      expectNoTrace(made, victim);
      expect(made.body.data.id).toBe(p.reg);
      expect(made.body.data.lineup[0].player_id).not.toBe(victim.player);
      expect(await accountOf("players", made.body.data.lineup[0].player_id)).toBe(intruder.t.accountId);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });

    it("PATCH and DELETE /participant/registration act on its own registration, whatever the query or the body names", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const p = await participant(intruder);
      const aimed = await request("PATCH", "/participant/registration", {
        key: p.token.token,
        body: { checked_in: true, registration_id: victim.reg },
      });
      expectStatus(aimed, 400);
      expect(aimed.body.error.code).toBe("validation_error");
      const res = await request("PATCH", `/participant/registration?${aimedAt(victim)}`, {
        key: p.token.token,
        body: { checked_in: true },
      });
      expectStatus(res, 200);
      expectNoTrace(res, victim);
      expect(res.body.data.id).toBe(p.reg);
      expect(res.body.data.checked_in_at).not.toBeNull();
      const gone = await request("DELETE", `/participant/registration?${aimedAt(victim)}`, { key: p.token.token });
      expectStatus(gone, 200);
      expectNoTrace(gone, victim);
      expect(await sql("select id from app.registrations where id = $1", [p.reg])).toEqual([]);
      expect(await sql("select id::text from app.registrations where id = $1", [victim.reg])).toEqual([{ id: victim.reg }]);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });

    it("in api.call, a participant operation gets its token's tournament, registration and token, whatever its arguments name", async () => {
      const [intruder, victim] = pick();
      const before = await fingerprint(victim.t.accountId);
      const p = await participant(intruder);
      const call = async (op: string, body?: unknown) => {
        const args = { tournament_id: victim.open.id, registration_id: victim.reg, token_id: victim.token, ...(body ? { body } : {}) };
        const [row] = await sql<{ auth: { error: string | null }; error: unknown; result: Record<string, unknown> }>(
          "select auth, error, result from api.call($1, null, $2, $3::jsonb)",
          [hash(p.token.token), op, JSON.stringify(args)],
        );
        expect(row.auth.error, `${op}: ${JSON.stringify(row)}`).toBeNull();
        expect(row.error, `${op}: ${JSON.stringify(row)}`).toBeNull();
        for (const s of victim.secrets) expect(JSON.stringify(row.result), `${op} names ${s}`).not.toContain(s);
        return row.result;
      };
      const me = await call("participant.get") as { token: { id: string }; tournament: { id: string }; registration: { id: string } };
      expect([me.token.id, me.tournament.id, me.registration.id]).toEqual([p.token.id, p.tid, p.reg]);
      expect((await call("participant.check_in", { checked_in: true })).id).toBe(p.reg);
      await call("participant.withdraw");
      expect(await sql("select id from app.registrations where id = $1", [p.reg])).toEqual([]);
      expect(await fingerprint(victim.t.accountId), `${victimName}'s rows changed`).toBe(before);
    });
  });
});

// ---------------------------------------------------------------------------------------------
describe("in SQL, the other account's rows can be neither read nor written", () => {
  interface Outcome {
    rows: Record<string, unknown>[];
    rowCount: number | null;
    code?: string;
    message?: string;
    hint?: string;
  }

  /** A caller as PostgREST or the function would run it: one transaction, committed when it succeeds. */
  interface Caller {
    label: string;
    role: string;
    account?: () => string;
    sub?: () => string;
  }
  const CALLERS: Caller[] = [
    // The function's role: refused everything (it can execute api.call alone; tests/database/function-role.test.ts).
    { label: "tournament_api, even with app.account_id set to the other account", role: "tournament_api", account: () => y.t.accountId },
    // The role api.call runs the operations as: row-level security keeps the accounts apart.
    { label: "tournament_api_owner with no account bound", role: "tournament_api_owner" },
    { label: "tournament_api_owner bound to the other account", role: "tournament_api_owner", account: () => y.t.accountId },
    // anon and a stranger are refused everything in app by tests/database/rls.test.ts; a member of another
    // account is the case left.
    { label: "authenticated as a member of the other account", role: "authenticated", sub: () => y.member },
  ];

  async function run(caller: Caller, text: string, values: unknown[] = [], commit = true): Promise<Outcome> {
    const client = await admin().connect();
    try {
      await client.query("begin");
      await client.query(`set local role ${caller.role}`);
      if (caller.account) await client.query("select set_config('app.account_id', $1, true)", [caller.account()]);
      if (caller.sub) {
        await client.query("select set_config('request.jwt.claims', $1, true)", [
          JSON.stringify({ role: caller.role, sub: caller.sub(), aud: caller.role }),
        ]);
      }
      const r = await client.query(text, values);
      await client.query(commit ? "commit" : "rollback");
      return { rows: r.rows, rowCount: r.rowCount };
    } catch (err) {
      await client.query("rollback").catch(() => {});
      const e = err as { code: string; message: string; hint?: string };
      return { rows: [], rowCount: null, code: e.code, message: e.message, hint: e.hint };
    } finally {
      client.release();
    }
  }

  /**
   * For each private table, a select, insert, update and delete aimed at account X's rows; and, where a row
   * of one account may name another's, an insert of a row of the caller's account naming X's (a foreign key
   * may refuse it first: 23503, as for a row naming nothing).
   */
  function statements(): [string, string, unknown[], string[]?][] {
    const a = x.t.accountId;
    return [
      ["tournaments", "select * from app.tournaments where id = $1 or account_id = $2", [x.open.id, a]],
      [
        "tournaments",
        `insert into app.tournaments (account_id, name, slug, game_id, team_size, max_teams, starts_at, registration_closes)
        values ($1, 'Planted', 'planted-' || gen_random_uuid(), gen_random_uuid(), 5, 8, now() + interval '1 day', now() + interval '1 day')`,
        [a],
      ],
      ["tournaments", "update app.tournaments set name = 'Hijacked', max_teams = 2 where id = $1 or account_id = $2", [x.open.id, a]],
      ["tournaments", "delete from app.tournaments where id = $1 or account_id = $2", [x.open.id, a]],
      ["registrations", "select * from app.registrations where id = $1 or account_id = $2", [x.reg, a]],
      [
        "registrations",
        "insert into app.registrations (tournament_id, account_id, team_id, payment_status) values ($1, $2, $3, 'complete')",
        [x.open.id, a, x.spareTeam],
      ],
      ["registrations", "update app.registrations set payment_status = 'refunded' where id = $1 or account_id = $2", [x.reg, a]],
      ["registrations", "delete from app.registrations where id = $1 or account_id = $2", [x.reg, a]],
      ["matches", "select * from app.matches where id = $1 or account_id = $2", [x.ready, a]],
      ["matches", "insert into app.matches (tournament_id, account_id, round, position) values ($1, $2, 9, 9)", [x.ongoing.id, a]],
      ["matches", "update app.matches set team1_score = 99, status = 'completed' where id = $1 or account_id = $2", [x.ready, a]],
      ["matches", "delete from app.matches where id = $1 or account_id = $2", [x.ready, a]],
      ["stages", "select * from app.stages where tournament_id = $1 or account_id = $2", [x.staged.id, a]],
      ["stages", "insert into app.stages (tournament_id, account_id, number, status, team_count) values ($1, $2, 2, 'ongoing', 2)", [
        x.staged.id,
        a,
      ]],
      ["stages", "update app.stages set status = 'ongoing', completed_at = null where tournament_id = $1 or account_id = $2", [
        x.staged.id,
        a,
      ]],
      ["stages", "delete from app.stages where tournament_id = $1 or account_id = $2", [x.staged.id, a]],
      ["stage_entries", "select * from app.stage_entries where tournament_id = $1 or account_id = $2", [x.staged.id, a]],
      ["stage_entries", "insert into app.stage_entries (tournament_id, account_id, stage, team_id, seed) values ($1, $2, 2, $3, 9)", [
        x.staged.id,
        a,
        x.spareTeam,
      ]],
      ["stage_entries", "update app.stage_entries set seed = seed + 100 where tournament_id = $1 or account_id = $2", [x.staged.id, a]],
      ["stage_entries", "delete from app.stage_entries where tournament_id = $1 or account_id = $2", [x.staged.id, a]],
      ["api_keys", "select id, prefix from app.api_keys where account_id = $1", [a]],
      [
        "api_keys",
        `insert into app.api_keys (account_id, name, prefix, key_hash, scopes)
        values ($1, 'planted', 'tmk_planted', extensions.digest(gen_random_uuid()::text, 'sha256'), array['read:tournaments']::app.scope[])`,
        [a],
      ],
      ["api_keys", "update app.api_keys set revoked_at = now() where account_id = $1", [a]],
      ["api_keys", "delete from app.api_keys where account_id = $1", [a]],
      ["accounts", "select * from app.accounts where id = $1", [a]],
      ["accounts", "insert into app.accounts (id, name, api_access_enabled) values (gen_random_uuid(), 'Planted', true)", []],
      ["accounts", "update app.accounts set api_access_enabled = false, name = 'Hijacked' where id = $1", [a]],
      ["accounts", "delete from app.accounts where id = $1", [a]],
      ["idempotency_keys", "select * from app.idempotency_keys where account_id = $1", [a]],
      [
        "idempotency_keys",
        `insert into app.idempotency_keys (api_key_id, account_id, idempotency_key, request_hash, request_id, requested_at, result)
        values ($1, $2, 'planted', '\\x00', gen_random_uuid(), now(), '{"planted": true}')`,
        [x.t.keyId, a],
      ],
      ["idempotency_keys", `update app.idempotency_keys set result = '{"planted": true}' where account_id = $1`, [a]],
      ["idempotency_keys", "delete from app.idempotency_keys where account_id = $1", [a]],
      ["account_members", "select * from app.account_members where account_id = $1", [a]],
      ["account_members", "insert into app.account_members (account_id, user_id) values ($1, $2)", [a, y.member]],
      ["account_members", "update app.account_members set user_id = $2 where account_id = $1", [a, y.member]],
      ["account_members", "delete from app.account_members where account_id = $1", [a]],
      ["teams", "update app.teams set name = 'Hijacked' where id = $1", [x.spareTeam]],
      ["teams", "insert into app.teams (name, tag) values ('Planted', 'PL')", []],
      ["teams", "delete from app.teams where id = $1", [x.spareTeam]],
      ["teams", "update app.teams set name = 'Hijacked', logo_url = null where id = $1 or account_id = $2", [x.ownTeam, a]],
      ["teams", "update app.teams set account_id = null where id = $1", [x.ownTeam]],
      ["teams", "delete from app.teams where id = $1 or account_id = $2", [x.ownTeam, a]],
      ["registrations", "update app.registrations set seed = 1, checked_in_at = now() where id = $1 or account_id = $2", [x.reg, a]],
      ["rate_limits", "select * from app.rate_limits where account_id = $1", [a]],
      [
        "rate_limits",
        "insert into app.rate_limits (api_key_id, account_id, next_slot, slots) values ($1, $2, 1, array_fill(now(), array[100]))",
        [x.t.keyId, a],
      ],
      ["rate_limits", "update app.rate_limits set slots = array_fill(now(), array[100]) where account_id = $1", [a]],
      ["rate_limits", "delete from app.rate_limits where account_id = $1", [a]],
      ["webhook_endpoints", "select * from app.webhook_endpoints where id = $1 or account_id = $2", [x.webhook, a]],
      [
        "webhook_endpoints",
        "insert into app.webhook_endpoints (account_id, url, events, secret) values ($1, 'https://planted.example/', array['*'], '\\x00')",
        [a],
      ],
      [
        "webhook_endpoints",
        "update app.webhook_endpoints set url = 'https://hijacked.example/', enabled = false where id = $1 or account_id = $2",
        [x.webhook, a],
      ],
      ["webhook_endpoints", "delete from app.webhook_endpoints where id = $1 or account_id = $2", [x.webhook, a]],
      ["webhook_events", "select * from app.webhook_events where account_id = $1", [a]],
      ["webhook_events", `insert into app.webhook_events (account_id, type, payload) values ($1, 'webhook.test', '{"planted": true}')`, [
        a,
      ]],
      ["webhook_events", "delete from app.webhook_events where account_id = $1", [a]],
      ["webhook_deliveries", "select * from app.webhook_deliveries where id = $1 or account_id = $2", [x.delivery, a]],
      [
        "webhook_deliveries",
        `insert into app.webhook_deliveries (endpoint_id, account_id, event_id)
        select d.endpoint_id, d.account_id, d.event_id from app.webhook_deliveries d where d.account_id = $1`,
        [a],
      ],
      [
        "webhook_deliveries",
        "update app.webhook_deliveries set status = 'pending', next_attempt_at = now() where id = $1 or account_id = $2",
        [x.delivery, a],
      ],
      ["webhook_deliveries", "delete from app.webhook_deliveries where account_id = $1", [a]],
      // section 16: players, rosters and lineups
      ["players", "select * from app.players where id = $1 or account_id = $2", [x.player, a]],
      ["players", "select * from app.player_documents where id = $1 or account_id = $2", [x.player, a]],
      ["players", "insert into app.players (account_id, handle, external_id) values ($1, 'Planted', 'planted')", [a]],
      [
        "players",
        "update app.players set handle = 'Hijacked', external_id = null, game_accounts = '{}' where id = $1 or account_id = $2",
        [x.player, a],
      ],
      ["players", "delete from app.players where id = $1 or account_id = $2", [x.player, a]],
      ["team_members", "select * from app.team_members where team_id = $1 or player_id = $2 or account_id = $3", [x.ownTeam, x.player, a]],
      [
        "team_members",
        "insert into app.team_members (team_id, player_id, account_id, role, captain) values ($1, $2, $3, 'coach', false)",
        [x.ownTeam, x.player, a],
      ],
      [
        "team_members",
        // X's player on Y's team, as Y's row
        "insert into app.team_members (team_id, player_id, account_id, role, captain) values ($1, $2, $3, 'coach', false)",
        [y.ownTeam, x.player, y.t.accountId],
        ["42501", "23503"],
      ],
      [
        "team_members",
        // Y's player on X's team, as Y's row
        "insert into app.team_members (team_id, player_id, account_id, role, captain) values ($1, $2, $3, 'coach', false)",
        [x.ownTeam, y.player, y.t.accountId],
        ["42501", "23503"],
      ],
      [
        "team_members",
        "update app.team_members set role = 'coach', captain = false where team_id = $1 or player_id = $2 or account_id = $3",
        [x.ownTeam, x.player, a],
      ],
      ["team_members", "delete from app.team_members where team_id = $1 or player_id = $2 or account_id = $3", [x.ownTeam, x.player, a]],
      [
        "lineup_entries",
        "select * from app.lineup_entries where registration_id = $1 or player_id = $2 or account_id = $3",
        [x.reg, x.player, a],
      ],
      [
        "lineup_entries",
        `insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle)
        values ($1, $2, $3, $4, 'coach', false, 9, 'Planted')`,
        [x.reg, x.open.id, a, x.player],
      ],
      [
        "lineup_entries",
        // X's player in Y's lineup, as Y's row
        `insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle)
        values ($1, $2, $3, $4, 'coach', false, 9, 'Planted')`,
        [y.reg, y.open.id, y.t.accountId, x.player],
        ["42501", "23503"],
      ],
      [
        "lineup_entries",
        // Y's player in X's registration's lineup, as Y's row
        `insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle)
        values ($1, $2, $3, $4, 'coach', false, 9, 'Planted')`,
        [x.reg, x.open.id, y.t.accountId, y.player],
        ["42501", "23503"],
      ],
      [
        "lineup_entries",
        // ... or in Y's registration, said to be of X's tournament
        `insert into app.lineup_entries (registration_id, tournament_id, account_id, player_id, role, captain, position, handle)
        values ($1, $2, $3, $4, 'coach', false, 9, 'Planted')`,
        [y.reg, x.open.id, y.t.accountId, y.player],
        ["42501", "23503"],
      ],
      [
        "lineup_entries",
        "update app.lineup_entries set handle = 'Hijacked', country = null where registration_id = $1 or player_id = $2 or account_id = $3",
        [x.reg, x.player, a],
      ],
      ["lineup_entries", "delete from app.lineup_entries where registration_id = $1 or player_id = $2 or account_id = $3", [
        x.reg,
        x.player,
        a,
      ]],
      ["registrations", "update app.registrations set lineup_rev = lineup_rev + 1 where id = $1 or account_id = $2", [x.reg, a]],
    ];
  }

  const worldPrint = async () =>
    `${await fingerprint(x.t.accountId)}
${JSON.stringify(await sql("select * from app.teams where id = any($1::uuid[]) order by id", [[x.spareTeam, x.ownTeam]]))}
${JSON.stringify(await sql("select * from app.rate_limits where account_id = $1", [x.t.accountId]))}
${
      // rows of any account that name X's team, player, registration or tournament
      JSON.stringify(
        await sql(
          `select json_build_object(
             'team_members', (select json_agg(m order by m.team_id, m.player_id) from app.team_members m where m.team_id = $1 or m.player_id = $2),
             'lineup_entries', (select json_agg(e order by e.registration_id, e.player_id) from app.lineup_entries e
                                 where e.player_id = $2 or e.registration_id = $3 or e.tournament_id = $4)) r`,
          [x.ownTeam, x.player, x.reg, x.open.id],
        ),
      )}`;

  it("the statements reach account X's rows when its own account is bound (so the refusals below mean something)", async () => {
    const owner: Caller = { label: "owner", role: "tournament_api_owner", account: () => x.t.accountId };
    const reached: Record<string, number> = {};
    for (const [table, text, values] of statements()) {
      if (
        !/^(select|update|delete)/.test(text) ||
        ![
          "tournaments",
          "matches",
          "stages",
          "stage_entries",
          "idempotency_keys",
          "accounts",
          "registrations",
          "rate_limits",
          "webhook_endpoints",
          "webhook_deliveries",
          "players",
          "team_members",
          "lineup_entries",
        ].includes(table)
      ) continue;
      const r = await run(owner, text, values, false);
      if (!r.code) reached[`${table} ${text.split(" ")[0]}`] = r.rowCount ?? 0;
    }
    expect(reached).toMatchObject({
      "tournaments select": expect.any(Number),
      "tournaments update": expect.any(Number),
      "tournaments delete": expect.any(Number),
      "registrations select": expect.any(Number),
      "matches select": expect.any(Number),
      "matches update": expect.any(Number),
      "stages select": expect.any(Number),
      "stages update": expect.any(Number),
      "stage_entries select": expect.any(Number),
      "stage_entries update": expect.any(Number),
      "idempotency_keys select": expect.any(Number),
      "idempotency_keys delete": expect.any(Number),
      "rate_limits select": expect.any(Number),
      "rate_limits update": expect.any(Number),
      "accounts select": 1,
      "webhook_endpoints select": 1,
      "webhook_endpoints update": 1,
      "webhook_endpoints delete": 1,
      "webhook_deliveries select": expect.any(Number),
      "webhook_deliveries update": expect.any(Number),
      "players select": expect.any(Number),
      "players update": expect.any(Number),
      "players delete": expect.any(Number),
      "team_members select": 1,
      "team_members update": 1,
      "team_members delete": 1,
      "lineup_entries select": 1,
      "lineup_entries update": 1,
      "lineup_entries delete": 1,
    });
    for (const [k, n] of Object.entries(reached)) expect(n, k).toBeGreaterThan(0);
  });

  it.each(CALLERS.map((c) => [c.label, c] as const))(
    "%s: every statement is refused or touches nothing, and nothing changes",
    async (_l, caller) => {
      const before = await worldPrint();
      for (const [, text, values, codes] of statements()) {
        const r = await run(caller, text, values);
        const what = `${caller.label}: ${text.replace(/\s+/g, " ")} ${JSON.stringify(values)} → ${r.code ?? `${r.rowCount} rows`} ${
          r.message ?? ""
        }`;
        if (r.code || codes) {
          // refused: no privilege, or a row-level security check on the new row (or a foreign key, where it names another account's)
          expect(codes ?? ["42501"], what).toContain(r.code);
        } else {
          expect(r.rows, what).toEqual([]);
          expect(r.rowCount, what).toBe(0);
        }
      }
      expect(await worldPrint()).toBe(before);
    },
  );

  it.each(CALLERS.filter((c) => c.role === "tournament_api_owner").map((c) => [c.label, c] as const))(
    "%s: the operation functions answer not_found for account X's ids and change nothing",
    async (_l, caller) => {
      const before = await worldPrint();
      const calls: [string, unknown][] = [
        ["app.get_tournament", { id: x.open.id }],
        ["app.update_tournament", { id: x.open.id, body: { name: "Hijacked" } }],
        ["app.update_tournament", { id: x.ongoing.id, body: { status: "completed" } }],
        ["app.delete_tournament", { id: x.open.id }],
        ["app.list_registrations", { tournament_id: x.open.id, query: {} }],
        ["app.get_registration", { tournament_id: x.open.id, registration_id: x.reg }],
        ["app.create_registration", { tournament_id: x.open.id, body: { team_id: x.spareTeam } }],
        ["app.report_match", { tournament_id: x.ongoing.id, match_id: x.ready, body: { team1_score: 0, team2_score: 9 } }],
        ["app.change_game", { tournament_id: x.ongoing.id, match_id: x.ready, number: 1, body: { team1_score: 0, team2_score: 9 } }],
        ["app.change_game", { tournament_id: x.ongoing.id, match_id: x.ready, number: 1 }],
        ["app.tournament_results", { tournament_id: x.ongoing.id }],
        ["app.tournament_results", { tournament_id: x.staged.id, query: { stage: 1 } }],
        ["app.list_stages", { tournament_id: x.staged.id }],
        ["app.get_stage", { tournament_id: x.staged.id, number: STAGE }],
        ["app.update_stage", { tournament_id: x.staged.id, number: STAGE, body: { status: "ongoing" } }],
        ["app.update_registration", { tournament_id: x.open.id, registration_id: x.reg, body: { seed: 1 } }],
        ["app.delete_registration", { tournament_id: x.open.id, registration_id: x.reg }],
        ["app.get_webhook", { webhook_id: x.webhook }],
        ["app.update_webhook", { webhook_id: x.webhook, body: { enabled: false } }],
        ["app.delete_webhook", { webhook_id: x.webhook }],
        ["app.rotate_webhook_secret", { webhook_id: x.webhook, secret: "AQ==" }],
        ["app.test_webhook", { webhook_id: x.webhook }],
        ["app.list_webhook_deliveries", { webhook_id: x.webhook, query: {} }],
        ["app.retry_webhook_delivery", { webhook_id: x.webhook, delivery_id: x.delivery }],
        ["app.get_player", { player_id: x.player }],
        ["app.update_player", { player_id: x.player, body: { handle: "Hijacked", external_id: null } }],
        ["app.delete_player", { player_id: x.player }],
        // section 17: X's participant tokens, and the participant operations given X's ids
        ["app.list_participant_tokens", { tournament_id: x.open.id }],
        ["app.create_registration_token", { tournament_id: x.open.id, registration_id: x.reg, body: {} }],
        ["app.create_signup_token", { tournament_id: x.open.id, body: {} }],
        ["app.revoke_participant_token", { tournament_id: x.open.id, token_id: x.token }],
        ["app.participant_lineup", { tournament_id: x.open.id, registration_id: x.reg, token_id: x.token, body: { players: [] } }],
        ["app.participant_signup", {
          tournament_id: x.open.id,
          registration_id: null,
          token_id: x.token,
          body: { team: { name: "Planted", tag: "PL" } },
        }],
        ["app.put_lineup", { tournament_id: x.open.id, registration_id: x.reg, body: { players: [] } }],
        ["app.put_lineup", {
          tournament_id: x.open.id,
          registration_id: x.reg,
          body: { players: [{ player_id: x.player, role: "coach", captain: false }] },
        }],
        [
          "app.change_game",
          {
            tournament_id: x.ongoing.id,
            match_id: x.ready,
            number: 1,
            body: { team1_score: 0, team2_score: 9, lineups: { team1: [x.player], team2: [] } },
          },
        ],
      ];
      for (const [fn, args] of calls) {
        const r = await run(caller, `select ${fn}($1::jsonb) r`, [JSON.stringify(args)]);
        expect(r.code, `${fn}: ${r.message}`).toBe("P0001");
        expect(r.message, fn).toMatch(/not found/i);
      }
      // X's team is no secret, but only X may change or delete it (with no account bound the
      // team may not even be visible: not_found is a refusal too).
      for (
        const [fn, args] of [
          ["app.update_team", { team_id: x.ownTeam, body: { name: "Hijacked" } }],
          ["app.delete_team", { team_id: x.ownTeam }],
          // its roster is X's too, whichever player is named
          ["app.list_roster", { team_id: x.ownTeam }],
          ["app.put_roster_member", { team_id: x.ownTeam, player_id: x.player, body: { role: "coach", captain: false } }],
          ["app.delete_roster_member", { team_id: x.ownTeam, player_id: x.player }],
          ...(caller.account
            ? [
              ["app.put_roster_member", { team_id: x.ownTeam, player_id: y.player, body: { role: "coach", captain: true } }],
              ["app.delete_roster_member", { team_id: x.ownTeam, player_id: y.player }],
            ] as const
            : []),
        ] as const
      ) {
        const r = await run(caller, `select ${fn}($1::jsonb) r`, [JSON.stringify(args)]);
        expect(r.code, `${fn}: ${r.message}`).toBe("P0001");
        expect(caller.account ? ["team_not_owned"] : ["team_not_owned", "not_found"], `${fn}: ${r.message}`).toContain(r.hint);
      }
      if (caller.account) {
        // X's player on the caller's own team, or in its own lineup: as a player that exists nowhere.
        for (const player_id of [x.player, crypto.randomUUID()]) {
          const put = await run(caller, "select app.put_roster_member($1::jsonb) r", [
            JSON.stringify({ team_id: y.ownTeam, player_id, body: { role: "coach", captain: false } }),
          ]);
          expect([put.code, put.hint, put.message], put.message).toEqual(["P0001", "not_found", "Player not found."]);
          const lineup = await run(caller, "select app.put_lineup($1::jsonb) r", [
            JSON.stringify({ tournament_id: y.open.id, registration_id: y.reg, body: { players: [{ player_id, role: "coach" }] } }),
          ]);
          expect([lineup.code, lineup.hint], lineup.message).toEqual(["P0001", "validation_error"]);
        }
      }
      const players = await run(caller, "select app.list_players($1::jsonb) r", [
        JSON.stringify({ query: { search: x.name, external_id: `${x.name}-star` } }),
      ]);
      expect(players.code, players.message).toBeUndefined();
      expect(players.rows[0].r).toMatchObject({ data: [], pagination: { total: 0 } });
      const everyPlayer = await run(caller, "select app.list_players('{}'::jsonb) r");
      for (const secret of x.secrets) expect(JSON.stringify(everyPlayer.rows[0].r)).not.toContain(secret);
      const hooks = await run(caller, "select app.list_webhooks('{}'::jsonb) r");
      expect(hooks.code, hooks.message).toBeUndefined();
      for (const secret of x.secrets) expect(JSON.stringify(hooks.rows[0].r)).not.toContain(secret);
      // The participant reads, given X's tournament, registration and token: nothing of X.
      for (const fn of ["app.participant_me", "app.participant_matches"]) {
        const read = await run(caller, `select ${fn}($1::jsonb) r`, [
          JSON.stringify({ tournament_id: x.ongoing.id, registration_id: x.ongoingReg, token_id: x.ongoingToken.id }),
        ]);
        if (read.code) expect(read.code, `${fn}: ${read.message}`).toBe("P0001");
        for (const secret of x.secrets) expect(JSON.stringify(read.rows[0]?.r ?? null), fn).not.toContain(secret);
      }
      const list = await run(caller, "select app.list_tournaments('{}'::jsonb) r");
      expect(list.code, list.message).toBeUndefined();
      const listed = JSON.stringify(list.rows[0].r);
      for (const s of x.secrets) expect(listed).not.toContain(s);
      const own = caller.account
        ? (await sql("select count(*)::int n from app.tournaments where account_id = $1", [caller.account()]))[0].n
        : 0;
      expect((list.rows[0].r as { pagination: { total: number } }).pagination.total).toBe(own);
      // X's saved responses cannot be replayed (or cleared) from another account.
      const [saved] = await sql(
        "select api_key_id, idempotency_key, encode(request_hash, 'hex') h from app.idempotency_keys where account_id = $1 limit 1",
        [x.t.accountId],
      );
      const begin = await run(caller, "select conflict, replay from app.idempotency_begin($1, $2::jsonb)", [
        saved.api_key_id,
        JSON.stringify({ key: saved.idempotency_key, hash: saved.h }),
      ]);
      expect(begin.code, begin.message).toBeUndefined();
      expect(begin.rows).toEqual([{ conflict: null, replay: null }]);
      expect(await worldPrint()).toBe(before);
    },
  );
});

// ---------------------------------------------------------------------------------------------
describe("keys and participant tokens never appear in plaintext", () => {
  const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const used: string[] = [];
  const responses: ApiResponse[] = [];
  /** The answers that show a participant token's plaintext, the one time it is shown (section 17). */
  const tokenMinted: ApiResponse[] = [];

  /** A well-formed key that no account holds. */
  function unknownKey(): string {
    let body = "tmk_";
    for (const b of crypto.getRandomValues(new Uint8Array(43))) body += ALPHABET[b % 62];
    return body + base62(crc32(new TextEncoder().encode(body)), 6);
  }

  beforeAll(async () => {
    // pg_stat_statements is preloaded by the local stack; created here so that its query texts
    // cover the requests below.
    await sql("create extension if not exists pg_stat_statements with schema extensions");
    const owner = await tenant();
    const accountId = owner.accountId;
    const all = { id: owner.keyId, key: owner.key };
    const narrow = await createKey(accountId, ["read:results"]);
    const revoked = await createKey(accountId);
    await sql("select admin.revoke_api_key($1)", [revoked.id]);
    const expired = await createKey(accountId, ALL_SCOPES, new Date(Date.now() + 60_000));
    await sql("update app.api_keys set expires_at = now() - interval '1 second' where id = $1", [expired.id]);
    const disabled = await createKey(await createAccount(false, "Key Hygiene Off"));
    // A key a member makes for themselves, through the RPC supabase-js would call.
    const [{ id: user }] = await sql(
      "insert into auth.users (id, email) values (gen_random_uuid(), gen_random_uuid() || '@example.com') returning id",
    );
    await sql("select admin.add_account_member($1, $2)", [accountId, user]);
    const client = await admin().connect();
    let memberKey: string;
    try {
      await client.query("begin");
      await client.query("set local role authenticated");
      await client.query("select set_config('request.jwt.claims', $1, true)", [JSON.stringify({ role: "authenticated", sub: user })]);
      ({ rows: [{ key: memberKey }] } = await client.query(
        "select key from public.create_account_api_key(p_account_id => $1, p_name => 'member', p_scopes => $2)",
        [accountId, ALL_SCOPES],
      ));
      await client.query("commit");
    } finally {
      client.release();
    }
    const flip = (k: string) => k.slice(0, -3) + (k.at(-3) === "A" ? "B" : "A") + k.slice(-2);
    const unknown = unknownKey();
    used.push(all.key, narrow.key, revoked.key, expired.key, disabled.key, memberKey!, unknown, x.t.key, y.t.key);

    const t = await createTournament(owner, { name: "Key Hygiene Cup" });
    const body = baseBody(x.game);
    const sends: [string, string, Parameters<typeof request>[2]][] = [
      ["GET", "/tournaments", { key: all.key }],
      ["GET", "/tournaments", { key: memberKey! }],
      ["POST", "/tournaments", { key: all.key, body, headers: { "idempotency-key": "hygiene-1" } }],
      ["POST", "/tournaments", { key: all.key, body, headers: { "idempotency-key": "hygiene-1" } }], // replay
      ["POST", "/tournaments", { key: all.key, body: { ...body, name: "Other" }, headers: { "idempotency-key": "hygiene-1" } }], // 422
      ["POST", `/tournaments/${t.id}/registrations`, {
        key: all.key,
        body: { team_id: crypto.randomUUID() },
        headers: { "idempotency-key": "hygiene-2" },
      }], // saved 404
      ["POST", "/tournaments", { key: all.key, body: { api_key: all.key } }], // 400, the key in the body
      ["GET", `/tournaments?api_key=${all.key}`, { key: all.key }], // the key in the query string
      ["GET", `/tournaments/${all.key}`, { key: all.key }], // the key as an id: 404
      ["GET", `/nope/${all.key}`, {}],
      ["POST", "/tournaments", { key: narrow.key, body }], // 403 scope
      ["GET", "/tournaments", { key: revoked.key }],
      ["GET", "/tournaments", { key: expired.key }],
      ["GET", "/tournaments", { key: disabled.key }], // 403 api_access_disabled
      ["GET", "/tournaments", { key: unknown }],
      ["GET", "/tournaments", { key: flip(all.key) }],
      ["GET", "/tournaments", { key: flip(memberKey!) }],
      ["GET", "/tournaments", { headers: { authorization: `Basic ${Buffer.from(`${all.key}:`).toString("base64")}` } }],
      ["GET", "/tournaments", { headers: { authorization: `Token ${all.key}` } }],
      ["GET", "/tournaments", { headers: { authorization: `Bearer ${all.key} ${all.key}` } }],
      ["GET", "/tournaments", { headers: { authorization: `Bearer ${all.key.slice(0, -1)}` } }],
      ["PATCH", `/tournaments/${t.id}`, {
        key: all.key,
        rawBody: `{"name": "${all.key}"`,
        headers: { "content-type": "application/json" },
      }], // invalid JSON
      ["PATCH", `/tournaments/${t.id}`, { key: all.key, body: { status: "completed" } }], // 409
    ];
    for (const [method, path, options] of sends) responses.push(await request(method, path, options));
    expect(responses.map((r) => r.status)).toEqual([
      200,
      200,
      201,
      201,
      422,
      404,
      400,
      200,
      404,
      404,
      403,
      401,
      401,
      403,
      401,
      401,
      401,
      401,
      401,
      401,
      401,
      400,
      409,
    ]);

    // Participant tokens (section 17), every way one is used or refused: the ones the organiser mints, the one a
    // sign-up answers (and its replay, which answers another), a revoked one, one on an organiser route.
    const [team] = await createTeams(1, "Key Hygiene Entrant");
    const reg = await request("POST", `/tournaments/${t.id}/registrations`, { key: all.key, body: { team_id: team } });
    expectStatus(reg, 201);
    const minted = await request("POST", `/tournaments/${t.id}/registrations/${reg.body.data.id}/tokens`, { key: all.key, body: {} });
    const signupToken = await request("POST", `/tournaments/${t.id}/signup-tokens`, { key: all.key, body: { max_uses: 3 } });
    const revokedToken = await request("POST", `/tournaments/${t.id}/registrations/${reg.body.data.id}/tokens`, { key: all.key, body: {} });
    for (const res of [minted, signupToken, revokedToken]) expectStatus(res, 201);
    const token: string = minted.body.data.token;
    const signup: string = signupToken.body.data.token;
    expectStatus(await request("DELETE", `/tournaments/${t.id}/tokens/${revokedToken.body.data.id}`, { key: all.key }), 200);
    const signUpBody = { team: { name: "Hygiene Signed", tag: "HYG" }, lineup: [{ handle: "hygienic", role: "player" }] };
    const tokenSends: [string, string, Parameters<typeof request>[2]][] = [
      ["GET", "/participant", { key: token }],
      ["PATCH", "/participant/registration", { key: token, body: { checked_in: false } }],
      ["GET", "/tournaments", { key: token }], // a token on an organiser route: 401
      ["GET", "/participant", { key: all.key }], // a key on a participant route: 401
      ["GET", "/participant", { key: flip(token) }],
      ["GET", "/participant", { key: revokedToken.body.data.token }],
      ["GET", `/participant?token=${token}`, { key: token }], // the token in the query string
      ["PUT", "/participant/lineup", { key: token, body: { players: [{ handle: token, role: "player" }] } }], // 400: a 58-character handle
      ["POST", "/participant/registrations", { key: signup, body: signUpBody, headers: { "idempotency-key": "hygiene-signup" } }],
      ["POST", "/participant/registrations", { key: signup, body: signUpBody, headers: { "idempotency-key": "hygiene-signup" } }], // replay
      ["POST", "/participant/registrations", { key: token, body: signUpBody }], // 403 scope
    ];
    const tokenResponses: ApiResponse[] = [];
    for (const [method, path, options] of tokenSends) tokenResponses.push(await request(method, path, options));
    expect(tokenResponses.map((r) => r.status)).toEqual([200, 200, 401, 401, 401, 401, 200, 400, 201, 201, 403]);
    const signedUp = tokenResponses.filter((r) => r.status === 201).map((r) => r.body.data.token.token as string);
    expect(signedUp[0]).not.toBe(signedUp[1]); // a replay answers another token: no token's secret is kept
    used.push(token, signup, revokedToken.body.data.token, ...signedUp);
    responses.push(...tokenResponses);
    tokenMinted.push(minted, signupToken, revokedToken, ...tokenResponses.filter((r) => r.status === 201));
  }, 60_000);

  /** The key itself and its secret part (everything past the visible 12-character prefix). */
  const forms = (key: string) => [key, key.slice(12), key.slice(4, -6)];

  it("no response carries a key, nor a participant token but the one it mints", () => {
    for (const res of responses) expect(res.text).not.toMatch(/tmk_[0-9A-Za-z]{20,}/);
    for (const res of responses) {
      if (!tokenMinted.includes(res)) expect(res.text).not.toMatch(/tpt_[0-9A-Za-z]{20,}/);
    }
    for (const res of tokenMinted) expect(res.text.match(/tpt_[0-9A-Za-z]{20,}/g)).toHaveLength(1);
  });

  it("the function's log holds no key", async () => {
    await new Promise((r) => setTimeout(r, 300));
    const log = fs.readFileSync(inject("logFile"), "utf8");
    const ids = responses.map((r) => r.headers.get("x-request-id"));
    for (const id of ids) expect(log, `a log line for ${id}`).toContain(id!);
    for (const key of used) for (const form of forms(key)) expect(log.includes(form), `${form.slice(0, 16)}… in the log`).toBe(false);
    expect(log).not.toMatch(/tmk_[0-9A-Za-z]{20,}/);
    expect(log).not.toMatch(/tpt_[0-9A-Za-z]{20,}/);
  });

  it("no table in app, auth or public holds a key, as text or as bytes", async () => {
    const tables = await sql<{ t: string }>(
      `select format('%I.%I', table_schema, table_name) t from information_schema.tables
        where table_schema in ('app', 'auth', 'public') and table_type = 'BASE TABLE' order by 1`,
    );
    expect(tables.map((r) => r.t)).toEqual(
      expect.arrayContaining(["app.api_keys", "app.idempotency_keys", "app.tournaments", "auth.users"]),
    );
    const byteColumns = await sql<{ t: string; c: string }>(
      `select format('%I.%I', table_schema, table_name) t, quote_ident(column_name) c from information_schema.columns
        where table_schema in ('app', 'auth', 'public') and data_type = 'bytea'`,
    );
    // Every form of every key at once, one scan per table (one query per key and form outgrew the test's time).
    const all = used.flatMap((key) => forms(key));
    const needles = [...all, ...all.map((form) => Buffer.from(form).toString("hex"))];
    for (const { t } of tables) {
      const found = await sql<{ f: string }>(
        `select f from unnest($1::text[]) f where exists (select from ${t} r where strpos(r::text, f) > 0)`,
        [needles],
      );
      expect(found.map((r) => `${r.f.slice(0, 16)}…`), `in ${t}`).toEqual([]);
    }
    for (const { t, c } of byteColumns) {
      const found = await sql<{ f: string }>(
        `select f from unnest($1::text[]) f where exists (select from ${t} where position(convert_to(f, 'UTF8') in ${c}) > 0)`,
        [all],
      );
      expect(found.map((r) => `${r.f.slice(0, 16)}…`), `in ${t}.${c}`).toEqual([]);
    }
    for (const key of used) {
      // What is stored is the hash, and the prefix (used keys only: the refused ones are stored nowhere).
      const [{ n }] = await sql("select count(*)::int n from app.api_keys where key_hash = $1", [
        createHash("sha256").update(key).digest(),
      ]);
      expect(n).toBeLessThanOrEqual(1);
    }
  }, 120_000); // a scan of every table for every form of every key: it grows with what the suite wrote (no timing rule)

  // Section 17: "only its SHA-256 is stored". A sign-up's answer is kept for its Idempotency-Key without the new
  // token's secret (a replay mints another); the organiser's mints were kept as they were answered, the plaintext
  // token in app.idempotency_keys.result (and a replay showed it again): fixed, these keep it from coming back.
  it.each(
    [
      ["a registration token", "registration"],
      ["a sign-up token", "signup"],
    ] as const,
  )("keeps no plaintext of %s the organiser mints with an Idempotency-Key", async (_kind, kind) => {
    const owner = await tenant();
    const t = await createTournament(owner, { name: "Kept Token Cup" });
    const [team] = await createTeams(1, "Kept Token Entrant");
    const reg = await owner.request("POST", `/tournaments/${t.id}/registrations`, { body: { team_id: team } });
    expectStatus(reg, 201);
    const path = kind === "registration"
      ? `/tournaments/${t.id}/registrations/${reg.body.data.id}/tokens`
      : `/tournaments/${t.id}/signup-tokens`;
    const minted = await owner.request("POST", path, { body: {}, headers: { "idempotency-key": `kept-${kind}` } });
    expectStatus(minted, 201);
    const token: string = minted.body.data.token;
    for (const form of forms(token)) {
      const [{ n }] = await sql("select count(*)::int n from app.idempotency_keys i where i.account_id = $1 and strpos(i::text, $2) > 0", [
        owner.accountId,
        form,
      ]);
      expect(n, `${form.slice(0, 16)}… in app.idempotency_keys`).toBe(0);
    }
  });

  it("pg_stat_statements holds no key in its query texts", async () => {
    const rows = await sql<{ query: string }>("select query from extensions.pg_stat_statements");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.query.includes("api.call"))).toBe(true); // the function's statements are there
    for (const { query } of rows) {
      expect(query).not.toMatch(/(tmk|tpt)_[0-9A-Za-z]{20,}/);
      for (const key of used) for (const form of forms(key)) expect(query.includes(form)).toBe(false);
    }
  });
});
