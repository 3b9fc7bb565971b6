// Contract section 3: tournaments (create, read, list, update, delete) against the real function
// and a real Postgres. Every test seeds its own account, so tests never share data.
import { describe, expect, it } from "vitest";
import {
  apiUrl,
  createTeams,
  createTournament,
  expectError,
  expectStatus,
  roundRobinOptions,
  sql,
  swissOptions,
  type Tenant,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

const FIELDS = [
  "approval",
  "check_in_opens",
  "created_at",
  "format_options",
  "description",
  "entry_fee",
  "format",
  "game_id",
  "id",
  "lineups",
  "max_teams",
  "name",
  "participant_reporting",
  "prize_pool",
  "registration_closes",
  "report_confirm_minutes",
  "rules",
  "slug",
  "stages",
  "starts_at",
  "status",
  "substitutes_max",
  "team_size",
  "updated_at",
  "version",
  "visibility",
  "waitlist",
].sort();
const ISO_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUFFIX = "[a-z0-9]{6}";
const OTHER_GAME = "0e0b7a3c-9d1f-4b6a-8c2e-5f4d3c2b1a09";

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

/** Asserts an error envelope with the status and code, and (optionally) details naming `fields`. */

/** Registers `count` fresh teams directly in SQL (as the operator). */
async function registerTeams(t: Tenant, tournamentId: string, count: number, prefix = "Reg"): Promise<string[]> {
  const teams = await createTeams(count, prefix);
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, n) order by n`,
    [tournamentId, t.accountId, teams],
  );
  return teams;
}

/** A tournament moved to `ongoing` through the API (two registrations, then the status change). */
async function ongoingTournament(t: Tenant, overrides: Record<string, unknown> = {}) {
  const created = await createTournament(t, overrides);
  await registerTeams(t, created.id, 2);
  const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } });
  expectStatus(res, 200);
  return res.body.data;
}

/** A tournament moved to `completed` through the API (its final reported, then the status change). */
async function completedTournament(t: Tenant, overrides: Record<string, unknown> = {}) {
  const ongoing = await ongoingTournament(t, overrides);
  const [final] = await sql<{ id: string }>(
    "select id from app.matches where tournament_id = $1 and next_match_id is null",
    [ongoing.id],
  );
  const report = await t.request("PATCH", `/tournaments/${ongoing.id}/matches/${final.id}`, { body: { team1_score: 3, team2_score: 1 } });
  expectStatus(report, 200);
  const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { status: "completed" } });
  expectStatus(res, 200);
  return res.body.data;
}

async function stored(id: string) {
  const [row] = await sql("select * from app.tournaments where id = $1", [id]);
  return row;
}

// ---------------------------------------------------------------------------------------------
describe("POST /tournaments", () => {
  it("returns 201 with every field, the defaults and a Location header naming the new tournament", async () => {
    const t = await tenant();
    const body = tournamentBody();
    const res = await t.request("POST", "/tournaments", { body });
    expectStatus(res, 201);
    expect(res.body.success).toBe(true);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(FIELDS);
    expect(data).toMatchObject({
      name: body.name,
      game_id: body.game_id,
      team_size: body.team_size,
      max_teams: body.max_teams,
      status: "registration",
      format: "single_elimination",
      description: "",
      rules: "",
      entry_fee: 0,
      prize_pool: 0,
      starts_at: body.starts_at,
      registration_closes: body.starts_at,
      format_options: { third_place_match: false, best_of: 1, final_best_of: 1 },
      // Without `stages`, one stage made of format and format_options (section 12).
      stages: [{
        name: "Stage 1",
        format: "single_elimination",
        format_options: { third_place_match: false, best_of: 1, final_best_of: 1 },
        advance: null,
      }],
    });
    expect(data.id).toMatch(UUID);
    for (const f of ["starts_at", "registration_closes", "created_at", "updated_at"]) expect(data[f]).toMatch(ISO_Z);
    expect(Math.abs(Date.parse(data.created_at) - Date.now())).toBeLessThan(60_000);
    expect(data.updated_at).toBe(data.created_at);
    expect(res.headers.get("location")).toBe(`${apiUrl()}/tournaments/${data.id}`);

    const again = await t.request("GET", `/tournaments/${data.id}`);
    expectStatus(again, 200);
    expect(again.body.data).toEqual(data);
    const row = await stored(data.id);
    expect(row.account_id).toBe(t.accountId);
  });

  it("stores and returns every optional field when given", async () => {
    const t = await tenant();
    const body = tournamentBody({
      description: "A long description",
      format: "single_elimination",
      entry_fee: 12.5,
      prize_pool: 2500.75,
      registration_closes: inDays(29),
      rules: "Best of three.",
    });
    const res = await t.request("POST", "/tournaments", { body });
    expectStatus(res, 201);
    expect(res.body.data).toMatchObject({
      description: body.description,
      format: "single_elimination",
      entry_fee: 12.5,
      prize_pool: 2500.75,
      registration_closes: body.registration_closes,
      rules: body.rules,
    });
  });

  it("returns 400 validation_error naming each missing required field", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: {} });
    expectError(res, 400, "validation_error", ["name", "game_id", "team_size", "max_teams", "starts_at"]);
    const optional = ["description", "format", "entry_fee", "prize_pool", "registration_closes", "rules"];
    for (const d of res.body.error.details) expect(optional).not.toContain(d.field);
  });

  it.each([
    ["id", "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b"],
    ["slug", "my-slug-abcdef"],
    ["status", "registration"],
    ["created_at", "2030-01-01T00:00:00Z"],
    ["updated_at", "2030-01-01T00:00:00Z"],
    ["account_id", "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b"],
    ["colour", "blue"],
  ])("returns 400 validation_error naming the read-only or unknown field %s", async (field, value) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ [field]: value }) });
    expectError(res, 400, "validation_error", [field]);
    const [{ n }] = await sql("select count(*)::int n from app.tournaments where account_id = $1", [t.accountId]);
    expect(n).toBe(0);
  });

  const long = (n: number) => "x".repeat(n);
  it.each<[string, unknown]>([
    ["name", ""],
    ["name", "   "],
    ["name", long(101)],
    ["name", 42],
    ["name", null],
    ["description", long(5001)],
    ["description", 7],
    ["game_id", "not-a-uuid"],
    ["game_id", "6f1c2b1a3c4d4e5f8a9b0c1d2e3f4a5b"],
    ["game_id", 12],
    ["format", "battle_royale"],
    ["format", "Round_Robin"],
    ["team_size", 0],
    ["team_size", 101],
    ["team_size", 2.5],
    ["team_size", "5"],
    ["max_teams", 1],
    ["max_teams", 1025],
    ["max_teams", 8.5],
    ["max_teams", "8"],
    ["entry_fee", -0.01],
    ["entry_fee", 1_000_000.01],
    ["entry_fee", 1.005],
    ["entry_fee", 10.000000001],
    ["entry_fee", "10.00"],
    ["prize_pool", -1],
    ["prize_pool", 100_000_000.01],
    ["prize_pool", 0.001],
    ["prize_pool", "100"],
    ["starts_at", "2099-06-15T12:00:00"],
    ["starts_at", "2099-06-15"],
    ["starts_at", "next friday"],
    ["starts_at", "2099-02-30T12:00:00Z"],
    ["starts_at", 4102444800],
    ["registration_closes", "2099-06-15T12:00:00"],
    ["registration_closes", "soon"],
    ["rules", long(20_001)],
    ["rules", false],
  ])("returns 400 validation_error when %s is %j", async (field, value) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ [field]: value }) });
    expectError(res, 400, "validation_error", [field]);
  });

  it.each<[string, unknown]>([
    ["name", "x"],
    ["name", long(100)],
    ["description", long(5000)],
    ["rules", long(20_000)],
    ["team_size", 1],
    ["team_size", 100],
    ["max_teams", 2],
    ["max_teams", 1024],
    ["entry_fee", 0],
    ["entry_fee", 1_000_000],
    ["entry_fee", 999_999.99],
    ["prize_pool", 0],
    ["prize_pool", 100_000_000],
    ["prize_pool", 99_999_999.99],
  ])("accepts %s at its bound %j and returns it unchanged", async (field, value) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ [field]: value }) });
    expectStatus(res, 201);
    expect(res.body.data[field]).toEqual(value);
  });

  it("trims the name and counts its length after trimming", async () => {
    const t = await tenant();
    const name = "y".repeat(100);
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ name: `   ${name}  ` }) });
    expectStatus(res, 201);
    expect(res.body.data.name).toBe(name);
  });

  it("returns money as exact JSON numbers with at most 2 decimals", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ entry_fee: 19.99, prize_pool: 99_999_999.99 }) });
    expectStatus(res, 201);
    expect(res.text).toMatch(/"entry_fee"\s*:\s*19\.99\s*[,}]/);
    expect(res.text).toMatch(/"prize_pool"\s*:\s*99999999\.99\s*[,}]/);
    expect(res.body.data.entry_fee).toBe(19.99);
    expect(res.body.data.prize_pool).toBe(99_999_999.99);
    const [row] = await sql("select entry_fee::text, prize_pool::text from app.tournaments where id = $1", [res.body.data.id]);
    expect(row).toEqual({ entry_fee: "19.99", prize_pool: "99999999.99" });
  });

  it("accepts date-times with an offset and returns them in UTC with Z", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({ starts_at: "2099-06-15T12:30:00.123456+02:00", registration_closes: "2099-06-14T20:00:00-05:30" }),
    });
    expectStatus(res, 201);
    expect(res.body.data.starts_at).toBe(new Date("2099-06-15T12:30:00.123+02:00").toISOString());
    expect(res.body.data.starts_at).toBe("2099-06-15T10:30:00.123Z");
    expect(res.body.data.registration_closes).toBe(new Date("2099-06-14T20:00:00-05:30").toISOString());
  });

  it("defaults registration_closes to starts_at given with an offset", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ starts_at: "2099-01-01T00:00:00+01:00" }) });
    expectStatus(res, 201);
    expect(res.body.data.registration_closes).toBe("2098-12-31T23:00:00.000Z");
    expect(res.body.data.starts_at).toBe(res.body.data.registration_closes);
  });

  it("returns 400 validation_error naming starts_at when it is in the past", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ starts_at: inDays(-1) }) });
    expectError(res, 400, "validation_error", ["starts_at"]);
    const [{ n }] = await sql("select count(*)::int n from app.tournaments where account_id = $1", [t.accountId]);
    expect(n).toBe(0);
  });

  it("returns 400 validation_error naming registration_closes when it is after starts_at", async () => {
    const t = await tenant();
    const starts = inDays(10);
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({ starts_at: starts, registration_closes: new Date(Date.parse(starts) + 1000).toISOString() }),
    });
    expectError(res, 400, "validation_error", ["registration_closes"]);
  });

  it("accepts registration_closes equal to starts_at, written with another offset", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({ starts_at: "2099-03-01T10:00:00Z", registration_closes: "2099-03-01T12:00:00+02:00" }),
    });
    expectStatus(res, 201);
    expect(res.body.data.registration_closes).toBe("2099-03-01T10:00:00.000Z");
  });
});

// ---------------------------------------------------------------------------------------------
describe("slugs", () => {
  const slugOf = async (name: string) => {
    const t = await tenant();
    return (await createTournament(t, { name })).slug as string;
  };

  it.each([
    ["Winter Cup 2025", "winter-cup-2025"],
    ["Café Ünïon — Été 2025!", "cafe-union-ete-2025"],
    ["Straße Æsir Øresund Łódź", "strasse-aesir-oresund-lodz"],
    ["  --Hello,   World--  ", "hello-world"],
    ["ÀÉÎÕÜ ñ ç", "aeiou-n-c"],
  ])("makes the slug of %j from %j plus a 6-character suffix", async (name, stem) => {
    expect(await slugOf(name)).toMatch(new RegExp(`^${stem}-${SUFFIX}$`));
  });

  it.each(["!!! ???", "日本語のトーナメント", "---"])("falls back to 'tournament' when nothing is left of %j", async (name) => {
    expect(await slugOf(name)).toMatch(new RegExp(`^tournament-${SUFFIX}$`));
  });

  it("caps the stem at 60 characters", async () => {
    expect(await slugOf("a".repeat(100))).toMatch(new RegExp(`^${"a".repeat(60)}-${SUFFIX}$`));
  });

  it("does not leave a dash at the end of a stem cut at 60 characters", async () => {
    expect(await slugOf(`${"b".repeat(59)} cdef`)).toMatch(new RegExp(`^${"b".repeat(59)}-${SUFFIX}$`));
  });

  it("gives two tournaments with the same name different slugs", async () => {
    const t = await tenant();
    const a = await createTournament(t, { name: "Same Name" });
    const b = await createTournament(t, { name: "Same Name" });
    expect(a.slug).toMatch(new RegExp(`^same-name-${SUFFIX}$`));
    expect(b.slug).toMatch(new RegExp(`^same-name-${SUFFIX}$`));
    expect(a.slug).not.toBe(b.slug);
  });

  it("keeps the slug when the name changes", async () => {
    const t = await tenant();
    const created = await createTournament(t, { name: "Original Name" });
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { name: "Completely Different" } });
    expectStatus(res, 200);
    expect(res.body.data.name).toBe("Completely Different");
    expect(res.body.data.slug).toBe(created.slug);
  });
});

// ---------------------------------------------------------------------------------------------
describe("GET /tournaments/{id}", () => {
  it("returns 200 with the tournament", async () => {
    const t = await tenant();
    const created = await createTournament(t, { description: "d", rules: "r", entry_fee: 5 });
    const res = await t.request("GET", `/tournaments/${created.id}`);
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual(created);
    expect(res.body.pagination).toBeUndefined();
  });

  it("returns 404 not_found for an unknown id", async () => {
    const t = await tenant();
    const res = await t.request("GET", `/tournaments/${crypto.randomUUID()}`);
    expectError(res, 404, "not_found");
  });

  it("returns 404 not_found for an id that is not a UUID", async () => {
    const t = await tenant();
    const res = await t.request("GET", "/tournaments/not-a-uuid");
    expectError(res, 404, "not_found");
  });
});

// ---------------------------------------------------------------------------------------------
describe("GET /tournaments", () => {
  /** Inserts `count` tournaments for the tenant directly (as the operator); returns them newest first. */
  async function seed(t: Tenant, count: number, fields: { status?: string; game_id?: string; created_at?: string } = {}) {
    await sql(
      `insert into app.tournaments (account_id, name, slug, game_id, status, team_size, max_teams,
                                    starts_at, registration_closes, created_at, updated_at)
       select $1, 'Seeded ' || i, 'seeded-' || replace(gen_random_uuid()::text, '-', ''), $2, $3, 5, 8,
              now() + interval '30 days', now() + interval '30 days',
              coalesce($4::timestamptz, now() - i * interval '1 minute'), now()
         from generate_series(1, $5) i`,
      [t.accountId, fields.game_id ?? tournamentBody().game_id, fields.status ?? "registration", fields.created_at ?? null, count],
    );
  }

  async function expectedOrder(t: Tenant, where = "true", values: unknown[] = []) {
    const rows = await sql<{ id: string }>(
      `select id from app.tournaments where account_id = $1 and ${where} order by created_at desc, id desc`,
      [t.accountId, ...values],
    );
    return rows.map((r) => r.id);
  }

  it("lists the account's tournaments newest first with default pagination page 1, limit 20", async () => {
    const t = await tenant();
    const a = await createTournament(t, { name: "First" });
    const b = await createTournament(t, { name: "Second" });
    const c = await createTournament(t, { name: "Third" });
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 3, next_cursor: null });
    const byRecency = [a, b, c].sort((x, y) => y.created_at.localeCompare(x.created_at) || y.id.localeCompare(x.id));
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(byRecency.map((d) => d.id));
    expect(res.body.data.find((d: { id: string }) => d.id === c.id)).toEqual(c);
    expect(Object.keys(res.body).sort()).toEqual(["data", "meta", "pagination", "success"]);
  });

  it("returns at most 20 items by default and the true total", async () => {
    const t = await tenant();
    await seed(t, 23);
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 200);
    expect(res.body.data).toHaveLength(20);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 23, next_cursor: expect.stringMatching(/^[0-9a-f]{48}$/) });
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual((await expectedOrder(t)).slice(0, 20));
  });

  it("breaks created_at ties by id, descending", async () => {
    const t = await tenant();
    await seed(t, 6, { created_at: "2030-01-01T00:00:00Z" });
    const res = await t.request("GET", "/tournaments");
    expectStatus(res, 200);
    const ids = res.body.data.map((d: { id: string }) => d.id);
    expect(ids).toHaveLength(6);
    expect(ids).toEqual([...ids].sort().reverse());
  });

  it("pages with page and limit, and keeps the total on a page past the end", async () => {
    const t = await tenant();
    await seed(t, 5);
    const order = await expectedOrder(t);
    const pages = [];
    for (const page of [1, 2, 3, 4]) {
      const res = await t.request("GET", `/tournaments?page=${page}&limit=2`);
      expectStatus(res, 200);
      expect(res.body.pagination).toEqual({
        page,
        limit: 2,
        total: 5,
        next_cursor: page < 3 ? expect.stringMatching(/^[0-9a-f]{48}$/) : null,
      });
      pages.push(res.body.data.map((d: { id: string }) => d.id));
    }
    expect(pages).toEqual([order.slice(0, 2), order.slice(2, 4), order.slice(4, 5), []]);
    const far = await t.request("GET", "/tournaments?page=1000000&limit=100");
    expectStatus(far, 200);
    expect(far.body.data).toEqual([]);
    expect(far.body.pagination).toEqual({ page: 1000000, limit: 100, total: 5, next_cursor: null });
  });

  it("accepts limit 1 and limit 100", async () => {
    const t = await tenant();
    await seed(t, 3);
    const one = await t.request("GET", "/tournaments?limit=1");
    expectStatus(one, 200);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.pagination).toEqual({ page: 1, limit: 1, total: 3, next_cursor: expect.stringMatching(/^[0-9a-f]{48}$/) });
    const hundred = await t.request("GET", "/tournaments?limit=100");
    expectStatus(hundred, 200);
    expect(hundred.body.data).toHaveLength(3);
    expect(hundred.body.pagination.limit).toBe(100);
  });

  it("filters by status, with the total of the filtered list", async () => {
    const t = await tenant();
    await seed(t, 2, { status: "registration" });
    await seed(t, 3, { status: "ongoing" });
    await seed(t, 1, { status: "completed" });
    for (const [status, count] of [["registration", 2], ["ongoing", 3], ["completed", 1]] as const) {
      const res = await t.request("GET", `/tournaments?status=${status}`);
      expectStatus(res, 200);
      expect(res.body.pagination.total).toBe(count);
      expect(res.body.data.map((d: { status: string }) => d.status)).toEqual(Array(count).fill(status));
      expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(await expectedOrder(t, "status = $2", [status]));
    }
  });

  it("filters by game_id, alone and with status", async () => {
    const t = await tenant();
    await seed(t, 2);
    await seed(t, 3, { game_id: OTHER_GAME });
    await seed(t, 1, { game_id: OTHER_GAME, status: "ongoing" });
    const res = await t.request("GET", `/tournaments?game_id=${OTHER_GAME}`);
    expectStatus(res, 200);
    expect(res.body.pagination.total).toBe(4);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(await expectedOrder(t, "game_id = $2", [OTHER_GAME]));
    const both = await t.request("GET", `/tournaments?game_id=${OTHER_GAME}&status=ongoing`);
    expectStatus(both, 200);
    expect(both.body.pagination.total).toBe(1);
    expect(both.body.data[0]).toMatchObject({ game_id: OTHER_GAME, status: "ongoing" });
    const none = await t.request("GET", `/tournaments?game_id=${crypto.randomUUID()}`);
    expectStatus(none, 200);
    expect(none.body.data).toEqual([]);
    expect(none.body.pagination.total).toBe(0);
  });

  it("ignores unknown query parameters", async () => {
    const t = await tenant();
    await seed(t, 2);
    const plain = await t.request("GET", "/tournaments");
    const res = await t.request("GET", "/tournaments?sort=name&foo=bar&page_size=1");
    expectStatus(res, 200);
    expect(res.body.data).toEqual(plain.body.data);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 2, next_cursor: null });
  });

  it.each([
    ["page", "0"],
    ["page", "-1"],
    ["page", "abc"],
    ["page", "1.5"],
    ["page", ""],
    ["limit", "0"],
    ["limit", "101"],
    ["limit", "ten"],
    ["limit", "2.0"],
    ["status", "open"],
    ["status", "REGISTRATION"],
    ["game_id", "123"],
    ["game_id", "not-a-uuid"],
  ])("returns 400 validation_error naming %s=%j", async (name, value) => {
    const t = await tenant();
    const res = await t.request("GET", `/tournaments?${name}=${encodeURIComponent(value)}`);
    expectError(res, 400, "validation_error", [name]);
  });
});

// ---------------------------------------------------------------------------------------------
describe("PATCH /tournaments/{id} in registration", () => {
  it("changes every field at once and bumps updated_at only", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    await new Promise((r) => setTimeout(r, 20));
    const changes = {
      name: "Renamed Cup",
      description: "new description",
      game_id: OTHER_GAME,
      format: "single_elimination",
      team_size: 3,
      max_teams: 16,
      entry_fee: 7.25,
      prize_pool: 1000.1,
      starts_at: "2099-05-01T18:00:00+02:00",
      registration_closes: "2099-04-30T12:00:00Z",
      rules: "new rules",
    };
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: changes });
    expectStatus(res, 200);
    expect(res.body.data).toEqual({
      ...created,
      ...changes,
      starts_at: "2099-05-01T16:00:00.000Z",
      registration_closes: "2099-04-30T12:00:00.000Z",
      updated_at: res.body.data.updated_at,
      version: created.version + 1,
    });
    expect(res.body.data.updated_at).toMatch(ISO_Z);
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    const get = await t.request("GET", `/tournaments/${created.id}`);
    expect(get.body.data).toEqual(res.body.data);
  });

  it("changes a single field and leaves the others as they were", async () => {
    const t = await tenant();
    const created = await createTournament(t, { description: "keep me" });
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { max_teams: 32 } });
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ ...created, max_teams: 32, updated_at: res.body.data.updated_at, version: created.version + 1 });
  });

  it("returns 400 validation_error for an empty body and changes nothing", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: {} });
    expectError(res, 400, "validation_error");
    expect((await t.request("GET", `/tournaments/${created.id}`)).body.data).toEqual(created);
  });

  it.each([
    ["id", crypto.randomUUID()],
    ["slug", "new-slug-abcdef"],
    ["created_at", "2030-01-01T00:00:00Z"],
    ["updated_at", "2030-01-01T00:00:00Z"],
    ["account_id", crypto.randomUUID()],
    ["colour", "blue"],
  ])("returns 400 validation_error naming the read-only or unknown field %s", async (field, value) => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { name: "Changed", [field]: value } });
    expectError(res, 400, "validation_error", [field]);
    expect((await t.request("GET", `/tournaments/${created.id}`)).body.data).toEqual(created);
  });

  it.each<[string, unknown]>([
    ["name", ""],
    ["name", "  "],
    ["name", "z".repeat(101)],
    ["name", null],
    ["description", "d".repeat(5001)],
    ["description", null],
    ["game_id", "nope"],
    ["format", "ladder"],
    ["team_size", 0],
    ["team_size", 101],
    ["max_teams", 1],
    ["max_teams", 1025],
    ["max_teams", 3.5],
    ["entry_fee", -1],
    ["entry_fee", 1.234],
    ["entry_fee", 1_000_001],
    ["prize_pool", 100_000_001],
    ["prize_pool", "5"],
    ["starts_at", "2099-01-01T00:00:00"],
    ["registration_closes", "2099-01-01"],
    ["rules", "r".repeat(20_001)],
    ["status", "cancelled"],
    ["status", null],
  ])("returns 400 validation_error when %s is %j", async (field, value) => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { [field]: value } });
    expectError(res, 400, "validation_error", [field]);
  });

  it("returns 400 naming starts_at when it is moved into the past", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { starts_at: inDays(-2) } });
    expectError(res, 400, "validation_error", ["starts_at"]);
    expect((await t.request("GET", `/tournaments/${created.id}`)).body.data.starts_at).toBe(created.starts_at);
  });

  it("returns 400 naming registration_closes when it is moved after the stored starts_at", async () => {
    const t = await tenant();
    const created = await createTournament(t, { starts_at: inDays(10) });
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { registration_closes: inDays(11) } });
    expectError(res, 400, "validation_error", ["registration_closes"]);
  });

  it("returns 400 naming starts_at when it is moved before the stored registration_closes", async () => {
    const t = await tenant();
    const created = await createTournament(t, { starts_at: inDays(20), registration_closes: inDays(10) });
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { starts_at: inDays(5) } });
    expectError(res, 400, "validation_error", ["starts_at"]);
    expect((await t.request("GET", `/tournaments/${created.id}`)).body.data).toEqual(created);
  });

  it("accepts starts_at and registration_closes moved together", async () => {
    const t = await tenant();
    const created = await createTournament(t, { starts_at: inDays(20), registration_closes: inDays(10) });
    const starts = inDays(5);
    const closes = inDays(4);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { starts_at: starts, registration_closes: closes } });
    expectStatus(res, 200);
    expect(res.body.data).toMatchObject({ starts_at: starts, registration_closes: closes });
  });

  it("returns 409 tournament_full when max_teams goes below the registrations held", async () => {
    const t = await tenant();
    const created = await createTournament(t, { max_teams: 8 });
    await registerTeams(t, created.id, 4);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { max_teams: 3 } });
    expectError(res, 409, "tournament_full");
    expect((await stored(created.id)).max_teams).toBe(8);
  });

  it("accepts max_teams equal to the registrations held", async () => {
    const t = await tenant();
    const created = await createTournament(t, { max_teams: 8 });
    await registerTeams(t, created.id, 4);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { max_teams: 4 } });
    expectStatus(res, 200);
    expect(res.body.data.max_teams).toBe(4);
  });

  it("counts registrations made through the API for max_teams", async () => {
    const t = await tenant();
    const created = await createTournament(t, { max_teams: 4 });
    const teams = await createTeams(3, "ApiReg");
    for (const team_id of teams) {
      expectStatus(await t.request("POST", `/tournaments/${created.id}/registrations`, { body: { team_id } }), 201);
    }
    expectError(await t.request("PATCH", `/tournaments/${created.id}`, { body: { max_teams: 2 } }), 409, "tournament_full");
  });

  it("returns 404 not_found for an unknown tournament", async () => {
    const t = await tenant();
    const res = await t.request("PATCH", `/tournaments/${crypto.randomUUID()}`, { body: { name: "x" } });
    expectError(res, 404, "not_found");
  });
});

// ---------------------------------------------------------------------------------------------
describe("PATCH /tournaments/{id} in ongoing", () => {
  it("changes name, description, rules and prize_pool", async () => {
    const t = await tenant();
    const ongoing = await ongoingTournament(t);
    const changes = { name: "Live Cup", description: "now live", rules: "no pauses", prize_pool: 5000.5 };
    const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: changes });
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ ...ongoing, ...changes, updated_at: res.body.data.updated_at, version: ongoing.version + 1 });
  });

  it.each<[string, unknown]>([
    ["game_id", OTHER_GAME],
    ["team_size", 2],
    ["max_teams", 16],
    ["entry_fee", 10],
    ["starts_at", "2099-07-01T00:00:00Z"],
    ["registration_closes", "1999-07-01T00:00:00Z"],
  ])("returns 409 tournament_locked when %s changes, and changes nothing", async (field, value) => {
    const t = await tenant();
    const ongoing = await ongoingTournament(t);
    const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { name: "Not applied", [field]: value } });
    expectError(res, 409, "tournament_locked");
    expect(res.body.error.message).toContain(field);
    expect((await t.request("GET", `/tournaments/${ongoing.id}`)).body.data).toEqual(ongoing);
  });

  it("accepts a locked field sent with its current value", async () => {
    const t = await tenant();
    const ongoing = await ongoingTournament(t);
    const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, {
      body: { name: "Same rest", max_teams: ongoing.max_teams, format: "single_elimination", game_id: ongoing.game_id },
    });
    expectStatus(res, 200);
    expect(res.body.data.name).toBe("Same rest");
  });
});

// ---------------------------------------------------------------------------------------------
describe("PATCH /tournaments/{id} in completed", () => {
  it("changes name, description and rules", async () => {
    const t = await tenant();
    const done = await completedTournament(t);
    const changes = { name: "Archived Cup", description: "finished", rules: "as played" };
    const res = await t.request("PATCH", `/tournaments/${done.id}`, { body: changes });
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ ...done, ...changes, updated_at: res.body.data.updated_at, version: done.version + 1 });
  });

  it.each<[string, unknown]>([
    ["prize_pool", 123],
    ["game_id", OTHER_GAME],
    ["team_size", 2],
    ["max_teams", 16],
    ["entry_fee", 10],
    ["starts_at", "2099-07-01T00:00:00Z"],
  ])("returns 409 tournament_locked when %s changes, and changes nothing", async (field, value) => {
    const t = await tenant();
    const done = await completedTournament(t);
    const res = await t.request("PATCH", `/tournaments/${done.id}`, { body: { [field]: value } });
    expectError(res, 409, "tournament_locked");
    expect((await t.request("GET", `/tournaments/${done.id}`)).body.data).toEqual(done);
  });
});

// ---------------------------------------------------------------------------------------------
describe("status transitions", () => {
  it("moves registration → ongoing with 2 registrations and generates the bracket", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    await registerTeams(t, created.id, 3);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } });
    expectStatus(res, 200);
    expect(res.body.data.status).toBe("ongoing");
    const [{ n }] = await sql("select count(*)::int n from app.matches where tournament_id = $1", [created.id]);
    expect(n).toBe(3); // 3 teams: bracket of 4, 3 matches
  });

  it("returns 409 invalid_status_transition going ongoing with fewer than 2 registrations", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    expectError(await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } }), 409, "invalid_status_transition");
    await registerTeams(t, created.id, 1);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing", name: "Unapplied" } });
    expectError(res, 409, "invalid_status_transition");
    expect(await stored(created.id)).toMatchObject({ status: "registration", name: created.name });
    const [{ n }] = await sql("select count(*)::int n from app.matches where tournament_id = $1", [created.id]);
    expect(n).toBe(0);
  });

  it("returns 409 invalid_status_transition going registration → completed", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    await registerTeams(t, created.id, 2);
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "completed" } });
    expectError(res, 409, "invalid_status_transition");
    expect((await stored(created.id)).status).toBe("registration");
  });

  it("returns 409 invalid_status_transition going ongoing → completed before the final is decided", async () => {
    const t = await tenant();
    const ongoing = await ongoingTournament(t);
    const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { status: "completed" } });
    expectError(res, 409, "invalid_status_transition");
    expect((await stored(ongoing.id)).status).toBe("ongoing");
  });

  it("moves ongoing → completed once the final is decided", async () => {
    const t = await tenant();
    const done = await completedTournament(t);
    expect(done.status).toBe("completed");
    expect((await stored(done.id)).status).toBe("completed");
  });

  it("returns 409 invalid_status_transition going ongoing → registration", async () => {
    const t = await tenant();
    const ongoing = await ongoingTournament(t);
    const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { status: "registration" } });
    expectError(res, 409, "invalid_status_transition");
    expect((await stored(ongoing.id)).status).toBe("ongoing");
  });

  it.each(["registration", "ongoing"])("returns 409 invalid_status_transition going completed → %s", async (status) => {
    const t = await tenant();
    const done = await completedTournament(t);
    const res = await t.request("PATCH", `/tournaments/${done.id}`, { body: { status } });
    expectError(res, 409, "invalid_status_transition");
    expect((await stored(done.id)).status).toBe("completed");
  });

  it("treats setting the current status again as a no-op, in every status", async () => {
    const t = await tenant();
    const reg = await createTournament(t);
    const r1 = await t.request("PATCH", `/tournaments/${reg.id}`, { body: { status: "registration" } });
    expectStatus(r1, 200);
    expect(r1.body.data).toMatchObject({ ...reg, updated_at: r1.body.data.updated_at });

    const ongoing = await ongoingTournament(t);
    const [{ n: before }] = await sql("select count(*)::int n from app.matches where tournament_id = $1", [ongoing.id]);
    const r2 = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { status: "ongoing" } });
    expectStatus(r2, 200);
    expect(r2.body.data).toMatchObject({ ...ongoing, updated_at: r2.body.data.updated_at });
    const [{ n: after }] = await sql("select count(*)::int n from app.matches where tournament_id = $1", [ongoing.id]);
    expect(after).toBe(before);

    const done = await completedTournament(t);
    const r3 = await t.request("PATCH", `/tournaments/${done.id}`, { body: { status: "completed" } });
    expectStatus(r3, 200);
    expect(r3.body.data).toMatchObject({ ...done, updated_at: r3.body.data.updated_at });
  });
});

// ---------------------------------------------------------------------------------------------
describe("DELETE /tournaments/{id}", () => {
  it("returns 200 with data.message 'Tournament deleted' and the tournament is gone", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("DELETE", `/tournaments/${created.id}`);
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({ message: "Tournament deleted" });
    expectError(await t.request("GET", `/tournaments/${created.id}`), 404, "not_found");
    expect(await stored(created.id)).toBeUndefined();
  });

  it("returns 404 not_found when deleting twice or an unknown id", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    expectStatus(await t.request("DELETE", `/tournaments/${created.id}`), 200);
    expectError(await t.request("DELETE", `/tournaments/${created.id}`), 404, "not_found");
    expectError(await t.request("DELETE", `/tournaments/${crypto.randomUUID()}`), 404, "not_found");
  });

  it("deletes a registration-status tournament with its registrations", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    await registerTeams(t, created.id, 3);
    expectStatus(await t.request("DELETE", `/tournaments/${created.id}`), 200);
    const [{ n }] = await sql("select count(*)::int n from app.registrations where tournament_id = $1", [created.id]);
    expect(n).toBe(0);
  });

  it.each(["ongoing", "completed"])("deletes a %s tournament with its registrations and matches", async (status) => {
    const t = await tenant();
    const tournament = status === "ongoing" ? await ongoingTournament(t) : await completedTournament(t);
    const [{ regs: regsBefore, matches: matchesBefore }] = await sql(
      `select (select count(*)::int from app.registrations where tournament_id = $1) regs,
              (select count(*)::int from app.matches where tournament_id = $1) matches`,
      [tournament.id],
    );
    expect(regsBefore).toBe(2);
    expect(matchesBefore).toBe(1);
    const res = await t.request("DELETE", `/tournaments/${tournament.id}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ message: "Tournament deleted" });
    const [{ regs, matches }] = await sql(
      `select (select count(*)::int from app.registrations where tournament_id = $1) regs,
              (select count(*)::int from app.matches where tournament_id = $1) matches`,
      [tournament.id],
    );
    expect({ regs, matches }).toEqual({ regs: 0, matches: 0 });
    expectError(await t.request("GET", `/tournaments/${tournament.id}/results`), 404, "not_found");
  });
});

