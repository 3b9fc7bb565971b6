// Participant tokens' boundaries (contract section 17): either kind of credential is refused on
// the other's routes with the answer an unknown key gets, in the function (by the prefix) and in
// the database (api.call); scopes; revocation, expiry and withdrawal with no oracle; each token's
// own exact rate limit; the actor of the events a token's requests cause.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { routes } from "../../functions/api/routes.ts";
import { isWellFormedKey } from "../../functions/api/keys.ts";
import { createTeams, expectError, expectStatus, request, setRateHits, sql, tenant, tournamentBody } from "../support/helpers.ts";

type Tenant = Awaited<ReturnType<typeof tenant>>;
const RANDOM_ID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

/** A tournament with one registration and a registration token for it (default scopes unless given). */
async function registered(t: Tenant, fields: Record<string, unknown> = {}, scopes?: string[]) {
  const tour = (await t.request("POST", "/tournaments", { body: tournamentBody(fields) })).body.data;
  const [team] = await createTeams(1, "Token");
  const reg = await t.request("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } });
  expectStatus(reg, 201);
  const minted = await t.request("POST", `/tournaments/${tour.id}/registrations/${reg.body.data.id}/tokens`, {
    body: scopes ? { scopes } : {},
  });
  expectStatus(minted, 201);
  return { tour, reg: reg.body.data, token: minted.body.data };
}

/** The path of a route with every parameter filled in. */
const pathOf = (path: string) => path.replace(/\{number\}/g, "1").replace(/\{\w+\}/g, RANDOM_ID);

/** The parts of an answer that must not tell one refusal from another. */
const refusal = (res: { status: number; body: { error?: { code: string; message: string } }; headers: Headers }) => ({
  status: res.status,
  code: res.body.error?.code,
  message: res.body.error?.message,
  authenticate: res.headers.get("www-authenticate"),
});

describe("either kind of credential on the other's routes", () => {
  it("every organiser route answers a participant token as it answers an unknown key (401), and the token is not charged", async () => {
    const t = await tenant();
    const { token } = await registered(t);
    const organiser = routes.filter((r) => !r.participant);
    expect(organiser.length).toBeGreaterThan(30);
    for (const route of organiser) {
      const path = pathOf(route.path);
      const body = route.body ? {} : undefined;
      const withToken = await request(route.method, path, { key: token.token, body });
      const unknown = await request(route.method, path, { key: `tmk_${"A".repeat(49)}`, body });
      expect(refusal(withToken), `${route.method} ${route.path}`).toEqual(refusal(unknown));
      expect(withToken.status, `${route.method} ${route.path}`).toBe(401);
      expect(withToken.headers.get("ratelimit-limit")).toBeNull();
    }
    const [{ n }] = await sql<{ n: number }>(
      "select count(*)::int as n from app.rate_limits r, unnest(r.slots) s where r.api_key_id = $1 and s > now() - interval '1 minute'",
      [token.id],
    );
    expect(n).toBe(0);
  });

  it("every participant route answers an organiser key (and a made-up token) with 401, and the key is not charged", async () => {
    const t = await tenant();
    const participant = routes.filter((r) => r.participant);
    expect(participant.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      "DELETE /participant/registration",
      "GET /participant",
      "GET /participant/matches",
      "PATCH /participant/registration",
      "POST /participant/matches/{match_id}/report",
      "POST /participant/matches/{match_id}/report/confirm",
      "POST /participant/matches/{match_id}/report/dispute",
      "POST /participant/registrations",
      "PUT /participant/lineup",
    ]);
    for (const route of participant) {
      const body = route.body ? {} : undefined;
      const withKey = await request(route.method, route.path, { key: t.key, body });
      const madeUp = await request(route.method, route.path, { key: `tpt_${"A".repeat(49)}`, body });
      const none = await request(route.method, route.path, { body });
      expect(withKey.status, `${route.method} ${route.path}`).toBe(401);
      expect(refusal(withKey)).toEqual(refusal(madeUp));
      expect(refusal(withKey)).toEqual(refusal(none));
    }
    const me = await t.request("GET", "/me");
    expect(me.body.data.rate_limit.remaining).toBe(99); // only this GET /me counted
  });

  it("the database refuses each kind on the other's operations too, before counting (api.call, whatever the function does)", async () => {
    const t = await tenant();
    const { token } = await registered(t);
    const hash = (s: string) => createHash("sha256").update(s).digest();
    const call = async (key: string, op: string) =>
      (await sql<{ auth: { error: string | null } }>("select auth from api.call($1, null, $2, '{}')", [hash(key), op]))[0].auth;
    expect((await call(token.token, "me")).error).toBe("unauthorized");
    expect((await call(token.token, "tournaments.list")).error).toBe("unauthorized");
    expect((await call(t.key, "participant.get")).error).toBe("unauthorized");
    expect((await call(token.token, "participant.get")).error).toBeNull();
  });
});

