// The processes `npm run bench` starts besides the stack: the floor server, the load
// generator, and for the webhook figures the receiver and the dispatcher's floor. Every child is tracked, so that it is stopped by pid whatever happens.
import path from "node:path";
import { spawn } from "node:child_process";
import { freePort, ROOT, stopChild } from "../../scripts/stack.mjs";

/** Every child process still running; killed when this process exits. */
export const children = new Set();

process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

export function spawnTracked(cmd, args, options) {
  const child = spawn(cmd, args, options);
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/**
 * bench/floor.ts (Deno, pg Pool max 10, one `select 1` per request) on a free port, connected as
 * the function's role; resolves once it listens.
 */
export async function startFloor(databaseUrl) {
  const port = await freePort();
  const child = spawnTracked(path.join(ROOT, "node_modules", ".bin", "deno"), [
    "run",
    "--no-lock",
    "--allow-net",
    "--allow-env",
    "--config",
    "functions/api/deno.json",
    "bench/floor.ts",
  ], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", DATABASE_URL: databaseUrl, FLOOR_PORT: String(port) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => String(d).includes('"listening"') && resolve());
    child.once("exit", (code) => reject(new Error(`bench/floor.ts exited (${code})`)));
  });
  return { origin: `http://127.0.0.1:${port}`, pid: child.pid, stop: () => stopChild(child) };
}

/** Runs bench/lib/loadgen.mjs on a plan file; resolves with the JSON line it prints. */
export function runLoad(planFile) {
  const child = spawnTracked(process.execPath, [path.join(ROOT, "bench", "lib", "loadgen.mjs"), planFile], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.once(
      "exit",
      (code) => code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`load generator exited (${code})`)),
    )
  );
}

/**
 * bench/lib/receiver.mjs (node:http, 200 at once) on a free port; resolves once it listens with
 * { origin, pid, control(path) (a GET of /_control/…, parsed), stop() }.
 */
export async function startReceiver() {
  const child = spawnTracked(process.execPath, [path.join(ROOT, "bench", "lib", "receiver.mjs")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise((resolve, reject) => {
    child.stdout.once("data", (d) => resolve(JSON.parse(String(d).split("\n")[0]).port));
    child.once("exit", (code) => reject(new Error(`bench/lib/receiver.mjs exited (${code})`)));
  });
  const origin = `http://127.0.0.1:${port}`;
  const control = async (what) => {
    const res = await fetch(`${origin}/_control/${what}`, { signal: AbortSignal.timeout(120_000) });
    return res.json();
  };
  return { origin, pid: child.pid, control, stop: () => stopChild(child) };
}

/**
 * Runs bench/lib/webhook-floor.mjs on a plan file, under Node (`plan.client` "http": node:http
 * with keep-alive; "fetch": Node's fetch) or under Deno (its fetch, the dispatcher's runtime);
 * resolves with the JSON line it prints.
 */
export function runWebhookFloor(planFile, { runtime = "node" } = {}) {
  const script = path.join(ROOT, "bench", "lib", "webhook-floor.mjs");
  const [cmd, args] = runtime === "deno"
    ? [path.join(ROOT, "node_modules", ".bin", "deno"), [
      "run",
      "--no-lock",
      "--allow-read",
      "--allow-net",
      "--allow-env",
      "--allow-sys",
      script,
      planFile,
    ]]
    : [process.execPath, [script, planFile]];
  const child = spawnTracked(cmd, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((resolve, reject) =>
    child.once(
      "exit",
      (code) => code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`webhook floor exited (${code})`)),
    )
  );
}
