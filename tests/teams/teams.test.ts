// Teams through the API (contract section 9, issue 12): create, read, list (search, owned,
// paging in Postgres's `order by name, id`), update and delete by the owning account only,
// team_in_use, and the races of a delete with a registration and with a tournament start.
// Teams are shared by every account, so each test names its teams with a token of its own and
// reads the list through `search`, never through the whole table (other files add teams too).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ApiResponse,
  apiUrl,
  createKey,
  createTournament,
  expectError,
  expectStatus,
  request,
  sql,
  type Tenant,
  tenant,
} from "../support/helpers.ts";

const TEAM_FIELDS = ["created_at", "id", "logo_url", "name", "owned", "tag"];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

interface Team {
  id: string;
  name: string;
  tag: string;
  logo_url: string | null;
  owned: boolean;
  created_at: string;
}

/** A lower-case token no other test uses, to find this test's teams with `search`. */
function token(): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  let s = "zq";
  for (const b of crypto.getRandomValues(new Uint8Array(10))) s += letters[b % 26];
  return s;
}

async function createTeam(t: Tenant, body: Record<string, unknown>, key = t.key): Promise<Team> {
  const res = await request("POST", "/teams", { key, body });
  expectStatus(res, 201);
  return res.body.data;
}

/** A team made by the operator (no owning account). */
async function platformTeam(name: string, tag: string, logo: string | null = null): Promise<string> {
  const [{ id }] = await sql<{ id: string }>("select admin.create_team($1, $2, $3) as id", [name, tag, logo]);
  return id;
}

async function teamExists(id: string): Promise<boolean> {
  const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.teams where id = $1", [id]);
  return n === 1;
}

async function teamRow(id: string) {
  const [row] = await sql("select name, tag, logo_url from app.teams where id = $1", [id]);
  return row;
}

/** The ids in the order Postgres gives them with `order by name, id`. */
async function pgOrder(ids: string[]): Promise<string[]> {
  const rows = await sql<{ id: string }>("select id from app.teams where id = any($1::uuid[]) order by name, id", [ids]);
  return rows.map((r) => r.id);
}

const ids = (res: ApiResponse) => res.body.data.map((d: { id: string }) => d.id);

function register(t: Tenant, tournamentId: string, teamId: string, key = t.key) {
  return request("POST", `/tournaments/${tournamentId}/registrations`, { key, body: { team_id: teamId } });
}

async function registrationsOf(teamId: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.registrations where team_id = $1", [teamId]);
  return n;
}

