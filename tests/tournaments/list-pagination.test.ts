// The tournament list at scale: pagination.total from per-account counters kept by triggers,
// and keyset pagination with an opaque cursor. Property-based: for any set of tournaments
// (ties in created_at included), any filter and any limit, walking next_cursor visits exactly
// the rows of the filter in order, and page-by-page agrees with it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createKey, expectError, expectStatus, request, sql, type Tenant, tenant } from "../support/helpers.ts";

const GAMES = ["6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b", "0a0a0a0a-1b1b-4c2c-8d3d-4e4e4e4e4e4e"];
const STATUSES = ["registration", "ongoing", "completed"] as const;

interface Row {
  status: (typeof STATUSES)[number];
  game: 0 | 1;
  minute: number;
}

async function insert(accountId: string, rows: Row[]) {
  await sql(
    `insert into app.tournaments (account_id, name, slug, game_id, status, team_size, max_teams,
                                  starts_at, registration_closes, created_at, updated_at)
     select $1, 'Listed ' || r.ord, 'listed-' || replace(gen_random_uuid()::text, '-', ''), r.game, r.status, 5, 8,
            now() + interval '30 days', now() + interval '30 days',
            timestamptz '2031-01-01' + r.minute * interval '1 minute', now()
       from unnest($2::uuid[], $3::text[], $4::int[]) with ordinality r (game, status, minute, ord)`,
    [accountId, rows.map((r) => GAMES[r.game]), rows.map((r) => r.status), rows.map((r) => r.minute)],
  );
}

async function expected(accountId: string, status: string | null, game: string | null): Promise<string[]> {
  const rows = await sql<{ id: string }>(
    `select id from app.tournaments where account_id = $1 and ($2::text is null or status = $2)
        and ($3::uuid is null or game_id = $3) order by created_at desc, id desc`,
    [accountId, status, game],
  );
  return rows.map((r) => r.id);
}

/** A fresh key for each walk: a walk may take more requests than one key's minute allows. */
async function get(t: Tenant, path: string) {
  const { key } = await createKey(t.accountId);
  return request("GET", path, { key });
}

describe("GET /tournaments with cursor", () => {
  it("walks every row of any filter exactly once, in order, whatever the limit (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            status: fc.constantFrom(...STATUSES),
            game: fc.constantFrom(0 as const, 1 as const),
            minute: fc.integer({ min: 0, max: 5 }),
          }),
          { maxLength: 40 },
        ),
        fc.option(fc.constantFrom(...STATUSES), { nil: null }),
        fc.option(fc.constantFrom(0, 1), { nil: null }),
        fc.integer({ min: 1, max: 7 }),
        async (rows, status, game, limit) => {
          const t = await tenant();
          await insert(t.accountId, rows);
          const gameId = game === null ? null : GAMES[game];
          const want = await expected(t.accountId, status, gameId);
          const filter = `${status ? `&status=${status}` : ""}${gameId ? `&game_id=${gameId}` : ""}`;
          const { key } = await createKey(t.accountId);
          const seen: string[] = [];
          const paged: string[] = [];
          let cursor: string | null = null;
          for (let page = 1; page <= want.length / limit + 1; page++) {
            const res = await request("GET", `/tournaments?limit=${limit}${filter}${cursor ? `&cursor=${cursor}` : ""}`, { key });
            expectStatus(res, 200);
            expect(res.body.pagination).toMatchObject({ limit, total: want.length, page: cursor ? null : 1 });
            seen.push(...res.body.data.map((d: { id: string }) => d.id));
            cursor = res.body.pagination.next_cursor;
            const byPage = await request("GET", `/tournaments?limit=${limit}&page=${page}${filter}`, { key });
            expectStatus(byPage, 200);
            paged.push(...byPage.body.data.map((d: { id: string }) => d.id));
            expect(byPage.body.pagination.next_cursor === null).toBe(page * limit >= want.length);
            if (!cursor) break;
          }
          expect(cursor).toBeNull();
          expect(seen).toEqual(want);
          expect(paged).toEqual(want);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it("stays stable while tournaments are created between pages", async () => {
    const t = await tenant();
    await insert(t.accountId, Array.from({ length: 6 }, (_, i) => ({ status: "registration" as const, game: 0 as const, minute: i })));
    const before = await expected(t.accountId, null, null);
    const first = await get(t, "/tournaments?limit=3");
    expectStatus(first, 200);
    await insert(t.accountId, [{ status: "registration", game: 0, minute: 10 }]); // newer than all
    const second = await get(t, `/tournaments?limit=3&cursor=${first.body.pagination.next_cursor}`);
    expectStatus(second, 200);
    expect([...first.body.data, ...second.body.data].map((d: { id: string }) => d.id)).toEqual(before);
    expect(second.body.pagination).toMatchObject({ total: 7, next_cursor: null });
  });

  it.each([
    ["not hex", "zz".repeat(24)],
    ["too short", "ab"],
    ["upper-case hex", "AB".repeat(24)],
    ["too long", "a".repeat(49)],
  ])("answers 400 validation_error naming cursor for a cursor that is %s", async (_what, cursor) => {
    const t = await tenant();
    const res = await t.request("GET", `/tournaments?cursor=${cursor}`);
    expectError(res, 400, "validation_error", ["cursor"]);
  });

  it("answers 400 validation_error for page and cursor together", async () => {
    const t = await tenant();
    const res = await t.request("GET", `/tournaments?page=2&cursor=${"0".repeat(48)}`);
    expectError(res, 400, "validation_error", ["cursor"]);
  });

  it("never shows another account's rows through a cursor", async () => {
    const mine = await tenant();
    const other = await tenant();
    await insert(other.accountId, Array.from({ length: 5 }, (_, i) => ({ status: "ongoing" as const, game: 1 as const, minute: i })));
    const theirs = await get(other, "/tournaments?limit=2");
    const res = await mine.request("GET", `/tournaments?cursor=${theirs.body.pagination.next_cursor}`);
    expectStatus(res, 200);
    expect(res.body.data).toEqual([]);
    expect(res.body.pagination).toMatchObject({ total: 0, next_cursor: null });
  });
});

