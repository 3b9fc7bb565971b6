// The upgrades. To players and lineups (contract section 16; migration *_players_rosters_lineups):
// a database migrated up to the migration before it, with a started tournament in it (a team
// registered, its bracket made, a game reported) and one still in registration, is migrated
// with the deploy's command. The started tournament keeps its teams' names as they are now
// (a later rename no longer reaches it), its games show `lineups: null`, and the upgrade
// changes no version: it is not a change of any tournament. Then to participants (section 17;
// *_participants): the API keys made before are API keys still (their scopes kept, their rate
// limit and Idempotency-Keys working), the registrations are accepted, and no version changes.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, prepareDatabase, ROOT, startPostgres, startWatchdog, supabaseCli } from "../../scripts/stack.mjs";

const MIGRATIONS = path.join(ROOT, "supabase", "migrations");
const UPGRADE = fs.readdirSync(MIGRATIONS).find((f) => f.endsWith("_players_rosters_lineups.sql"))!;
const PARTICIPANTS = fs.readdirSync(MIGRATIONS).find((f) => f.endsWith("_participants.sql"))!;

let dir: string;
let db: Awaited<ReturnType<typeof startPostgres>>;
let watchdog: ReturnType<typeof startWatchdog>;

/** supabase/ with the migrations up to `last` (inclusive), pushed with the deploy's command. */
async function pushUpTo(last: string): Promise<void> {
  const work = fs.mkdtempSync(path.join(dir, "work-"));
  fs.cpSync(path.join(ROOT, "supabase"), path.join(work, "supabase"), { recursive: true });
  for (const f of fs.readdirSync(path.join(work, "supabase", "migrations"))) {
    if (f > last) fs.rmSync(path.join(work, "supabase", "migrations", f));
  }
  await supabaseCli(["db", "push", `--remote=${db.url}`, "--yes", "--workdir", work]);
}

/** Runs statements as `postgres` with the account bound, as api.call binds it. */
async function asAccount<T>(account: string | null, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query("begin");
    if (account) await client.query("select set_config('app.account_id', $1, true)", [account]);
    const out = await fn(client);
    await client.query("commit");
    return out;
  } finally {
    await client.end();
  }
}

const op = async (c: pg.Client, fn: string, args: unknown) =>
  (await c.query(`select app.${fn}($1::jsonb) as r`, [JSON.stringify(args)])).rows[0].r;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-upgrade-"));
  fs.chmodSync(dir, 0o755);
  watchdog = startWatchdog();
  watchdog.remove(dir);
  db = await startPostgres({ dataDir: path.join(dir, "data"), port: await freePort(), persistent: false });
  watchdog.watch("INT", db.pid);
  await prepareDatabase(db, { migrations: false });
}, 120_000);

afterAll(async () => {
  await db?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  watchdog?.done();
});

