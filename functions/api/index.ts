// The `api` edge function's Deno entry: configuration from the environment, then Deno.serve.
// On Supabase the platform chooses the port; locally (npm start, tests) API_PORT sets it.
import { createHandler } from "./app.ts";
import { loadConfig } from "./config.ts";
import { connect } from "./db.ts";

const config = loadConfig((name) => Deno.env.get(name));
const handler = createHandler({
  db: connect(config),
  log: (line) => console.log(JSON.stringify(line)),
  publicBaseUrl: config.publicBaseUrl,
  readFile: (url) => Deno.readFile(url),
});

const port = Deno.env.get("API_PORT");
if (port) {
  Deno.serve({
    hostname: Deno.env.get("API_HOST") ?? "127.0.0.1",
    port: Number(port),
    onListen: ({ hostname, port }) =>
      console.log(JSON.stringify({ level: "info", msg: "listening", url: `http://${hostname}:${port}` })),
  }, handler);
} else {
  Deno.serve(handler);
}
