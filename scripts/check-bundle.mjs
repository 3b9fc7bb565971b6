// `npm run check:bundle`: do the functions (`api`, `webhooks`) build the way Supabase builds them?
//
// `supabase functions deploy api --use-api` uploads the entrypoint's import graph, the Deno config
// (import_map in supabase/config.toml) and the static files, never node_modules, and the server
// resolves npm packages itself with an empty cache. This script does the same here: it copies the
// entrypoint's folder and functions/_shared (without node_modules) and the static files named in config.toml to a temp
// folder, points DENO_DIR at a new empty folder, and runs `deno check` and `deno bundle` of the
// entrypoint with the lock file frozen (a lock that does not match deno.json fails), then boots
// the bundle with a deployed-looking environment and no DATABASE_URL and expects a 503 envelope.
// It also checks that the npm versions Deno pins match package.json (the tests run on Node).
//
// Options: --keep (keep the temp folders and print where they are).
// Exit status 0 when everything passed, 1 otherwise (with the reason on stderr).
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SUPABASE_DIR = path.join(ROOT, "supabase");
const DENO = path.join(ROOT, "node_modules", ".bin", "deno");
// Each function, how its bundle is booted and what it must answer deployed without its database.
const FUNCTIONS = [
  { slug: "api", portVar: "API_PORT", path: "/api/v1/tournaments", method: "GET", missing: "DATABASE_URL is not set", envelope: true },
  { slug: "webhooks", portVar: "WEBHOOKS_PORT", path: "/", method: "POST", missing: "WEBHOOKS_DATABASE_URL is not set", envelope: false },
];
// Code the functions share (Supabase's convention: functions/_shared), bundled with each.
const SHARED_DIR = path.join(ROOT, "functions", "_shared");
const keep = process.argv.includes("--keep");

class CheckFailed extends Error {}
const fail = (message) => {
  throw new CheckFailed(message);
};

/** The string and string-array keys of one [section] of config.toml (all this script needs). */
function tomlSection(text, name) {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.trim() === `[${name}]`);
  if (start < 0) fail(`supabase/config.toml has no [${name}] section`);
  const values = {};
  for (const raw of lines.slice(start + 1)) {
    const line = raw.replace(/^\s+/, "");
    if (line.startsWith("[")) break;
    const m = /^([A-Za-z_]+)\s*=\s*(.+?)\s*(#.*)?$/.exec(line);
    if (!m) continue;
    const value = m[2];
    if (value.startsWith('"')) values[m[1]] = JSON.parse(value);
    else if (value.startsWith("[")) values[m[1]] = JSON.parse(value);
    else values[m[1]] = value;
  }
  return values;
}

/** Files matching a static_files pattern (a `*` in the last segment at most, as used here). */
function expand(pattern) {
  const dir = path.dirname(pattern);
  const base = path.basename(pattern);
  if (!base.includes("*")) return fs.existsSync(pattern) ? [pattern] : [];
  if (dir.includes("*")) fail(`static_files pattern ${pattern}: only the last segment may hold *`);
  const re = new RegExp(`^${base.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*")}$`);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => re.test(f)).map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).isFile());
}