describe("the players and lineups upgrade", () => {
  it("freezes the names of tournaments already started as they are now, gives their games lineups: null, and changes no version", async () => {
    const before = fs.readdirSync(MIGRATIONS).filter((f) => f < UPGRADE).sort().at(-1)!;
    await pushUpTo(before);

    const { account, started, open, teams } = await asAccount(null, async (c) => {
      const account = (await c.query("select admin.create_account('Upgrade') as id")).rows[0].id as string;
      const teams = (await c.query("select admin.create_team('Old ' || i, 'O' || i) as id from generate_series(1, 2) i order by i"))
        .rows.map((r) => r.id as string);
      return { account, teams, started: "", open: "" };
    }).then(async (x) =>
      asAccount(x.account, async (c) => {
        const body = (name: string) => ({
          body: {
            name,
            game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
            team_size: 5,
            max_teams: 4,
            starts_at: new Date(Date.now() + 86_400_000).toISOString(),
            format_options: { best_of: 3 },
          },
        });
        const started = (await op(c, "create_tournament", body("Started"))).id as string;
        const open = (await op(c, "create_tournament", body("Open"))).id as string;
        for (const t of [started, open]) {
          for (const team of x.teams) await op(c, "create_registration", { tournament_id: t, body: { team_id: team } });
        }
        await op(c, "update_tournament", { id: started, body: { status: "ongoing" } });
        const match = (await c.query("select id from app.matches where tournament_id = $1", [started])).rows[0].id;
        await op(c, "change_game", { tournament_id: started, match_id: match, number: 1, body: { team1_score: 13, team2_score: 7 } });
        return { ...x, started, open };
      })
    );
    const state = async () =>
      (await asAccount(null, (c) =>
        c.query(
          `select (select json_object_agg(v.tournament_id, v.version) from app.tournament_versions v) as versions`,
        ))).rows[0];
    const was = await state();

    await pushUpTo(UPGRADE);

    expect(await state()).toEqual(was);
    await asAccount(null, (c) => c.query("update app.teams set name = 'New ' || tag where id = any ($1)", [teams]));
    const names = await asAccount(account, async (c) => ({
      started: (await op(c, "list_registrations", { tournament_id: started })).map((r: { teams: { name: string } }) => r.teams.name),
      open: (await op(c, "list_registrations", { tournament_id: open })).map((r: { teams: { name: string } }) => r.teams.name),
      games: (await op(c, "tournament_results", { tournament_id: started })).matches[0].games,
    }));
    expect(names.started).toEqual(["Old 1", "Old 2"]);
    expect(names.open).toEqual(["New O1", "New O2"]);
    expect(names.games).toHaveLength(1);
    expect(names.games[0].lineups).toBeNull();
    expect(Object.keys(names.games[0])).toContain("lineups");
  });
});

describe("the participants upgrade", () => {
  it("keeps every API key an API key with its scopes, makes every registration accepted, and changes no version", async () => {
    const before = fs.readdirSync(MIGRATIONS).filter((f) => f < PARTICIPANTS).sort().at(-1)!;
    await pushUpTo(before);
    const made = await asAccount(null, async (c) => {
      const account = (await c.query("select admin.create_account('Upgrade keys') as id")).rows[0].id as string;
      await c.query("select admin.set_api_access($1, true)", [account]);
      const key = (await c.query("select * from admin.create_api_key($1, 'old key', array['read:tournaments', 'write:tournaments'])", [
        account,
      ])).rows[0] as { id: string; key: string };
      return { account, key };
    });
    const call = (op: string, args: unknown) =>
      asAccount(
        null,
        async (c) =>
          (await c.query("select auth, error, result from api.call(sha256(convert_to($1, 'UTF8')), null, $2, $3::jsonb)", [
            made.key.key,
            op,
            JSON.stringify(args),
          ])).rows[0],
      );
    const created = await call("tournaments.create", {
      body: {
        name: "Kept",
        game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
        team_size: 1,
        max_teams: 4,
        starts_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    expect(created.error).toBeNull();
    const versions = async () =>
      (await asAccount(null, (c) => c.query("select json_object_agg(v.tournament_id, v.version) as v from app.tournament_versions v")))
        .rows[0].v;
    const was = await versions();

    await pushUpTo(PARTICIPANTS);

    expect(await versions()).toEqual(was);
    const after = await call("tournaments.get", { id: created.result.id });
    expect(after.auth.error).toBeNull();
    expect(after.result).toMatchObject({ name: "Kept", approval: false, waitlist: false });
    expect((await call("participant.get", {})).auth.error).toBe("unauthorized"); // an API key stays one
    const rows = await asAccount(
      null,
      (c) => c.query("select scopes::text[] as scopes, tournament_id from app.api_keys where id = $1", [made.key.id]),
    );
    expect(rows.rows[0]).toEqual({ scopes: ["read:tournaments", "write:tournaments"], tournament_id: null });
    const states = await asAccount(null, (c) => c.query("select distinct state from app.registrations"));
    expect(states.rows.map((r) => r.state)).toEqual(["accepted"]);
  });
});