// ---------------------------------------------------------------------------------------------
// Contract section 12, "Defining them": stages on create and on PATCH while in registration.
describe("stages", () => {
  const SE = { third_place_match: false, best_of: 1, final_best_of: 1 };
  const RR = (groups = 1) => roundRobinOptions({ groups });
  /** Groups into playoffs: the shape most tests start from. */
  const groupsIntoPlayoffs = () => [
    { name: "Groups", format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 2 } },
    { name: "Playoffs", format: "single_elimination" },
  ];

  async function countOf(t: Tenant): Promise<number> {
    const [{ n }] = await sql("select count(*)::int n from app.tournaments where account_id = $1", [t.accountId]);
    return n;
  }

  it("creates a tournament of stages, each completed with its defaults; format and format_options read as stage 1's", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({
        max_teams: 16,
        stages: [
          { format: "round_robin", format_options: { groups: 4 }, advance: { per_group: 2 } },
          { name: "  Swiss  ", format: "swiss", advance: { top: 4 } },
          { name: "Finals", format: "double_elimination", format_options: { grand_final: "single", best_of: 1, final_best_of: 1 } },
        ],
      }),
    });
    expectStatus(res, 201);
    const stages = [
      { name: "Stage 1", format: "round_robin", format_options: RR(4), advance: { per_group: 2, best_next: 0 } },
      { name: "Swiss", format: "swiss", format_options: swissOptions(), advance: { top: 4 } },
      {
        name: "Finals",
        format: "double_elimination",
        format_options: { grand_final: "single", best_of: 1, final_best_of: 1 },
        advance: null,
      },
    ];
    expect(res.body.data).toMatchObject({ format: "round_robin", format_options: RR(4), stages });
    expect(res.body.data.stages).toEqual(stages);
    expect((await t.request("GET", `/tournaments/${res.body.data.id}`)).body.data).toEqual(res.body.data);
  });

  it("keeps best_next when given, and accepts 4 stages", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({
        max_teams: 32,
        stages: [
          { format: "round_robin", format_options: { groups: 4 }, advance: { per_group: 2, best_next: 2 } },
          { format: "swiss", format_options: { rounds: 3, best_of: 1 }, advance: { top: 8 } },
          { format: "double_elimination", advance: { top: 4 } },
          { format: "single_elimination", format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } },
        ],
      }),
    });
    expectStatus(res, 201);
    expect(res.body.data.stages).toEqual([
      { name: "Stage 1", format: "round_robin", format_options: RR(4), advance: { per_group: 2, best_next: 2 } },
      { name: "Stage 2", format: "swiss", format_options: swissOptions({ rounds: 3 }), advance: { top: 8 } },
      {
        name: "Stage 3",
        format: "double_elimination",
        format_options: { grand_final: "reset", best_of: 1, final_best_of: 1 },
        advance: { top: 4 },
      },
      {
        name: "Stage 4",
        format: "single_elimination",
        format_options: { third_place_match: true, best_of: 1, final_best_of: 1 },
        advance: null,
      },
    ]);
  });

  it("a single stage given as stages is the same tournament as format and format_options", async () => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", {
      body: tournamentBody({ stages: [{ format: "swiss", format_options: { rounds: 3, best_of: 1 } }] }),
    });
    expectStatus(res, 201);
    expect(res.body.data).toMatchObject({
      format: "swiss",
      format_options: { rounds: 3, best_of: 1 },
      stages: [{ name: "Stage 1", format: "swiss", format_options: { rounds: 3, best_of: 1 }, advance: null }],
    });
  });

  const stage = (over: Record<string, unknown> = {}) => ({ format: "single_elimination", advance: { top: 2 }, ...over });
  const last = (over: Record<string, unknown> = {}) => ({ format: "single_elimination", ...over });
  it.each<[string, unknown, string]>([
    ["no stage", [], "stages"],
    ["5 stages", [stage(), stage(), stage(), stage(), last()], "stages"],
    ["not an array", { format: "single_elimination" }, "stages"],
    ["null", null, "stages"],
    ["a stage that is not an object", ["single_elimination"], "stages[0]"],
    ["advance missing on the first of two", [last(), last()], "stages[0].advance"],
    ["advance missing on a stage that is not the last", [stage(), last(), last()], "stages[1].advance"],
    ["advance missing after a round robin", [last({ format: "round_robin" }), last()], "stages[0].advance"],
    ["advance on the last stage", [stage(), stage()], "stages[1].advance"],
    ["advance on the only stage", [stage()], "stages[0].advance"],
    ["an unknown field", [stage({ foo: 1 }), last()], "stages[0].foo"],
    ["an unknown field of the last stage", [stage(), last({ seeding: "random" })], "stages[1].seeding"],
    ["no format", [{ advance: { top: 2 } }, last()], "stages[0].format"],
    ["an unknown format", [stage({ format: "ladder" }), last()], "stages[0].format"],
    ["an empty name", [stage({ name: "   " }), last()], "stages[0].name"],
    ["a name of 61 characters", [stage(), last({ name: "n".repeat(61) })], "stages[1].name"],
    ["a name that is not a string", [stage({ name: 7 }), last()], "stages[0].name"],
    [
      "groups 0",
      [stage({ format: "round_robin", format_options: { groups: 0 }, advance: { per_group: 2 } }), last()],
      "stages[0].format_options.groups",
    ],
    [
      "groups not an integer",
      [stage({ format: "round_robin", format_options: { groups: "2" }, advance: { per_group: 2 } }), last()],
      "stages[0].format_options.groups",
    ],
    ["another format's option", [stage({ format_options: { rounds: 3, best_of: 1 } }), last()], "stages[0].format_options.rounds"],
    [
      "rounds 0 in the last stage",
      [stage({ advance: { top: 4 } }), last({ format: "swiss", format_options: { rounds: 0 } })],
      "stages[1].format_options.rounds",
    ],
    ["top below 2", [stage({ advance: { top: 1 } }), last()], "stages[0].advance.top"],
    ["top not an integer", [stage({ advance: { top: 2.5 } }), last()], "stages[0].advance.top"],
    ["per_group after an elimination stage", [stage({ advance: { per_group: 2 } }), last()], "stages[0].advance.per_group"],
    ["top after a round robin", [stage({ format: "round_robin", advance: { top: 2 } }), last()], "stages[0].advance.top"],
    ["per_group 0", [stage({ format: "round_robin", advance: { per_group: 0 } }), last()], "stages[0].advance.per_group"],
    ["best_next beyond the number of groups", [
      stage({ format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 1, best_next: 3 } }),
      last(),
    ], "stages[0].advance.best_next"],
    ["one team sent on (K < 2)", [stage({ format: "round_robin", advance: { per_group: 1 } }), last()], "stages[0].advance"],
    // K rules: the next stage must be playable by the K teams sent on.
    ["swiss after top 4 with 4 rounds (rounds > K − 1)", [
      stage({ advance: { top: 4 } }),
      last({ format: "swiss", format_options: { rounds: 4 } }),
    ], "stages[0].advance"],
    ["swiss with 2 rounds after 2 groups sending 1 each (K = 2)", [
      stage({ format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 1 } }),
      last({ format: "swiss", format_options: { rounds: 2 } }),
    ], "stages[0].advance"],
    ["a round robin of 3 groups after top 5 (groups > K / 2)", [
      stage({ format: "swiss", advance: { top: 5 } }),
      last({ format: "round_robin", format_options: { groups: 3 } }),
    ], "stages[0].advance"],
    ["a round robin of 2 groups after top 3, as the middle stage", [
      stage({ advance: { top: 8 } }),
      stage({ advance: { top: 3 } }),
      last({ format: "round_robin", format_options: { groups: 2 } }),
    ], "stages[1].advance"],
  ])("POST returns 400 validation_error naming the field for %s, and creates nothing", async (_what, stages, field) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ stages }) });
    expectError(res, 400, "validation_error", [field]);
    expect(await countOf(t)).toBe(0);
  });

  it.each<[string, unknown]>([
    ["swiss with rounds K − 1", [stage({ advance: { top: 4 } }), last({ format: "swiss", format_options: { rounds: 3, best_of: 1 } })]],
    ["swiss of ceil(log2 K) rounds by default", [stage({ advance: { top: 2 } }), last({ format: "swiss" })]],
    ["a round robin of K / 2 groups", [
      stage({ format: "swiss", advance: { top: 6 } }),
      last({ format: "round_robin", format_options: { groups: 3 } }),
    ]],
    ["best_next counted in K", [
      stage({ format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 1, best_next: 1 } }),
      last({ format: "swiss", format_options: { rounds: 2 } }),
    ]],
    ["an advance of null on the last stage", [stage(), last({ advance: null })]],
  ])("POST accepts %s", async (_what, stages) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ stages }) });
    expectStatus(res, 201);
    expect(res.body.data.stages.at(-1).advance).toBe(null);
  });

  it.each<[string, Record<string, unknown>]>([
    ["format", { format: "round_robin" }],
    ["format_options", { format_options: { groups: 2 } }],
    ["format (the same as stage 1's)", { format: "single_elimination" }],
  ])("POST returns 400 naming stages when %s comes with stages, and creates nothing", async (_what, extra) => {
    const t = await tenant();
    const res = await t.request("POST", "/tournaments", { body: tournamentBody({ ...extra, stages: [last()] }) });
    expectError(res, 400, "validation_error", ["stages"]);
    expect(await countOf(t)).toBe(0);
  });

  describe("PATCH in registration", () => {
    it("replaces the stages; format and format_options follow stage 1", async () => {
      const t = await tenant();
      const created = await createTournament(t, { format: "double_elimination" });
      expect(created.stages).toEqual([{
        name: "Stage 1",
        format: "double_elimination",
        format_options: { grand_final: "reset", best_of: 1, final_best_of: 1 },
        advance: null,
      }]);
      const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { stages: groupsIntoPlayoffs() } });
      expectStatus(res, 200);
      const stages = [
        { name: "Groups", format: "round_robin", format_options: RR(2), advance: { per_group: 2, best_next: 0 } },
        { name: "Playoffs", format: "single_elimination", format_options: SE, advance: null },
      ];
      expect(res.body.data).toEqual({
        ...created,
        format: "round_robin",
        format_options: RR(2),
        stages,
        updated_at: res.body.data.updated_at,
        version: created.version + 1,
      });
      expect((await t.request("GET", `/tournaments/${created.id}`)).body.data).toEqual(res.body.data);
    });

    it("changes stage 1 when format or format_options change, the later stages staying", async () => {
      const t = await tenant();
      const created = await createTournament(t, { stages: groupsIntoPlayoffs() });
      const options = await t.request("PATCH", `/tournaments/${created.id}`, {
        body: { format_options: { groups: 1, points: { win: 2 } } },
      });
      expectStatus(options, 200);
      expect(options.body.data.format_options).toEqual(roundRobinOptions({ points: { win: 2 } }));
      expect(options.body.data.stages).toEqual([{
        ...created.stages[0],
        format_options: roundRobinOptions({ points: { win: 2 } }),
      }, created.stages[1]]);
      // Stage 1 as swiss would keep its round robin advance ({per_group}), which swiss cannot take
      // ({top}): the 400 names what the client sent, format, not a default it never wrote.
      const format = await t.request("PATCH", `/tournaments/${created.id}`, { body: { format: "swiss" } });
      expectError(format, 400, "validation_error", ["format"]);
      expect(format.body.error.details[0].message).toMatch(/send stages/);
      expect((await t.request("GET", `/tournaments/${created.id}`)).body.data).toEqual(options.body.data);
      const both = await t.request("PATCH", `/tournaments/${created.id}`, {
        body: {
          format: "swiss",
          stages: [
            { format: "swiss", advance: { top: 4 } },
            created.stages[1],
          ],
        },
      });
      expectError(both, 400, "validation_error", ["stages"]);
      const swiss = await t.request("PATCH", `/tournaments/${created.id}`, {
        body: {
          stages: [
            { format: "swiss", advance: { top: 4 } },
            created.stages[1],
          ],
        },
      });
      expectStatus(swiss, 200);
      const elimination = await t.request("PATCH", `/tournaments/${created.id}`, { body: { format: "double_elimination" } });
      expectStatus(elimination, 200);
      expect(elimination.body.data).toMatchObject({
        format: "double_elimination",
        format_options: { grand_final: "reset", best_of: 1, final_best_of: 1 },
      });
      expect(elimination.body.data.stages).toEqual([
        {
          name: "Stage 1",
          format: "double_elimination",
          format_options: { grand_final: "reset", best_of: 1, final_best_of: 1 },
          advance: { top: 4 },
        },
        created.stages[1],
      ]);
    });

    it("may go back to one stage", async () => {
      const t = await tenant();
      const created = await createTournament(t, { stages: groupsIntoPlayoffs() });
      const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { stages: [{ format: "swiss" }] } });
      expectStatus(res, 200);
      expect(res.body.data).toMatchObject({
        format: "swiss",
        format_options: { rounds: null, best_of: 1 },
        stages: [{ name: "Stage 1", format: "swiss", format_options: { rounds: null, best_of: 1 }, advance: null }],
      });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ["advance missing on stage 2 of 3", { stages: [stage(), last(), last()] }, "stages[1].advance"],
      ["advance on the last stage", { stages: [stage(), stage()] }, "stages[1].advance"],
      ["groups of a stage", {
        stages: [stage({ format: "round_robin", format_options: { groups: -1 }, advance: { per_group: 1 } }), last()],
      }, "stages[0].format_options.groups"],
      ["an unknown field", { stages: [stage({ foo: true }), last()] }, "stages[0].foo"],
      ["no stage", { stages: [] }, "stages"],
      ["5 stages", { stages: [stage(), stage(), stage(), stage(), last()] }, "stages"],
      ["stages with format", { stages: [last()], format: "swiss" }, "stages"],
      ["stages with format_options", { stages: [last()], format_options: {} }, "stages"],
      ["swiss rounds beyond K − 1", {
        stages: [stage({ advance: { top: 3 } }), last({ format: "swiss", format_options: { rounds: 3, best_of: 1 } })],
      }, "stages[0].advance"],
      ["round robin groups beyond K / 2", {
        stages: [stage({ advance: { top: 3 } }), last({ format: "round_robin", format_options: { groups: 2 } })],
      }, "stages[0].advance"],
    ])("returns 400 naming the field for %s, and changes nothing", async (_what, body, field) => {
      const t = await tenant();
      const created = await createTournament(t, { stages: groupsIntoPlayoffs() });
      const res = await t.request("PATCH", `/tournaments/${created.id}`, { body });
      expectError(res, 400, "validation_error", [field]);
      expect((await t.request("GET", `/tournaments/${created.id}`)).body.data).toEqual(created);
    });
  });

  describe("once ongoing", () => {
    const GROUPS = { name: "Groups", format: "round_robin", advance: { per_group: 2 } };
    /** Groups (or another first stage) into playoffs, started with 4 teams. */
    async function started(t: Tenant, first: Record<string, unknown> = GROUPS) {
      const created = await createTournament(t, { stages: [first, { name: "Playoffs", format: "single_elimination" }] });
      await registerTeams(t, created.id, 4, "Staged");
      const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } });
      expectStatus(res, 200);
      return res.body.data;
    }

    const SWISS = { name: "Swiss", format: "swiss", format_options: { rounds: 2 }, advance: { top: 2 } };
    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      ["stages", { stages: [{ format: "swiss" }] }, GROUPS],
      ["stages (a later stage's options)", {
        stages: [
          GROUPS,
          { name: "Playoffs", format: "single_elimination", format_options: { third_place_match: true, best_of: 1, final_best_of: 1 } },
        ],
      }, GROUPS],
      ["format", { format: "double_elimination" }, SWISS],
      ["format_options", { format_options: { groups: 2 } }, GROUPS],
      ["format_options (swiss rounds)", { format_options: { rounds: 1 } }, SWISS],
    ])("returns 409 tournament_locked when %s changes, and changes nothing", async (_what, body, first) => {
      const t = await tenant();
      const ongoing = await started(t, first);
      const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { name: "Not applied", ...body } });
      expectError(res, 409, "tournament_locked");
      expect(res.body.error.message).toContain(Object.keys(body)[0]);
      expect((await t.request("GET", `/tournaments/${ongoing.id}`)).body.data).toEqual(ongoing);
    });

    it("accepts the stages sent back as they are", async () => {
      const t = await tenant();
      const ongoing = await started(t);
      const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { name: "Same stages", stages: ongoing.stages } });
      expectStatus(res, 200);
      expect(res.body.data).toEqual({
        ...ongoing,
        name: "Same stages",
        updated_at: res.body.data.updated_at,
        version: ongoing.version + 1,
      });
    });

    it("still checks the stages first: an invalid definition is a 400, not a 409", async () => {
      const t = await tenant();
      const ongoing = await started(t);
      const res = await t.request("PATCH", `/tournaments/${ongoing.id}`, { body: { stages: [stage()] } });
      expectError(res, 400, "validation_error", ["stages[0].advance"]);
    });
  });

  it("returns 409 invalid_status_transition at the start when stage 1 cannot give the K teams its advance asks for", async () => {
    const t = await tenant();
    const created = await createTournament(t, { stages: [stage({ advance: { top: 4 } }), last()] });
    await registerTeams(t, created.id, 3, "Short");
    const res = await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } });
    expectError(res, 409, "invalid_status_transition");
    expect(res.body.error.message).toMatch(/4/);
    expect((await stored(created.id)).status).toBe("registration");
    await registerTeams(t, created.id, 1, "Fourth");
    expectStatus(await t.request("PATCH", `/tournaments/${created.id}`, { body: { status: "ongoing" } }), 200);
  });
});