function run(args, { cwd, env, label }) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(DENO, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      if (code === 0) {
        console.log(`  ok   ${label} (${seconds} s)`);
        resolve(output);
      } else {
        reject(new CheckFailed(`${label} failed (exit ${code}, ${seconds} s):\n${output.trim()}`));
      }
    });
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Boots the bundle as if deployed without DATABASE_URL; every request must be a 503 envelope. */
async function bootBundle(bundle, env, fn) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(DENO, ["run", "--no-config", "--no-lock", "--allow-net", "--allow-env", "--allow-read", bundle], {
    cwd: path.dirname(bundle),
    env: { ...env, [fn.portVar]: String(port), SB_REGION: "check-bundle" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new CheckFailed(`the bundle did not listen within 20 s:\n${output}`)), 20_000);
      const onData = (d) => {
        output += d;
        if (output.includes('"msg":"listening"')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("exit", (code) => {
        clearTimeout(timer);
        reject(new CheckFailed(`the bundle exited (${code}) before listening:\n${output}`));
      });
    });
    const res = await fetch(`http://127.0.0.1:${port}${fn.path}`, { method: fn.method });
    const body = await res.json().catch(() => null);
    const refused = fn.envelope
      ? body?.error?.code === "service_unavailable" && body?.success === false
      : body?.error === "service_unavailable";
    if (res.status !== 503 || !refused) {
      fail(
        `the bundle, deployed without its database URL, answered ${res.status} ${JSON.stringify(body)}; expected 503 service_unavailable`,
      );
    }
    if (!output.includes(fn.missing)) fail(`the bundle did not log why it refuses to serve:\n${output}`);
    console.log(
      `  ok   bundle boots; without its database URL it answers 503 service_unavailable (${
        ((performance.now() - started) / 1000).toFixed(1)
      } s)`,
    );
  } finally {
    if (child.exitCode === null) {
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
}

async function main() {
  for (const fn of FUNCTIONS) await checkFunction(fn);
}

async function checkFunction(fn) {
  const SLUG = fn.slug;
  const started = performance.now();
  const config = tomlSection(fs.readFileSync(path.join(SUPABASE_DIR, "config.toml"), "utf8"), `functions.${SLUG}`);
  if (!config.entrypoint) fail(`[functions.${SLUG}] has no entrypoint`);
  const fromSupabase = (p) => path.resolve(SUPABASE_DIR, p);
  const entrypoint = fromSupabase(config.entrypoint);
  const functionDir = path.dirname(entrypoint);
  const importMap = config.import_map ? fromSupabase(config.import_map) : path.join(functionDir, "deno.json");
  for (const [what, file] of [["entrypoint", entrypoint], ["import_map", importMap]]) {
    if (!fs.existsSync(file)) fail(`${what} ${path.relative(ROOT, file)} (from supabase/config.toml) does not exist`);
  }
  if (path.dirname(importMap) !== functionDir) {
    fail(`import_map ${path.relative(ROOT, importMap)} is not next to the entrypoint; this check (and deno.lock) assume it is`);
  }
  const lockFile = path.join(functionDir, "deno.lock");
  if (!fs.existsSync(lockFile)) fail(`${path.relative(ROOT, lockFile)} is missing (commit it; see the README's "The lock file")`);
  const denoConfig = JSON.parse(fs.readFileSync(importMap, "utf8"));
  // Supabase bundles the function folder alone, without node_modules, with its own Deno: the
  // config must not name a node_modules mode at all (Deno given this config resolves npm:
  // packages from its cache without one; older Denos also read the key as a boolean).
  if (Object.hasOwn(denoConfig, "nodeModulesDir")) {
    fail(
      `${
        path.relative(ROOT, importMap)
      } sets "nodeModulesDir": "${denoConfig.nodeModulesDir}"; deployed, there is no node_modules: leave the key out`,
    );
  }

  // The npm versions Deno pins (the lock) must be the ones the Node tests run (package.json).
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const nodeVersions = { ...pkg.dependencies, ...pkg.devDependencies };
  const lock = JSON.parse(fs.readFileSync(lockFile, "utf8"));
  for (const specifier of Object.keys(lock.specifiers ?? {})) {
    const m = /^npm:(@?[^@]+)@(.+)$/.exec(specifier);
    if (m && nodeVersions[m[1]] !== undefined && nodeVersions[m[1]] !== m[2]) {
      fail(`Deno pins ${m[1]}@${m[2]} (${path.relative(ROOT, lockFile)}) but package.json has ${m[1]}@${nodeVersions[m[1]]}`);
    }
  }

  // The upload: the function's folder without node_modules, plus the static files.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "check-bundle-"));
  const denoDir = path.join(work, "deno-dir");
  const copyRoot = path.join(work, "project");
  fs.mkdirSync(denoDir);
  const copy = (from) => path.join(copyRoot, path.relative(ROOT, from));
  try {
    for (const dir of [functionDir, ...(fs.existsSync(SHARED_DIR) ? [SHARED_DIR] : [])]) {
      fs.cpSync(dir, copy(dir), { recursive: true, filter: (src) => path.basename(src) !== "node_modules" });
    }
    let staticCount = 0;
    for (const pattern of config.static_files ?? []) {
      const files = expand(fromSupabase(pattern));
      if (files.length === 0) fail(`static_files pattern "${pattern}" matches no file: run npm install (it copies the docs page's assets)`);
      for (const file of files) {
        fs.mkdirSync(path.dirname(copy(file)), { recursive: true });
        fs.copyFileSync(file, copy(file));
        staticCount++;
      }
    }
    const copied = copy(entrypoint);
    console.log(
      `check:bundle: ${
        path.relative(ROOT, functionDir)
      } and functions/_shared (no node_modules) + ${staticCount} static file(s) -> ${copyRoot}, DENO_DIR empty`,
    );

    // The caller's environment (registry, proxy and CA settings) minus anything that would point
    // Deno at another cache or the function at a database; DENO_DIR is the new empty folder.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) =>
        !/^(DENO_DIR|DENO_INSTALL_ROOT|DATABASE_URL|WEBHOOKS_DATABASE_URL|WEBHOOK_.*|SUPABASE_.*|SB_.*|DENO_DEPLOYMENT_ID|LOG_REQUESTS|DB_.*|API_.*|PUBLIC_BASE_URL)$/
          .test(name)
      ),
    );
    Object.assign(env, {
      NO_COLOR: "1",
      DENO_DIR: denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      // As Supabase's bundler does for a function without a package.json of its own.
      DENO_NO_PACKAGE_JSON: "1",
    });
    const cwd = path.dirname(copied);
    const configArgs = ["--config", copy(importMap), "--lock", copy(lockFile), "--frozen"];
    await run(["check", ...configArgs, copied], { cwd, env, label: "deno check (empty cache, npm registry, frozen lock)" });
    const bundle = path.join(work, "out", `${SLUG}.js`);
    await run(["bundle", ...configArgs, "--platform", "deno", "--output", bundle, copied], { cwd, env, label: "deno bundle" });
    if (!fs.existsSync(bundle) || fs.statSync(bundle).size === 0) fail("deno bundle wrote no output");
    console.log(`       bundle ${(fs.statSync(bundle).size / 1024).toFixed(0)} KiB`);
    await bootBundle(bundle, env, fn);
    console.log(`check:bundle ${SLUG} passed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    if (keep) console.log(`kept ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(`\ncheck:bundle FAILED: ${err instanceof CheckFailed ? err.message : err?.stack ?? err}`);
  process.exit(1);
});
