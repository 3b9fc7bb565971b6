// `npm start`: the whole local stack in one command. Postgres 17 (embedded, data kept in
// .data/postgres), the bootstrap and migrations (Supabase CLI), demo data, and the `api`
// function on Deno. Prints the URLs and a demo key; Ctrl-C stops everything.
//
// Environment: DB_PORT (54322), API_PORT (54321), DATABASE_URL (an existing Postgres to use
// instead of the embedded one, as a superuser such as postgres).
import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import pg from "pg";
import {
  ROOT, functionDatabaseUrl, prepareDatabase, startFunction, startPostgres,
} from "./stack.mjs";

const ALL_SCOPES = ["read:tournaments", "write:tournaments", "read:registrations",
  "write:registrations", "read:results", "write:results"];
const DATA_DIR = path.join(ROOT, ".data");
const KEY_FILE = path.join(DATA_DIR, "demo-key");

const dbPort = Number(process.env.DB_PORT ?? 54322);
const apiPort = Number(process.env.API_PORT ?? 54321);

// The demo key is kept in a git-ignored file (the database holds only its hash) so that a
// restart prints the same key; a revoked or missing one is replaced.
async function demoKey(adminUrl) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    if (fs.existsSync(KEY_FILE)) {
      const key = fs.readFileSync(KEY_FILE, "utf8").trim();
      const hash = crypto.createHash("sha256").update(key).digest();
      const { rowCount } = await client.query(
        `select 1 from app.api_keys k join app.accounts a on a.id = k.account_id
          where k.key_hash = $1 and k.revoked_at is null and a.api_access_enabled
            and (k.expires_at is null or k.expires_at > now())`, [hash]);
      if (rowCount) return key;
    }
    const { rows } = await client.query(
      `select k.key from app.accounts a, admin.create_api_key(a.id, 'demo key', $1) k
        where a.name = 'Demo Esports' order by a.created_at limit 1`, [ALL_SCOPES]);
    fs.mkdirSync(DATA_DIR, { recursive: true });
    fs.writeFileSync(KEY_FILE, rows[0].key + "\n", { mode: 0o600 });
    return rows[0].key;
  } finally {
    await client.end();
  }
}

async function main() {
  let db = null;
  let fn = null;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("\nStopping…");
    await fn?.stop();
    await db?.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    console.log(`Starting Postgres 17 on 127.0.0.1:${dbPort} (data in .data/postgres)…`);
    db = await startPostgres({ dataDir: path.join(DATA_DIR, "postgres"), port: dbPort });
    adminUrl = db.url;
  }
  console.log("Applying migrations with the Supabase CLI and seeding demo data…");
  await prepareDatabase(adminUrl, { seed: true });
  const key = await demoKey(adminUrl);

  fn = await startFunction({
    port: apiPort,
    databaseUrl: functionDatabaseUrl(adminUrl),
    onLine: (line) => console.log(line),
  });
  const base = `http://127.0.0.1:${apiPort}/functions/v1/api/v1`;
  fn.child.on("exit", (code) => {
    if (!stopping) {
      console.error(`The function exited (${code}).`);
      stop();
    }
  });
  console.log(`
Tournament API is running.

  Base URL      ${base}
  Database      ${adminUrl.replace(/:[^:@/]*@/, ":postgres@")}
  Demo API key  ${key}   (every scope; kept in .data/demo-key)

Try:
  curl -s ${base}/tournaments -H "Authorization: Bearer ${key}"

Ctrl-C stops everything; the data stays in .data/ for the next start.
`);
}

main().catch((err) => {
  console.error(err.message ?? err);
  process.exit(1);
});
