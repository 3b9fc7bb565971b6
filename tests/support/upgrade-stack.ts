// A throwaway Supabase-shaped cluster to test a migration's upgrade the way the deploy runs it:
// `supabase db push` of the migrations before it, data made there through the operations the
// API runs, then `supabase db push` again with the migration added. Used by the *-upgrade tests.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort, prepareDatabase, ROOT, startPostgres, startWatchdog, supabaseCli } from "../../scripts/stack.mjs";

export const MIGRATIONS = path.join(ROOT, "supabase", "migrations");

type Row = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
export type Json = any;

/** The migration files, in order: those before `name` (e.g. "_series.sql") and it. */
export function migrationsAround(suffix: string): { before: string[]; it: string } {
  const files = fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith(".sql")).sort();
  const matching = files.filter((f) => f.endsWith(suffix));
  if (matching.length !== 1) throw new Error(`exactly one supabase/migrations/*${suffix} expected, found ${matching.length}`);
  return { before: files.filter((f) => f < matching[0]), it: matching[0] };
}

export interface UpgradeCluster {
  url: string;
  /** `supabase db push` (the deploy's command) of these migrations, added to those pushed before. */
  push(files: string[]): Promise<string>;
  sql<T extends Row = Row>(text: string, params?: unknown[]): Promise<T[]>;
  /** One statement in a transaction with the account bound (as `role`, when given); its `result`. */
  bound(account: string, role: string | null, text: string, values: unknown[]): Promise<Json>;
  /** One operation as api.call runs it: as tournament_api_owner (RLS on), with the account bound. */
  op(account: string, name: string, args: Json): Promise<Json>;
  /** The API error code (the exception's hint) and message of an operation that must fail. */
  opError(account: string, name: string, args: Json): Promise<{ code: string; message: string }>;
  /** Closes our sessions (none may stay open across a migration), and opens them again. */
  reconnect(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the cluster with the platform's roles only (as on hosted Supabase), no migration. */
export async function startUpgradeCluster(name: string): Promise<UpgradeCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tournament-api-${name}-`));
  fs.chmodSync(dir, 0o755); // the postgres user must reach the data folder below it
  const watchdog = startWatchdog();
  watchdog.remove(dir);
  const db = await startPostgres({ dataDir: path.join(dir, "pg", "data"), port: await freePort(), persistent: false });
  watchdog.watch("INT", db.pid);
  await prepareDatabase(db, { migrations: false });
  // An idle client's connection ended by the server (57P01, as the cluster stops or the CLI's
  // push ends sessions) is not a test failure: the pool drops it and connects again if asked.
  const newPool = () => new pg.Pool({ connectionString: db.url, max: 3 }).on("error", () => {});
  let pool: pg.Pool | undefined = newPool();

  const work = path.join(dir, "work");
  fs.cpSync(path.join(ROOT, "supabase"), path.join(work, "supabase"), { recursive: true });
  const copied = path.join(work, "supabase", "migrations");
  for (const f of fs.readdirSync(copied)) fs.rmSync(path.join(copied, f));

  const sql = async <T extends Row = Row>(text: string, params: unknown[] = []) => (await pool!.query(text, params)).rows as T[];
  const bound = async (account: string, role: string | null, text: string, values: unknown[]): Promise<Json> => {
    const client = await pool!.connect();
    try {
      await client.query("begin");
      if (role) await client.query(`set local role ${role}`);
      await client.query("select set_config('app.account_id', $1, true)", [account]);
      const { rows } = await client.query(text, values);
      await client.query("commit");
      return rows[0].result;
    } catch (err) {
      await client.query("rollback").catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  };
  const op = (account: string, opName: string, args: Json) =>
    bound(account, "tournament_api_owner", "select (app.operation($1, $2::jsonb, null, true)).result as result", [
      opName,
      JSON.stringify(args),
    ]);
  return {
    url: db.url,
    push: (files) => {
      for (const f of files) fs.copyFileSync(path.join(MIGRATIONS, f), path.join(copied, f));
      return supabaseCli(["db", "push", `--remote=${db.url}`, "--yes", "--workdir", work], `supabase db push (${files.at(-1)})`);
    },
    sql,
    bound,
    op,
    async opError(account, opName, args) {
      try {
        await op(account, opName, args);
      } catch (err) {
        const e = err as { hint?: string; message: string };
        return { code: e.hint ?? "(no hint)", message: e.message };
      }
      throw new Error(`${opName} succeeded; it was expected to fail`);
    },
    async reconnect() {
      await pool?.end();
      pool = newPool();
    },
    async stop() {
      await pool?.end().catch(() => {});
      pool = undefined;
      await db.stop();
      fs.rmSync(dir, { recursive: true, force: true });
      watchdog.done();
    },
  };
}