describe("a token's scopes, revocation, expiry and withdrawal", () => {
  it("a token without the route's scope is 403 insufficient_scope naming it, counted; GET /participant needs none", async () => {
    const t = await tenant();
    const { token } = await registered(t, {}, ["participant:lineup"]);
    expect(token.scopes).toEqual(["participant:lineup"]);
    const res = await request("PATCH", "/participant/registration", { key: token.token, body: { checked_in: true } });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("participant:check_in");
    expect(res.headers.get("ratelimit-remaining")).toBe("99");
    expectError(await request("DELETE", "/participant/registration", { key: token.token }), 403, "insufficient_scope");
    expectError(
      await request("POST", "/participant/registrations", { key: token.token, body: { team: { name: "X", tag: "X" } } }),
      403,
      "insufficient_scope",
    );
    expectStatus(await request("GET", "/participant", { key: token.token }), 200);
  });

  it("revoked, expired and withdrawn tokens get the unknown token's answer, and the list keeps only live ones", async () => {
    const t = await tenant();
    const { tour, reg, token } = await registered(t);
    const second = (await t.request("POST", `/tournaments/${tour.id}/registrations/${reg.id}/tokens`, {
      body: { name: "Short-lived", expires_at: new Date(Date.now() + 1500).toISOString() },
    })).body.data;
    expect(second.name).toBe("Short-lived");
    const unknown = refusal(await request("GET", "/participant", { key: `tpt_${"B".repeat(49)}` }));
    expectStatus(await request("GET", "/participant", { key: second.token }), 200);

    expectStatus(await t.request("DELETE", `/tournaments/${tour.id}/tokens/${token.id}`), 200);
    expect(refusal(await request("GET", "/participant", { key: token.token }))).toEqual(unknown);
    expectError(await t.request("DELETE", `/tournaments/${tour.id}/tokens/${token.id}`), 404, "not_found");

    await new Promise((r) => setTimeout(r, 1600));
    expect(refusal(await request("GET", "/participant", { key: second.token }))).toEqual(unknown);

    const third = (await t.request("POST", `/tournaments/${tour.id}/registrations/${reg.id}/tokens`, { body: {} })).body.data;
    expectStatus(await request("DELETE", "/participant/registration", { key: third.token }), 200);
    expect(refusal(await request("GET", "/participant", { key: third.token }))).toEqual(unknown);
    const list = await t.request("GET", `/tournaments/${tour.id}/tokens`);
    expect(list.body.data.map((k: { id: string }) => k.id)).not.toContain(third.id);
  });

  it("mints well-formed tpt_ tokens shown once; the list never shows a secret; another account's tournament is 404", async () => {
    const t = await tenant();
    const { tour, token } = await registered(t);
    expect(isWellFormedKey(token.token, "tpt_")).toBe(true);
    expect(isWellFormedKey(token.token)).toBe(false); // not an API key
    const signup = await t.request("POST", `/tournaments/${tour.id}/signup-tokens`, { body: { max_uses: 2 } });
    expectStatus(signup, 201);
    expect(signup.body.data).toMatchObject({ scopes: ["participant:register"], uses: 0, max_uses: 2, registration_id: null });
    const list = await t.request("GET", `/tournaments/${tour.id}/tokens`);
    expect(list.text).not.toContain(token.token.slice(12));
    expect(list.text).not.toContain(signup.body.data.token.slice(12));
    expect(list.body.data.map((k: { kind: string }) => k.kind).sort()).toEqual(["registration", "signup"]);

    const other = await tenant();
    expectError(await other.request("GET", `/tournaments/${tour.id}/tokens`), 404, "not_found");
    expectError(await other.request("POST", `/tournaments/${tour.id}/signup-tokens`, { body: {} }), 404, "not_found");
    expectError(await other.request("DELETE", `/tournaments/${tour.id}/tokens/${token.id}`), 404, "not_found");
    expectError(
      await t.request("POST", `/tournaments/${tour.id}/registrations/${RANDOM_ID}/tokens`, { body: {} }),
      404,
      "not_found",
    );
    expectError(
      await t.request("POST", `/tournaments/${tour.id}/signup-tokens`, { body: { expires_at: "2020-01-01T00:00:00Z" } }),
      400,
      "validation_error",
      ["expires_at"],
    );
    expectError(
      await t.request("POST", `/tournaments/${tour.id}/registrations/${RANDOM_ID}/tokens`, {
        body: { scopes: ["participant:register"] },
      }),
      400,
      "validation_error",
      ["scopes[0]"],
    );
    // the tournament's deletion takes its tokens with it
    expectStatus(await t.request("DELETE", `/tournaments/${tour.id}`), 200);
    expectError(await request("GET", "/participant", { key: token.token }), 401, "unauthorized");
    const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.api_keys where tournament_id = $1", [tour.id]);
    expect(n).toBe(0);
  });
});