describe("pagination.total from the per-account counters", () => {
  async function countsAgree(accountId: string) {
    const [row] = await sql<{ bad: number }>(
      `with actual as (
         select g.game_id, t.status, count(*)::bigint as n from app.tournaments t
          cross join lateral (values ('00000000-0000-0000-0000-000000000000'::uuid), (t.game_id)) g (game_id)
          where t.account_id = $1 group by 1, 2)
       select count(*)::int as bad from actual a
         full join (select game_id, status, sum(n) as n from app.tournament_counts where account_id = $1
                     group by 1, 2 having sum(n) <> 0) c using (game_id, status)
        where a.n is distinct from c.n`,
      [accountId],
    );
    return row.bad;
  }

  it("stays exact under concurrent creates, status changes, game changes and deletes", async () => {
    const t = await tenant();
    const keys = await Promise.all(Array.from({ length: 6 }, () => createKey(t.accountId)));
    await insert(
      t.accountId,
      Array.from({ length: 30 }, (_, i) => ({ status: "registration" as const, game: (i % 2) as 0 | 1, minute: i })),
    );
    const ids = await expected(t.accountId, null, null);
    const body = (i: number) => ({
      name: `Race ${i}`,
      game_id: GAMES[i % 2],
      team_size: 5,
      max_teams: 8,
      starts_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      const key = keys[i % keys.length].key;
      if (i % 3 === 0) work.push(request("POST", "/tournaments", { key, body: body(i) }));
      else if (i % 3 === 1) work.push(request("DELETE", `/tournaments/${ids[i]}`, { key }));
      else work.push(request("PATCH", `/tournaments/${ids[i]}`, { key, body: { game_id: GAMES[(i + 1) % 2] } }));
    }
    // Status changes straight in SQL, racing the API's writes.
    work.push(sql(`update app.tournaments set status = 'completed' where id = any($1::uuid[])`, [ids.slice(20, 30)]));
    const results = await Promise.all(work);
    for (const r of results.slice(0, 30) as { status: number }[]) expect([200, 201]).toContain(r.status);
    expect(await countsAgree(t.accountId)).toBe(0);
    // The racing writers came through several backends, so several slots of a count were used.
    const [{ slots }] = await sql<{ slots: number }>(
      "select count(distinct slot)::int as slots from app.tournament_counts where account_id = $1",
      [t.accountId],
    );
    expect(slots).toBeGreaterThan(1);
    for (const [status, game] of [[null, null], ["completed", null], [null, GAMES[1]], ["registration", GAMES[0]]]) {
      const res = await get(t, `/tournaments?limit=1${status ? `&status=${status}` : ""}${game ? `&game_id=${game}` : ""}`);
      expectStatus(res, 200);
      expect(res.body.pagination.total).toBe((await expected(t.accountId, status, game)).length);
    }
  });

  it("forgets an account's counts with the account", async () => {
    const t = await tenant();
    await insert(t.accountId, [{ status: "registration", game: 0, minute: 1 }]);
    await sql("delete from app.accounts where id = $1", [t.accountId]);
    const [row] = await sql<{ n: number }>("select count(*)::int as n from app.tournament_counts where account_id = $1", [t.accountId]);
    expect(row.n).toBe(0);
  });
});
