// The processes `npm run bench` starts besides the stack: the floor server and the load
// generator. Every child is tracked, so that it is stopped by pid whatever happens.
import path from "node:path";
import { spawn } from "node:child_process";
import { ROOT, freePort, stopChild } from "../../scripts/stack.mjs";

/** Every child process still running; killed when this process exits. */
export const children = new Set();

process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function spawnTracked(cmd, args, options) {
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
  const child = spawnTracked(path.join(ROOT, "node_modules", ".bin", "deno"), ["run", "--no-lock", "--allow-net",
    "--allow-env", "--config", "functions/api/deno.json", "bench/floor.ts"], {
    cwd: ROOT, env: { ...process.env, NO_COLOR: "1", DATABASE_URL: databaseUrl, FLOOR_PORT: String(port) },
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
  const child = spawnTracked(process.execPath, [path.join(ROOT, "bench", "lib", "loadgen.mjs"), planFile],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => child.once("exit", (code) =>
    code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`load generator exited (${code})`))));
}
