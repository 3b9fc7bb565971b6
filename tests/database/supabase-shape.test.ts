// The database is built the way hosted Supabase builds its own (sql/supabase-platform.sql:
// `postgres` is not a superuser) and migrated with the deploy's own command; supabase/schemas
// and supabase/migrations build the same database (the drift check); Supabase's advisors find
// nothing to warn about. Two throwaway clusters (scripts/schema-drift.mjs), shared by the file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { buildBoth, compare, schemaFiles } from "../../scripts/schema-drift.mjs";
import { ROOT, supabaseCli } from "../../scripts/stack.mjs";

let both: Awaited<ReturnType<typeof buildBoth>>;

beforeAll(async () => {
  both = await buildBoth();
}, 120_000);

afterAll(async () => {
  await both?.stop();
});

async function query<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe("the role model", () => {
  it("migrates as a postgres that is not a superuser, as on hosted Supabase, with every migration recorded", async () => {
    for (const url of [both.migrations.url, inject("adminDbUrl")]) {
      const [me] = await query<{ user: string; super: boolean; bypass: boolean; createrole: boolean }>(
        url,
        "select current_user as user, rolsuper as super, rolbypassrls as bypass, rolcreaterole as createrole from pg_roles where rolname = current_user",
      );
      expect(me).toEqual({ user: "postgres", super: false, bypass: true, createrole: true });
      const history = await query<{ version: string }>(url, "select version from supabase_migrations.schema_migrations order by version");
      const local = fs.readdirSync(path.join(ROOT, "supabase", "migrations")).map((f) => f.slice(0, 14)).sort();
      expect(history.map((h) => h.version)).toEqual(local);
    }
  });

  it("fails the deploy for a migration that hands a function to a role without CREATE on its schema", async () => {
    // A copy of supabase/ with one more migration, pushed with the deploy's command to the
    // already-migrated database: hosted Supabase refuses it, and so must the test database.
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-broken-"));
    try {
      fs.cpSync(path.join(ROOT, "supabase"), path.join(work, "supabase"), { recursive: true });
      fs.writeFileSync(
        path.join(work, "supabase", "migrations", "29991231000000_broken.sql"),
        [
          "create role broken_owner nologin;",
          "grant broken_owner to postgres;",
          "create function app.broken() returns int language sql as 'select 1';",
          "alter function app.broken() owner to broken_owner;",
        ].join("\n"),
      );
      const push = supabaseCli(["db", "push", `--remote=${both.migrations.url}`, "--yes", "--workdir", work]);
      await expect(push).rejects.toThrow(/permission denied for schema app/);
      const [{ n }] = await query<{ n: number }>(both.migrations.url, "select count(*)::int as n from pg_proc where proname = 'broken'");
      expect(n).toBe(0); // rolled back whole
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});

describe("the drift check", () => {
  it("finds supabase/schemas and supabase/migrations build the same database", async () => {
    const lines = await compare(both.migrations.url, both.schemas.url);
    expect(lines, lines.join("\n")).toEqual([]);
  });

  it("loads every file config.toml declares, and every file in supabase/schemas is declared", () => {
    const declared = schemaFiles().map((f) => path.basename(f));
    const present = fs.readdirSync(path.join(ROOT, "supabase", "schemas")).filter((f) => f.endsWith(".sql")).sort();
    expect(declared).toEqual(present);
  });

  it("names what differs beyond functions and grants: replica identity, a comment on an index, a column's storage, a sequence's step", async () => {
    const changes = [
      [
        "alter table app.rate_limits replica identity full",
        "alter table app.rate_limits replica identity default",
        "differs: relation app.rate_limits",
      ],
      [
        "comment on index app.tournaments_account_created_idx is 'x'",
        "comment on index app.tournaments_account_created_idx is null",
        "only in schemas: comment index app.tournaments_account_created_idx",
      ],
      [
        "alter table app.teams alter column name set storage external",
        "alter table app.teams alter column name set storage extended",
        "differs: column app.teams.002 name",
      ],
      [
        "alter table app.registrations alter column seq set increment by 7",
        "alter table app.registrations alter column seq set increment by 1",
        "differs: sequence app.registrations_seq_seq",
      ],
    ];
    const client = new pg.Client({ connectionString: both.schemas.url });
    await client.connect();
    try {
      for (const [change, undo, expected] of changes) {
        await client.query(change);
        const lines = await compare(both.migrations.url, both.schemas.url);
        await client.query(undo);
        expect(lines.map((l) => l.split("\n")[0]), change).toEqual([expected]);
      }
      // The same privileges granted again in another order are not a difference.
      await client.query("revoke select on app.webhook_deliveries from tournament_api_owner");
      await client.query("grant select on app.webhook_deliveries to tournament_api_owner");
      expect(await compare(both.migrations.url, both.schemas.url)).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it("names a function whose body differs, and a grant that differs", async () => {
    const client = new pg.Client({ connectionString: both.schemas.url });
    await client.connect();
    try {
      await client.query("begin");
      const [{ def }] = (await client.query("select pg_get_functiondef('app.iso(timestamptz)'::regprocedure) as def")).rows;
      await client.query(def.replace("MI:SS.MS", "MI:SS"));
      await client.query("grant execute on function app.slugify(text) to tournament_api");
      // compare() reads committed state from other sessions: commit, compare, then put it back.
      await client.query("commit");
      const lines = await compare(both.migrations.url, both.schemas.url);
      expect(lines.map((l) => l.split("\n")[0])).toEqual([
        "differs: function app.iso(timestamp with time zone)",
        "differs: function app.slugify(text)",
      ]);
      expect(lines[0]).toContain("MI:SS.MS");
      await client.query(def);
      await client.query("revoke execute on function app.slugify(text) from tournament_api");
      expect(await compare(both.migrations.url, both.schemas.url)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

describe("Supabase's advisors", () => {
  it("report nothing at WARN or above on the migrated database", async () => {
    const out = await supabaseCli([
      "db",
      "advisors",
      `--remote=${both.migrations.url}`,
      "--type",
      "all",
      "--level",
      "warn",
      "--fail-on",
      "warn",
    ]);
    expect(out).toMatch(/No issues found/i);
  }, 60_000);
});
