// Bench only, not part of the API: the floor that `npm run bench` compares the API with. The
// same runtime (Deno.serve), driver and pool settings as functions/api/db-connection.ts, and one
// `select 1` round trip per request, so what the API costs beyond it is its own work.
//
//   DATABASE_URL=postgres://tournament_api:...@127.0.0.1:54322/postgres FLOOR_PORT=8000 \
//   node_modules/.bin/deno run --no-lock --allow-net --allow-env --config functions/api/deno.json bench/floor.ts
import pg from "pg";

const pool = new pg.Pool({
  connectionString: Deno.env.get("DATABASE_URL"),
  max: Number(Deno.env.get("DB_POOL_SIZE") ?? 10),
  connectionTimeoutMillis: 3000,
  query_timeout: 15000,
  idleTimeoutMillis: 30_000,
  allowExitOnIdle: true,
});
pool.on("error", () => {});

const headers = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(Deno.env.get("FLOOR_PORT") ?? 8000),
  onListen: ({ hostname, port }) => console.log(JSON.stringify({ level: "info", msg: "listening", url: `http://${hostname}:${port}` })),
}, async () => {
  try {
    const { rows } = await pool.query("select 1 as one");
    return new Response(`{"success":true,"data":${rows[0].one}}`, { status: 200, headers });
  } catch {
    return new Response('{"success":false}', { status: 503, headers });
  }
});
