// Where GET /tournaments/{id} spends its time in Postgres: the statement the function sends,
// run straight over pg by 8 clients as the function's role (no HTTP, no function), against a
// running `npm start` (DB_PORT, default 54322). Each line adds one step to the one before:
//   select 1 -> the key lookup (a 401) -> account, rate-limit count and commit (a 403, no
//   operation) -> the operation (get_tournament and its JSON): the whole request.
// Makes an account "breakdown <time>" with 800 keys and one tournament in that database.
//   node bench/breakdown.mjs            (5 s per step)
import crypto from "node:crypto";
import pg from "pg";

const port = process.env.DB_PORT ?? "54322";
const SECONDS = Number(process.env.SECONDS_PER_STEP ?? 5);
const CLIENTS = 8;
const su = new pg.Client(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
await su.connect();
const [{ id: account }] = (await su.query("select admin.create_account($1) as id", [`breakdown ${new Date().toISOString()}`])).rows;
await su.query("select admin.set_api_access($1, true)", [account]);
const keys = (await su.query(
  `select k.key from generate_series(1, 800) i,
     lateral admin.create_api_key($1, 'breakdown ' || i, array['read:tournaments', 'write:tournaments']) k`,
  [account],
))
  .rows.map((r) => r.key);
// Two sets of 400 keys, so that no key reaches the rate limit (100 a minute) in one step.
const hashes = keys.map((k) => crypto.createHash("sha256").update(k).digest());
const body = {
  name: "Breakdown Cup",
  game_id: crypto.randomUUID(),
  team_size: 5,
  max_teams: 8,
  starts_at: new Date(Date.now() + 86_400_000).toISOString(),
};
const created = (await su.query("select result::text from api.call($1, 'write:tournaments', 'tournaments.create', $2)", [
  hashes[799],
  JSON.stringify({ body }),
])).rows[0].result;
await su.end();
const args = JSON.stringify({ id: JSON.parse(created).id });

async function step(label, statement) {
  const clients = await Promise.all(Array.from({ length: CLIENTS }, async () => {
    const c = new pg.Client(`postgres://tournament_api:tournament_api@127.0.0.1:${port}/postgres`);
    await c.connect();
    return c;
  }));
  let n = 0;
  const end = Date.now() + SECONDS * 1000;
  await Promise.all(clients.map(async (c) => {
    while (Date.now() < end) await c.query(statement(n++));
  }));
  await Promise.all(clients.map((c) => c.end()));
  const perSecond = n / SECONDS;
  console.log(`${label.padEnd(62)} ${perSecond.toFixed(0).padStart(6)} calls/s ${(1e6 / perSecond).toFixed(0).padStart(5)} µs/call`);
}

const call = (values) => ({ text: "select auth, error, result, replay from api.call($1, $2, $3, $4, $5)", values });
await step("select 1 (the floor)", () => ({ text: "select 1" }));
await step(
  "+ the key lookup (api.call answering 401)",
  () => call([crypto.randomBytes(32), "read:tournaments", "tournaments.get", args, null]),
);
await step(
  "+ account, rate-limit count, commit (403 insufficient_scope)",
  (i) => call([hashes[i % 400], "read:results", "results.get", args, null]),
);
await step(
  "+ the operation: GET /tournaments/{id}, the whole statement",
  (i) => call([hashes[400 + (i % 399)], "read:tournaments", "tournaments.get", args, null]),
);