describe("a token's own rate limit", () => {
  it("is exact: with 98 of 100 used, 5 parallel requests give 2 answers and 3 429s; the organiser's key is not charged", async () => {
    const t = await tenant();
    const { token } = await registered(t);
    const before = (await t.request("GET", "/me")).body.data.rate_limit.remaining;
    await setRateHits(token.id, Array(98).fill(5));
    const answers = await Promise.all(Array.from({ length: 5 }, () => request("GET", "/participant", { key: token.token })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    for (const a of answers) {
      expect(a.headers.get("ratelimit-limit")).toBe("100");
      expect(a.headers.get("ratelimit-policy")).toBe('"default";q=100;w=60');
    }
    expect(answers.find((a) => a.status === 429)!.headers.get("retry-after")).toMatch(/^\d+$/);
    const me = await t.request("GET", "/me");
    expect(me.body.data.rate_limit.remaining).toBe(before - 1); // this GET /me only
  });
});

describe("the actor of events", () => {
  it("an event a token's request caused names the token; the organiser's, the key", async () => {
    const t = await tenant();
    const hook = await t.request("POST", "/webhooks", { body: { url: "https://example.com/hook", events: ["registration.updated"] } });
    expectStatus(hook, 201);
    const { tour, reg, token } = await registered(t);
    expectStatus(await request("PATCH", "/participant/registration", { key: token.token, body: { checked_in: true } }), 200);
    expectStatus(await t.request("PATCH", `/tournaments/${tour.id}/registrations/${reg.id}`, { body: { seed: 3 } }), 200);
    const events = await sql<{ payload: string }>(
      "select payload from app.webhook_events where tournament_id = $1 order by created_at",
      [tour.id],
    );
    const payloads = events.map((e) => JSON.parse(e.payload));
    expect(payloads.map((p) => p.actor)).toEqual([{ type: "participant", id: token.id }, { type: "key", id: t.keyId }]);
    expect(payloads[0].data.checked_in_at).not.toBeNull();
  });
});
