// The drift check: supabase/schemas (each object's current definition, by concern) and
// supabase/migrations (the deploy path) must build the same database. Two throwaway Postgres
// clusters, each set up the way Supabase sets up its own: one migrated with the deploy's command
// (`supabase db push`, as `postgres`), one loaded from supabase/schemas in the order that
// config.toml's [db.migrations] schema_paths declares (as `postgres`). Their catalogs
// (scripts/schema-catalog.mjs) must be equal.
//
//   npm run db:drift              prints each difference and exits 1, or prints "no drift"
//   npm run db:diff [-- <name>]   prints the SQL that takes the migrations' database to the
//                                 schemas' (the pinned CLI's `supabase db diff --from <url>
//                                 --to <url>`, pg-delta, no Docker); with a name, writes it to
//                                 supabase/migrations/<UTC timestamp>_<name>.sql to review
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { catalog, differences } from "./schema-catalog.mjs";
import { freePort, prepareDatabase, ROOT, startPostgres, startWatchdog, supabaseCli } from "./stack.mjs";

/** The schema files in load order, from config.toml's [db.migrations] schema_paths. */
export function schemaFiles(root = ROOT) {
  const toml = fs.readFileSync(path.join(root, "supabase", "config.toml"), "utf8");
  const list = /^\s*schema_paths\s*=\s*\[([^\]]*)\]/m.exec(toml);
  if (!list) throw new Error("supabase/config.toml declares no [db.migrations] schema_paths");
  return [...list[1].matchAll(/"([^"]+)"/g)].map((m) => path.join(root, "supabase", m[1]));
}

/** Loads supabase/schemas into the database at `url` (as its user), in one transaction. */
export async function loadSchemas(url, files = schemaFiles()) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("begin");
    for (const file of files) {
      try {
        await client.query(fs.readFileSync(file, "utf8"));
      } catch (err) {
        throw new Error(`${path.relative(ROOT, file)}: ${err.message}${err.position ? ` (at character ${err.position})` : ""}`);
      }
    }
    await client.query("commit");
  } finally {
    await client.end();
  }
}

/**
 * Two throwaway clusters set up as Supabase sets up its own: `migrations` migrated with the
 * deploy's command, `schemas` loaded from `files` (default: config.toml's schema_paths). Both
 * keep running until `stop()`.
 * @param {{ files?: string[] }} [options]
 */
export async function buildBoth({ files } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tournament-api-drift-"));
  fs.chmodSync(dir, 0o755); // the postgres user must reach the data folders below it
  const clusters = [];
  // If this process dies without stopping them, the clusters stop and the folder goes anyway.
  const watchdog = startWatchdog();
  watchdog.remove(dir);
  const stop = async () => {
    await Promise.all(clusters.map((c) => c.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
    watchdog.done();
  };
  try {
    const [migrations, schemas] = await Promise.all(["migrations", "schemas"].map(async (name) => {
      const db = await startPostgres({ dataDir: path.join(dir, name, "data"), port: await freePort(), persistent: false });
      clusters.push(db);
      watchdog.watch("INT", db.pid);
      return db;
    }));
    await Promise.all([
      prepareDatabase(migrations, { logins: false }),
      prepareDatabase(schemas, { migrations: false }).then(() => loadSchemas(schemas.url, files)),
    ]);
    return { migrations, schemas, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The differences between the two databases' catalogs (empty: no drift). */
export async function compare(migrationsUrl, schemasUrl) {
  const [a, b] = await Promise.all([catalog(migrationsUrl), catalog(schemasUrl)]);
  return differences(a, b, ["migrations", "schemas"]);
}

/** Builds both databases, compares them and stops them: the differences (empty: no drift). */
export async function drift(options) {
  const both = await buildBoth(options);
  try {
    return await compare(both.migrations.url, both.schemas.url);
  } finally {
    await both.stop();
  }
}

/**
 * The SQL that takes the migrations' database to the schemas' one, from the pinned Supabase
 * CLI's diff (review it: diff engines miss grants, default privileges and renames).
 */
export async function diffSql() {
  const both = await buildBoth();
  try {
    const out = await supabaseCli(["db", "diff", "--from", both.migrations.url, "--to", both.schemas.url]);
    // The CLI's notes about the targets and TLS are not SQL.
    return out.split("\n").filter((l) => !/^(Target: |▲|│)/.test(l.trim())).join("\n").trim();
  } finally {
    await both.stop();
  }
}

async function main([command, name]) {
  if (command === "diff") {
    const sql = await diffSql();
    if (!sql || /^SET local check_function_bodies = off;$/.test(sql)) {
      console.log("-- supabase/schemas and supabase/migrations build the same database: nothing to migrate");
      return;
    }
    if (!name) return console.log(sql);
    if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`the migration's name must be lower-case letters, digits and _: ${name}`);
    // After the newest migration: `supabase db push` refuses one that sorts before it.
    const newest = fs.readdirSync(path.join(ROOT, "supabase", "migrations")).map((f) => f.slice(0, 14)).sort().pop();
    const stamp = [
      new Date(),
      newest && new Date(Date.parse(newest.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, "$1-$2-$3T$4:$5:$6Z")) + 1000),
    ].filter((d) => d && !isNaN(d)).sort((a, b) => b - a)[0]
      .toISOString().replace(/\D/g, "").slice(0, 14);
    const file = path.join(ROOT, "supabase", "migrations", `${stamp}_${name}.sql`);
    fs.writeFileSync(
      file,
      `-- ${name.replace(/_/g, " ")}: generated by \`npm run db:diff\` from supabase/schemas; reviewed by:\n` +
        "-- (check grants, default privileges, comments and data changes, which diff engines miss)\n\n" + sql + "\n",
    );
    console.log(`wrote ${path.relative(ROOT, file)}: review it, then npm run db:drift`);
    return;
  }
  const lines = await drift();
  if (lines.length) {
    console.error(`supabase/schemas and supabase/migrations differ (${lines.length}):\n${lines.join("\n")}`);
    process.exit(1);
  }
  console.log("no drift: supabase/schemas and supabase/migrations build the same database");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err?.message ?? String(err));
    process.exit(1);
  });
}