/** A tournament of `t` with `teams` registered in order, then started. */
async function ongoingWith(t: Tenant, teams: string[]) {
  const tournament = await createTournament(t, { max_teams: Math.max(teams.length, 2) });
  for (const team of teams) expectStatus(await register(t, tournament.id, team), 201);
  expectStatus(await t.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
  return tournament;
}

// ---------------------------------------------------------------------------------------------
describe("POST /teams", () => {
  it("creates a team owned by the caller: 201, Location, every field", async () => {
    const t = await tenant();
    const before = Date.now();
    const res = await t.request("POST", "/teams", {
      body: { name: "Night Owls", tag: "OWL", logo_url: "https://cdn.example.com/owl.png" },
    });
    expectStatus(res, 201);
    expect(res.body.success).toBe(true);
    const team = res.body.data;
    expect(Object.keys(team).sort()).toEqual(TEAM_FIELDS);
    expect(team).toMatchObject({ name: "Night Owls", tag: "OWL", logo_url: "https://cdn.example.com/owl.png", owned: true });
    expect(team.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(team.created_at).toMatch(ISO_UTC);
    expect(Date.parse(team.created_at)).toBeGreaterThanOrEqual(before - 5_000);
    expect(Date.parse(team.created_at)).toBeLessThanOrEqual(Date.now() + 5_000);
    expect(res.headers.get("location")).toBe(`${apiUrl()}/teams/${team.id}`);
    expect(await teamRow(team.id)).toEqual({ name: "Night Owls", tag: "OWL", logo_url: "https://cdn.example.com/owl.png" });

    const got = await request("GET", res.headers.get("location")!.slice(apiUrl().length), { key: t.key });
    expectStatus(got, 200);
    expect(got.body.data).toEqual(team);
  });

  it("returns logo_url null when none is given, or when null is given", async () => {
    const t = await tenant();
    expect((await createTeam(t, { name: "No Logo", tag: "NL" })).logo_url).toBeNull();
    expect((await createTeam(t, { name: "Null Logo", tag: "NUL", logo_url: null })).logo_url).toBeNull();
  });

  it("trims name and tag and counts their length after trimming", async () => {
    const t = await tenant();
    const name = "n".repeat(100);
    const tag = "t".repeat(20);
    const team = await createTeam(t, { name: `  ${name} `, tag: ` ${tag}  ` });
    expect(team.name).toBe(name);
    expect(team.tag).toBe(tag);
  });

  it.each([
    ["a one-character name and tag", { name: "A", tag: "B" }],
    ["an http logo_url", { name: "Plain", tag: "HTTP", logo_url: "http://example.com/a.png" }],
    ["a logo_url of exactly 2,048 characters", { name: "Long Logo", tag: "LL", logo_url: `https://example.com/${"a".repeat(2048 - 20)}` }],
  ])("accepts %s", async (_what, body) => {
    const t = await tenant();
    const team = await createTeam(t, body);
    expect(team).toMatchObject(body);
  });

  it("allows names and tags that other teams already use", async () => {
    const t = await tenant();
    const other = await tenant();
    const name = `Same ${token()}`;
    const a = await createTeam(t, { name, tag: "SAME" });
    const b = await createTeam(t, { name, tag: "SAME" });
    const c = await createTeam(other, { name, tag: "SAME" });
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
  });

  describe("strict body", () => {
    const cases: [string, unknown, string][] = [
      ["a missing name", { tag: "X" }, "name"],
      ["a missing tag", { name: "X" }, "tag"],
      ["an empty name", { name: "", tag: "X" }, "name"],
      ["a name of spaces", { name: "   ", tag: "X" }, "name"],
      ["a name of 101 characters", { name: "n".repeat(101), tag: "X" }, "name"],
      ["a name that is a number", { name: 42, tag: "X" }, "name"],
      ["a null name", { name: null, tag: "X" }, "name"],
      ["an empty tag", { name: "X", tag: "" }, "tag"],
      ["a tag of spaces", { name: "X", tag: "  " }, "tag"],
      ["a tag of 21 characters", { name: "X", tag: "t".repeat(21) }, "tag"],
      ["a logo_url that is not a URL", { name: "X", tag: "X", logo_url: "not a url" }, "logo_url"],
      ["an ftp logo_url", { name: "X", tag: "X", logo_url: "ftp://example.com/a.png" }, "logo_url"],
      ["a javascript: logo_url", { name: "X", tag: "X", logo_url: "javascript:alert(1)" }, "logo_url"],
      ["a logo_url of 2,049 characters", { name: "X", tag: "X", logo_url: `https://example.com/${"a".repeat(2049 - 20)}` }, "logo_url"],
      ["a logo_url that is a number", { name: "X", tag: "X", logo_url: 7 }, "logo_url"],
      ["a logo_url without a host", { name: "X", tag: "X", logo_url: "https://" }, "logo_url"],
      ["an empty logo_url", { name: "X", tag: "X", logo_url: "" }, "logo_url"],
      ["an unknown field", { name: "X", tag: "X", country: "SE" }, "country"],
      ["the read-only owned", { name: "X", tag: "X", owned: false }, "owned"],
      ["the read-only id", { name: "X", tag: "X", id: UNKNOWN_ID }, "id"],
      ["an account_id", { name: "X", tag: "X", account_id: UNKNOWN_ID }, "account_id"],
    ];
    it.each(cases)("returns 400 validation_error naming the field for %s, and creates nothing", async (_what, body, field) => {
      const t = await tenant();
      // A name no other team has, where the fault lies elsewhere, to count what was made.
      const marker = `Refused ${token()}`;
      const sent = field === "name" ? body : { ...(body as object), name: marker };
      expectError(await t.request("POST", "/teams", { body: sent }), 400, "validation_error", [field]);
      const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.teams where name = $1", [marker]);
      expect(n).toBe(0);
    });

    it("returns 400 invalid_json for a body that is not a JSON object", async () => {
      const t = await tenant();
      for (const raw of ["[]", '"team"', '{"name": ']) {
        const res = await t.request("POST", "/teams", { rawBody: raw, headers: { "content-type": "application/json" } });
        expectError(res, 400, "invalid_json");
      }
    });
  });

  it("makes a team that any account can register, the owner's included", async () => {
    const owner = await tenant();
    const other = await tenant();
    const team = await createTeam(owner, { name: "Open Door", tag: "OD" });
    for (const t of [owner, other]) {
      const tournament = await createTournament(t);
      const res = await register(t, tournament.id, team.id);
      expectStatus(res, 201);
      expect(res.body.data.teams).toMatchObject({ id: team.id, name: "Open Door", tag: "OD", logo_url: null });
    }
  });

  describe("Idempotency-Key", () => {
    it("replays the first 201 for the same key and body, creating one team", async () => {
      const t = await tenant();
      const body = { name: `Retry ${token()}`, tag: "RT" };
      const first = await t.request("POST", "/teams", { body, headers: { "idempotency-key": "team-1" } });
      expectStatus(first, 201);
      const again = await t.request("POST", "/teams", { body, headers: { "idempotency-key": "team-1" } });
      expectStatus(again, 201);
      expect(again.text).toBe(first.text);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("location")).toBe(first.headers.get("location"));
      const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.teams where name = $1", [body.name]);
      expect(n).toBe(1);
    });

    it("answers 422 idempotency_mismatch for the same key with another body, creating nothing more", async () => {
      const t = await tenant();
      const name = `Mismatch ${token()}`;
      expectStatus(await t.request("POST", "/teams", { body: { name, tag: "A" }, headers: { "idempotency-key": "team-2" } }), 201);
      const other = await t.request("POST", "/teams", { body: { name, tag: "B" }, headers: { "idempotency-key": "team-2" } });
      expectError(other, 422, "idempotency_mismatch");
      const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.teams where name = $1", [name]);
      expect(n).toBe(1);
    });

    it("does not save a 400, so the corrected request can reuse the key", async () => {
      const t = await tenant();
      const name = `Corrected ${token()}`;
      expectError(
        await t.request("POST", "/teams", { body: { name, tag: "" }, headers: { "idempotency-key": "team-3" } }),
        400,
        "validation_error",
        ["tag"],
      );
      const ok = await t.request("POST", "/teams", { body: { name, tag: "OK" }, headers: { "idempotency-key": "team-3" } });
      expectStatus(ok, 201);
      expect(ok.headers.get("idempotent-replayed")).toBeNull();
    });
  });

  it("returns 403 insufficient_scope naming write:teams without it, and creates nothing", async () => {
    const t = await tenant(["read:teams", "read:tournaments", "write:tournaments", "read:registrations", "write:registrations"]);
    const name = `Scopeless ${token()}`;
    const res = await t.request("POST", "/teams", { body: { name, tag: "S" } });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:teams");
    const [{ n }] = await sql<{ n: number }>("select count(*)::int n from app.teams where name = $1", [name]);
    expect(n).toBe(0);
    const only = await tenant(["write:teams"]);
    expectStatus(await only.request("POST", "/teams", { body: { name, tag: "S" } }), 201);
  });
});

// ---------------------------------------------------------------------------------------------
describe("GET /teams/{team_id}", () => {
  it("shows the caller's own team as owned, a platform team and another account's team as not owned", async () => {
    const me = await tenant();
    const other = await tenant();
    const mine = await createTeam(me, { name: "Mine", tag: "ME" });
    const theirs = await createTeam(other, { name: "Theirs", tag: "TH", logo_url: "https://example.com/th.png" });
    const platform = await platformTeam("Platform Five", "P5", "https://example.com/p5.png");

    const own = await me.request("GET", `/teams/${mine.id}`);
    expectStatus(own, 200);
    expect(own.body.data).toEqual(mine);

    const res = await me.request("GET", `/teams/${theirs.id}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ ...theirs, owned: false });
    expect(res.text).not.toContain(other.accountId);

    const p = await me.request("GET", `/teams/${platform}`);
    expectStatus(p, 200);
    expect(Object.keys(p.body.data).sort()).toEqual(TEAM_FIELDS);
    expect(p.body.data).toMatchObject({
      id: platform,
      name: "Platform Five",
      tag: "P5",
      logo_url: "https://example.com/p5.png",
      owned: false,
    });
    expect(p.body.data.created_at).toMatch(ISO_UTC);

    // The owner sees it as its own.
    expect((await other.request("GET", `/teams/${theirs.id}`)).body.data.owned).toBe(true);
  });

  it("returns 404 for an unknown id and for a malformed one", async () => {
    const t = await tenant();
    expectError(await t.request("GET", `/teams/${UNKNOWN_ID}`), 404, "not_found");
    expectError(await t.request("GET", "/teams/not-a-uuid"), 404, "not_found");
  });

  it("returns 403 insufficient_scope naming read:teams without it", async () => {
    const t = await tenant(["write:teams", "read:tournaments"]);
    const team = await createTeam(t, { name: "Unread", tag: "UR" });
    const res = await t.request("GET", `/teams/${team.id}`);
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("read:teams");
    const only = await tenant(["read:teams"]);
    expectStatus(await only.request("GET", `/teams/${team.id}`), 200);
  });
});

// ---------------------------------------------------------------------------------------------
describe("GET /teams", () => {
  /** Teams of three owners under one token: the platform, account A (the caller) and account B. */
  async function mixed(tok: string) {
    const a = await tenant();
    const b = await tenant();
    const platform = [
      await platformTeam(`Echo ${tok}`, "E1"),
      await platformTeam(`alpha ${tok}`, "A1"),
      await platformTeam(`Bravo ${tok}`, "B1", "https://example.com/b.png"),
    ];
    const mine = [
      (await createTeam(a, { name: `Delta ${tok}`, tag: "D1" })).id,
      (await createTeam(a, { name: `Charlie ${tok}`, tag: "C1" })).id,
    ];
    const theirs = [
      (await createTeam(b, { name: `Foxtrot ${tok}`, tag: "F1" })).id,
      (await createTeam(b, { name: `Bravo ${tok}`, tag: "B2" })).id,
    ];
    return { a, b, platform, mine, theirs, all: [...platform, ...mine, ...theirs] };
  }

  it("lists platform teams and every account's teams, ordered as Postgres orders by name, id", async () => {
    const tok = token();
    const w = await mixed(tok);
    const res = await w.a.request("GET", `/teams?search=${tok}`);
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.pagination).toEqual({ page: 1, limit: 20, total: 7, next_cursor: null });
    expect(ids(res)).toEqual(await pgOrder(w.all));
    for (const team of res.body.data) {
      expect(Object.keys(team).sort()).toEqual(TEAM_FIELDS);
      expect(team.owned, team.name).toBe(w.mine.includes(team.id));
      expect(team.created_at).toMatch(ISO_UTC);
    }
    const bravo = res.body.data.find((x: Team) => x.id === w.platform[2]);
    expect(bravo).toMatchObject({ name: `Bravo ${tok}`, tag: "B1", logo_url: "https://example.com/b.png", owned: false });
    // The same list from account B: its own teams are the owned ones.
    const fromB = await w.b.request("GET", `/teams?search=${tok}`);
    expectStatus(fromB, 200);
    expect(ids(fromB)).toEqual(ids(res));
    for (const team of fromB.body.data) expect(team.owned).toBe(w.theirs.includes(team.id));
  });

  it("orders teams of the same name by id", async () => {
    const tok = token();
    const t = await tenant();
    const made = [];
    for (let i = 0; i < 6; i++) {
      made.push(i % 2 ? await platformTeam(`Twin ${tok}`, `P${i}`) : (await createTeam(t, { name: `Twin ${tok}`, tag: `A${i}` })).id);
    }
    const res = await t.request("GET", `/teams?search=${tok}`);
    expectStatus(res, 200);
    expect(ids(res)).toEqual(await pgOrder(made));
    expect(ids(res)).toEqual([...made].sort());
  });

  it("shows a team made an instant ago, and its changes", async () => {
    const tok = token();
    const t = await tenant();
    const team = await createTeam(t, { name: `Fresh ${tok}`, tag: "FR" });
    expect(ids(await t.request("GET", `/teams?search=${tok}`))).toEqual([team.id]);
    expectStatus(await t.request("PATCH", `/teams/${team.id}`, { body: { name: `Renamed ${tok}` } }), 200);
    const after = await t.request("GET", `/teams?search=${tok}`);
    expect(after.body.data.map((x: Team) => x.name)).toEqual([`Renamed ${tok}`]);
  });

  describe("search", () => {
    it("matches a substring of the name or of the tag, ignoring case", async () => {
      const tok = token();
      const t = await tenant();
      const upper = tok.toUpperCase();
      const byName = await platformTeam(`The ${upper}s`, "N1");
      const byTag = (await createTeam(t, { name: "Nothing In Name", tag: `x${tok.slice(0, 12)}` })).id;
      const neither = await platformTeam(`Neither ${tok.slice(0, 5)}`, "N3");
      for (
        const q of [
          tok.slice(0, 12),
          tok.slice(0, 12).toUpperCase(),
          tok.slice(2, 10),
          `${tok.slice(0, 1).toUpperCase()}${tok.slice(1, 12)}`,
        ]
      ) {
        const res = await t.request("GET", `/teams?search=${encodeURIComponent(q)}`);
        expectStatus(res, 200);
        expect(ids(res), q).toEqual(await pgOrder([byName, byTag]));
        expect(res.body.pagination.total).toBe(2);
      }
      const whole = await t.request("GET", `/teams?search=${encodeURIComponent(`the ${tok}S`)}`);
      expect(ids(whole)).toEqual([byName]);
      expect(ids(await t.request("GET", `/teams?search=${tok.slice(0, 5)}`))).toContain(neither);
    });

    it.each([
      ["%", "50% Club", "50x Club"],
      ["_", "a_b Crew", "aXb Crew"],
      ["\\", "Back\\slash", "Backslash"],
    ])("takes %s as a literal character", async (ch, literal, lookalike) => {
      const tok = token();
      const t = await tenant();
      const hit = await platformTeam(`${tok} ${literal}`, "L1");
      const miss = await platformTeam(`${tok} ${lookalike}`, "L2");
      const needle = literal.slice(literal.indexOf(ch) - 1, literal.indexOf(ch) + 2);
      const res = await t.request("GET", `/teams?search=${encodeURIComponent(`${tok} ${literal.split(" ")[0]}`)}`);
      expectStatus(res, 200);
      expect(ids(res)).toEqual([hit]);
      const short = await t.request("GET", `/teams?search=${encodeURIComponent(needle)}`);
      expectStatus(short, 200);
      expect(ids(short)).toContain(hit);
      expect(ids(short)).not.toContain(miss);
      // The character alone, and at the end of the search, never an error.
      for (const q of [ch, `${tok} ${ch}`, `${ch}${ch}`]) {
        const r = await t.request("GET", `/teams?search=${encodeURIComponent(q)}`);
        expectStatus(r, 200);
        if (q === `${tok} ${ch}`) expect(ids(r)).toEqual([]);
      }
    });

    it("accepts a search of 100 characters and refuses 101 with 400 naming search", async () => {
      const t = await tenant();
      const ok = await t.request("GET", `/teams?search=${"q".repeat(100)}`);
      expectStatus(ok, 200);
      expect(ok.body.data).toEqual([]);
      expect(ok.body.pagination.total).toBe(0);
      expectError(await t.request("GET", `/teams?search=${"q".repeat(101)}`), 400, "validation_error", ["search"]);
    });
  });

  describe("owned", () => {
    it("owned=true keeps the caller's teams, owned=false the others", async () => {
      const tok = token();
      const w = await mixed(tok);
      const own = await w.a.request("GET", `/teams?search=${tok}&owned=true`);
      expectStatus(own, 200);
      expect(ids(own)).toEqual(await pgOrder(w.mine));
      expect(own.body.pagination.total).toBe(2);
      for (const team of own.body.data) expect(team.owned).toBe(true);
      const others = await w.a.request("GET", `/teams?search=${tok}&owned=false`);
      expectStatus(others, 200);
      expect(ids(others)).toEqual(await pgOrder([...w.platform, ...w.theirs]));
      expect(others.body.pagination.total).toBe(5);
      for (const team of others.body.data) expect(team.owned).toBe(false);
    });

    it("owned=true without search lists exactly the caller's teams", async () => {
      const t = await tenant();
      const made = [];
      for (const name of ["Zulu", "Yankee", "Xray"]) made.push((await createTeam(t, { name, tag: name.slice(0, 2) })).id);
      const res = await t.request("GET", "/teams?owned=true");
      expectStatus(res, 200);
      expect(ids(res)).toEqual(await pgOrder(made));
      expect(res.body.pagination.total).toBe(3);
      const fresh = await tenant();
      const none = await fresh.request("GET", "/teams?owned=true");
      expectStatus(none, 200);
      expect(none.body.data).toEqual([]);
      expect(none.body.pagination.total).toBe(0);
    });

    it.each(["yes", "1", "0", "TRUE", "False", "", "null"])("returns 400 naming owned for owned=%j", async (value) => {
      const t = await tenant();
      expectError(await t.request("GET", `/teams?owned=${value}`), 400, "validation_error", ["owned"]);
    });
  });

  describe("paging", () => {
    it("pages with page and limit, reporting the true total, and an empty page past the end", async () => {
      const tok = token();
      const t = await tenant();
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await platformTeam(`Page ${tok} ${"edcba"[i]}`, `P${i}`));
      const want = await pgOrder(made);
      const seen = [];
      for (let page = 1; page <= 3; page++) {
        const res = await t.request("GET", `/teams?search=${tok}&limit=2&page=${page}`);
        expectStatus(res, 200);
        expect(res.body.pagination).toEqual({ page, limit: 2, total: 5, next_cursor: null });
        seen.push(...ids(res));
      }
      expect(seen).toEqual(want);
      const past = await t.request("GET", `/teams?search=${tok}&limit=2&page=4`);
      expectStatus(past, 200);
      expect(past.body.data).toEqual([]);
      expect(past.body.pagination).toEqual({ page: 4, limit: 2, total: 5, next_cursor: null });
      const big = await t.request("GET", `/teams?search=${tok}&limit=100`);
      expectStatus(big, 200);
      expect(ids(big)).toEqual(want);
    });

    it("lists in name, id order across the whole platform (first page, no filter)", async () => {
      const t = await tenant();
      await platformTeam("!!! first by name", "FIRST");
      const res = await t.request("GET", "/teams?limit=100");
      expectStatus(res, 200);
      expect(res.body.data.length).toBeGreaterThan(0);
      expect(ids(res)).toEqual(await pgOrder(ids(res)));
      expect(res.body.pagination.total).toBeGreaterThanOrEqual(res.body.data.length);
      expect(res.body.pagination).toMatchObject({ page: 1, limit: 100, next_cursor: null });
    });

    it.each([
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=abc", "page"],
      ["page=1.5", "page"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["limit=x", "limit"],
      ["limit=", "limit"],
    ])("returns 400 validation_error for %s", async (query, field) => {
      const t = await tenant();
      expectError(await t.request("GET", `/teams?${query}`), 400, "validation_error", [field]);
    });

    it("walks every team of a search exactly once, in Postgres's order, for any teams and any limit (property)", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              name: fc.constantFrom("Ant", "ant", "Bee", "bee", "Cat", "Ant Hill", "Zed", "_x", "%y", "Émile"),
              owner: fc.constantFrom("platform", "a", "b"),
            }),
            { maxLength: 12 },
          ),
          fc.integer({ min: 1, max: 5 }),
          fc.constantFrom(undefined, "true", "false"),
          async (rows, limit, owned) => {
            const tok = token();
            const a = await tenant();
            const b = await tenant();
            const mine: string[] = [];
            const all: string[] = [];
            for (const [i, row] of rows.entries()) {
              const name = `${row.name} ${tok}`;
              if (row.owner === "platform") all.push(await platformTeam(name, `T${i}`));
              else {
                const id = (await createTeam(row.owner === "a" ? a : b, { name, tag: `T${i}` })).id;
                all.push(id);
                if (row.owner === "a") mine.push(id);
              }
            }
            const kept = owned === undefined ? all : all.filter((id) => mine.includes(id) === (owned === "true"));
            const want = await pgOrder(kept);
            const { key } = await createKey(a.accountId);
            const seen: string[] = [];
            for (let page = 1; page <= Math.ceil(want.length / limit) + 1; page++) {
              const res = await request("GET", `/teams?search=${tok}&limit=${limit}&page=${page}${owned ? `&owned=${owned}` : ""}`, {
                key,
              });
              expectStatus(res, 200);
              expect(res.body.pagination).toEqual({ page, limit, total: want.length, next_cursor: null });
              expect(res.body.data.length).toBe(Math.max(0, Math.min(limit, want.length - (page - 1) * limit)));
              for (const team of res.body.data) expect(team.owned).toBe(mine.includes(team.id));
              seen.push(...ids(res));
            }
            expect(seen).toEqual(want);
            expect(new Set(seen).size).toBe(seen.length);
          },
        ),
        { numRuns: 15 },
      );
    }, 120_000);
  });

  it("returns 403 insufficient_scope naming read:teams without it", async () => {
    const t = await tenant(["write:teams", "read:tournaments", "read:registrations"]);
    const res = await t.request("GET", "/teams");
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("read:teams");
  });
});

// ---------------------------------------------------------------------------------------------
describe("PATCH /teams/{team_id}", () => {
  it("changes any subset of name, tag and logo_url, leaving the rest", async () => {
    const t = await tenant();
    const team = await createTeam(t, { name: "Before", tag: "BF", logo_url: "https://example.com/1.png" });
    const name = await t.request("PATCH", `/teams/${team.id}`, { body: { name: "  After  " } });
    expectStatus(name, 200);
    expect(name.body.data).toEqual({ ...team, name: "After" });
    const tag = await t.request("PATCH", `/teams/${team.id}`, { body: { tag: "AF" } });
    expectStatus(tag, 200);
    expect(tag.body.data).toEqual({ ...team, name: "After", tag: "AF" });
    const logo = await t.request("PATCH", `/teams/${team.id}`, { body: { logo_url: null } });
    expectStatus(logo, 200);
    expect(logo.body.data).toEqual({ ...team, name: "After", tag: "AF", logo_url: null });
    const all = await t.request("PATCH", `/teams/${team.id}`, {
      body: { name: "Third", tag: "3RD", logo_url: "http://example.com/3.png" },
    });
    expectStatus(all, 200);
    expect(all.body.data).toEqual({ ...team, name: "Third", tag: "3RD", logo_url: "http://example.com/3.png" });
    expect((await t.request("GET", `/teams/${team.id}`)).body.data).toEqual(all.body.data);
    expect(await teamRow(team.id)).toEqual({ name: "Third", tag: "3RD", logo_url: "http://example.com/3.png" });
  });

  it("shows the new name in the registrations of the team, in any account", async () => {
    const owner = await tenant();
    const other = await tenant();
    const team = await createTeam(owner, { name: "Old Name", tag: "ON" });
    const tournament = await createTournament(other);
    const reg = await register(other, tournament.id, team.id);
    expectStatus(reg, 201);
    expectStatus(
      await owner.request("PATCH", `/teams/${team.id}`, { body: { name: "New Name", logo_url: "https://example.com/n.png" } }),
      200,
    );
    const got = await other.request("GET", `/tournaments/${tournament.id}/registrations/${reg.body.data.id}`);
    expectStatus(got, 200);
    expect(got.body.data.teams).toEqual({ id: team.id, name: "New Name", tag: "ON", logo_url: "https://example.com/n.png" });
  });

  const invalid: [string, unknown, string][] = [
    ["an empty name", { name: "" }, "name"],
    ["a name of spaces", { name: "  " }, "name"],
    ["a name of 101 characters", { name: "n".repeat(101) }, "name"],
    ["a null name", { name: null }, "name"],
    ["a tag of 21 characters", { tag: "t".repeat(21) }, "tag"],
    ["a null tag", { tag: null }, "tag"],
    ["an ftp logo_url", { logo_url: "ftp://example.com/x" }, "logo_url"],
    ["an unknown field", { colour: "red" }, "colour"],
    ["the read-only owned", { owned: true }, "owned"],
    ["the read-only created_at", { created_at: "2026-01-01T00:00:00Z" }, "created_at"],
  ];
  it.each(invalid)("returns 400 validation_error naming the field for %s, changing nothing", async (_what, body, field) => {
    const t = await tenant();
    const team = await createTeam(t, { name: "Stable", tag: "ST" });
    expectError(await t.request("PATCH", `/teams/${team.id}`, { body }), 400, "validation_error", [field]);
    expect(await teamRow(team.id)).toEqual({ name: "Stable", tag: "ST", logo_url: null });
  });

  it("returns 400 for an empty body", async () => {
    const t = await tenant();
    const team = await createTeam(t, { name: "Empty", tag: "E" });
    expectError(await t.request("PATCH", `/teams/${team.id}`, { body: {} }), 400, "validation_error");
  });

  it("returns 403 team_not_owned for a platform team, naming no account, and changes nothing", async () => {
    const t = await tenant();
    const id = await platformTeam("Operator Made", "OP");
    const res = await t.request("PATCH", `/teams/${id}`, { body: { name: "Hijacked" } });
    expectError(res, 403, "team_not_owned");
    expect(await teamRow(id)).toEqual({ name: "Operator Made", tag: "OP", logo_url: null });
  });

  it("returns 403 team_not_owned for another account's team, never naming the owner, and changes nothing", async () => {
    const owner = await tenant();
    await sql("update app.accounts set name = 'Secret Owner Esports' where id = $1", [owner.accountId]);
    const intruder = await tenant();
    const team = await createTeam(owner, { name: "Guarded", tag: "GD" });
    for (const body of [{ name: "Hijacked" }, { logo_url: null }, { tag: "GD" }]) {
      const res = await intruder.request("PATCH", `/teams/${team.id}`, { body });
      expectError(res, 403, "team_not_owned");
      expect(res.text).not.toContain(owner.accountId);
      expect(res.text).not.toContain("Secret Owner");
      expect(res.text).not.toContain(owner.keyId);
    }
    // Another key of the owning account may.
    const { key } = await owner.newKey();
    expectStatus(await request("PATCH", `/teams/${team.id}`, { key, body: { tag: "G2" } }), 200);
    expect(await teamRow(team.id)).toEqual({ name: "Guarded", tag: "G2", logo_url: null });
  });

  it("checks the body before the team: 400 for an invalid body on any team", async () => {
    const owner = await tenant();
    const intruder = await tenant();
    const team = await createTeam(owner, { name: "Order", tag: "OR" });
    expectError(await intruder.request("PATCH", `/teams/${team.id}`, { body: { name: "" } }), 400, "validation_error", ["name"]);
    expectError(await intruder.request("PATCH", `/teams/${UNKNOWN_ID}`, { body: { name: "" } }), 400, "validation_error", ["name"]);
  });

  it("returns 404 for an unknown team", async () => {
    const t = await tenant();
    expectError(await t.request("PATCH", `/teams/${UNKNOWN_ID}`, { body: { name: "Ghost" } }), 404, "not_found");
    expectError(await t.request("PATCH", "/teams/not-a-uuid", { body: { name: "Ghost" } }), 404, "not_found");
  });

  it("returns 403 insufficient_scope naming write:teams without it", async () => {
    const t = await tenant();
    const team = await createTeam(t, { name: "Scoped", tag: "SC" });
    const { key } = await t.newKey(["read:teams"]);
    const res = await request("PATCH", `/teams/${team.id}`, { key, body: { name: "Changed" } });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:teams");
    expect((await teamRow(team.id)).name).toBe("Scoped");
  });
});

// ---------------------------------------------------------------------------------------------
describe("DELETE /teams/{team_id}", () => {
  it("deletes the caller's team: 200 Team deleted, then 404 and gone from the list", async () => {
    const tok = token();
    const t = await tenant();
    const team = await createTeam(t, { name: `Doomed ${tok}`, tag: "DM" });
    const res = await t.request("DELETE", `/teams/${team.id}`);
    expectStatus(res, 200);
    expect(res.body.success).toBe(true);
    expect(res.body.data).toEqual({ message: "Team deleted" });
    expect(await teamExists(team.id)).toBe(false);
    expectError(await t.request("GET", `/teams/${team.id}`), 404, "not_found");
    expect(ids(await t.request("GET", `/teams?search=${tok}`))).toEqual([]);
    expectError(await t.request("DELETE", `/teams/${team.id}`), 404, "not_found");
  });

  it("returns 403 team_not_owned for a platform team and for another account's team, deleting nothing", async () => {
    const owner = await tenant();
    await sql("update app.accounts set name = 'Hidden Owner Esports' where id = $1", [owner.accountId]);
    const intruder = await tenant();
    const theirs = await createTeam(owner, { name: "Keep Out", tag: "KO" });
    const platform = await platformTeam("Keep Platform", "KP");
    for (const id of [theirs.id, platform]) {
      const res = await intruder.request("DELETE", `/teams/${id}`);
      expectError(res, 403, "team_not_owned");
      expect(res.text).not.toContain(owner.accountId);
      expect(res.text).not.toContain("Hidden Owner");
      expect(await teamExists(id)).toBe(true);
    }
  });

  it("returns 404 for an unknown team", async () => {
    const t = await tenant();
    expectError(await t.request("DELETE", `/teams/${UNKNOWN_ID}`), 404, "not_found");
  });

  it("removes the team's registrations in tournaments still in registration, in every account", async () => {
    const owner = await tenant();
    const other = await tenant();
    const team = await createTeam(owner, { name: "Leaving", tag: "LV" });
    const [stay] = [await createTeam(other, { name: "Staying", tag: "SY" })];
    const ownT = await createTournament(owner);
    const otherT = await createTournament(other, { max_teams: 2 });
    expectStatus(await register(owner, ownT.id, team.id), 201);
    expectStatus(await register(other, otherT.id, team.id), 201);
    expectStatus(await register(other, otherT.id, stay.id), 201);
    expect(await registrationsOf(team.id)).toBe(2);

    const res = await owner.request("DELETE", `/teams/${team.id}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual({ message: "Team deleted" });
    expect(await registrationsOf(team.id)).toBe(0);
    expect(await teamExists(team.id)).toBe(false);
    const list = await other.request("GET", `/tournaments/${otherT.id}/registrations`);
    expectStatus(list, 200);
    expect(list.body.data.map((r: { team_id: string }) => r.team_id)).toEqual([stay.id]);
    // The slot it held is free.
    const newcomer = await createTeam(other, { name: "Newcomer", tag: "NC" });
    expectStatus(await register(other, otherT.id, newcomer.id), 201);
  });

  it.each(["ongoing", "completed"])(
    "returns 409 team_in_use when the team is in another account's %s tournament, and keeps everything",
    async (status) => {
      const owner = await tenant();
      const organiser = await tenant();
      const team = await createTeam(owner, { name: `Busy ${status}`, tag: "BZ" });
      const rival = await createTeam(organiser, { name: "Rival", tag: "RV" });
      const busy = await ongoingWith(organiser, [team.id, rival.id]);
      if (status === "completed") {
        const results = await organiser.request("GET", `/tournaments/${busy.id}/results`);
        const [final] = results.body.data.matches;
        expectStatus(
          await organiser.request("PATCH", `/tournaments/${busy.id}/matches/${final.id}`, { body: { team1_score: 1, team2_score: 0 } }),
          200,
        );
        expectStatus(await organiser.request("PATCH", `/tournaments/${busy.id}`, { body: { status: "completed" } }), 200);
      }
      // Also registered in an open tournament of its owner: that registration must stay too.
      const open = await createTournament(owner);
      expectStatus(await register(owner, open.id, team.id), 201);

      const res = await owner.request("DELETE", `/teams/${team.id}`);
      expectError(res, 409, "team_in_use");
      expect(res.text).not.toContain(organiser.accountId);
      expect(await teamExists(team.id)).toBe(true);
      expect(await registrationsOf(team.id)).toBe(2);
      const results = await organiser.request("GET", `/tournaments/${busy.id}/results`);
      expectStatus(results, 200);
      expect(results.body.data.matches[0].team1_id).toBe(team.id);
    },
  );

  it("returns 409 team_in_use for a team registered in a started tournament without taking part (not checked in)", async () => {
    const owner = await tenant();
    const organiser = await tenant();
    const team = await createTeam(owner, { name: "No Show", tag: "NS" });
    const players = [
      (await createTeam(organiser, { name: "Player A", tag: "PA" })).id,
      (await createTeam(organiser, { name: "Player B", tag: "PB" })).id,
    ];
    const tournament = await createTournament(organiser, { max_teams: 4, check_in_opens: new Date(Date.now() - 60_000).toISOString() });
    const regs = [];
    for (const id of [...players, team.id]) {
      const res = await register(organiser, tournament.id, id);
      expectStatus(res, 201);
      regs.push(res.body.data.id);
    }
    for (const reg of regs.slice(0, 2)) {
      expectStatus(
        await organiser.request("PATCH", `/tournaments/${tournament.id}/registrations/${reg}`, { body: { checked_in: true } }),
        200,
      );
    }
    expectStatus(await organiser.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }), 200);
    expectError(await owner.request("DELETE", `/teams/${team.id}`), 409, "team_in_use");
    expect(await teamExists(team.id)).toBe(true);
    expect(await registrationsOf(team.id)).toBe(1);
  });

  it("returns 409 team_in_use for the owner's own ongoing tournament", async () => {
    const t = await tenant();
    const team = await createTeam(t, { name: "Own Busy", tag: "OB" });
    const partner = await createTeam(t, { name: "Partner", tag: "PA" });
    await ongoingWith(t, [team.id, partner.id]);
    expectError(await t.request("DELETE", `/teams/${team.id}`), 409, "team_in_use");
    expect(await teamExists(team.id)).toBe(true);
  });

  it("returns 403 insufficient_scope naming write:teams without it, deleting nothing", async () => {
    const t = await tenant();
    const team = await createTeam(t, { name: "Undeletable", tag: "UD" });
    const { key } = await t.newKey(["read:teams", "write:registrations", "write:tournaments"]);
    const res = await request("DELETE", `/teams/${team.id}`, { key });
    expectError(res, 403, "insufficient_scope");
    expect(res.body.error.message).toContain("write:teams");
    expect(await teamExists(team.id)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
describe("races", () => {
  it("a team delete racing its registration leaves no registration of a deleted team (never a 500)", async () => {
    for (let round = 0; round < 8; round++) {
      const owner = await tenant();
      const organiser = await tenant();
      const team = await createTeam(owner, { name: `Racer ${round}`, tag: "RC" });
      const tournament = await createTournament(organiser, { max_teams: 4 });
      const [del, reg] = await Promise.all([
        owner.request("DELETE", `/teams/${team.id}`),
        register(organiser, tournament.id, team.id),
      ]);
      const what = `round ${round}: delete ${del.status} ${del.text}\nregister ${reg.status} ${reg.text}`;
      expect(del.status, what).toBe(200);
      expect([201, 404], what).toContain(reg.status);
      if (reg.status === 404) expect(reg.body.error.code).toBe("not_found");
      expect(await teamExists(team.id), what).toBe(false);
      expect(await registrationsOf(team.id), what).toBe(0);
      const list = await organiser.request("GET", `/tournaments/${tournament.id}/registrations`);
      expectStatus(list, 200);
      expect(list.body.data, what).toEqual([]);
    }
  });

  it.each([2, 3])("a team delete racing the start of a tournament with %i teams leaves a consistent state (never a 500)", async (n) => {
    for (let round = 0; round < 6; round++) {
      const owner = await tenant();
      const organiser = await tenant();
      const team = await createTeam(owner, { name: `Starter ${round}`, tag: "ST" });
      const others = [];
      for (let i = 1; i < n; i++) others.push((await createTeam(organiser, { name: `Other ${round}.${i}`, tag: `O${i}` })).id);
      const tournament = await createTournament(organiser, { max_teams: 4 });
      for (const id of [team.id, ...others]) expectStatus(await register(organiser, tournament.id, id), 201);
      const [del, start] = await Promise.all([
        owner.request("DELETE", `/teams/${team.id}`),
        organiser.request("PATCH", `/tournaments/${tournament.id}`, { body: { status: "ongoing" } }),
      ]);
      const what = `round ${round}: delete ${del.status} ${del.text}\nstart ${start.status} ${start.text}`;
      const results = await organiser.request("GET", `/tournaments/${tournament.id}/results`);
      expectStatus(results, 200);
      const inMatches = results.body.data.matches.some((m: { team1_id: string; team2_id: string }) =>
        m.team1_id === team.id || m.team2_id === team.id
      );
      if (del.status === 200) {
        expect(await teamExists(team.id), what).toBe(false);
        expect(await registrationsOf(team.id), what).toBe(0);
        expect(inMatches, what).toBe(false);
        if (n === 2) expectError(start, 409, "invalid_status_transition");
        else expectStatus(start, 200);
      } else {
        expectError(del, 409, "team_in_use");
        expectStatus(start, 200);
        expect(await teamExists(team.id), what).toBe(true);
        expect(inMatches, what).toBe(true);
      }
      const [{ status }] = await sql("select status from app.tournaments where id = $1", [tournament.id]);
      expect(status, what).toBe(start.status === 200 ? "ongoing" : "registration");
    }
  });
});
