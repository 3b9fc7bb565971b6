// The test stack cannot outlive its run: when vitest itself is killed outright (SIGKILL, or a
// pipe closed under it), no teardown runs, and the global setup's watchdog must stop the
// Postgres and the function it started. Runs the fixture suite tests/support/fixtures/killed/ on its
// own, kills that vitest once its stack is up, and checks /proc and the data folder.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { descendants, running } from "../support/procs.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("stops the stack's Postgres and function when the vitest process is SIGKILLed", async () => {
  const run = spawn(process.execPath, [
    path.join("node_modules", "vitest", "vitest.mjs"),
    "run",
    "--config",
    "tests/support/fixtures/killed/vitest.config.ts",
  ], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  let out = "";
  let stack: ReturnType<typeof descendants> = [];
  run.stdout.on("data", (c) => (out += c));
  run.stderr.on("data", (c) => (out += c));
  try {
    const deadline = Date.now() + 90_000;
    while (!out.includes("stack up") && run.exitCode === null && Date.now() < deadline) await sleep(100);
    expect(out, out).toContain("stack up");
    stack = descendants(run.pid!).filter((p) => /bin\/postgres -D|deno/.test(p.cmdline));
    expect(stack.some((p) => p.cmdline.includes("bin/postgres -D")), "Postgres is up").toBe(true);
    expect(stack.some((p) => p.cmdline.includes("deno")), "the function is up").toBe(true);

    run.kill("SIGKILL");
    const stopBy = Date.now() + 15_000;
    while (stack.some(running) && Date.now() < stopBy) await sleep(100);
    expect(stack.filter(running).map((p) => `${p.pid} ${p.cmdline}`), "processes left").toEqual([]);
    // ... and removes the run's data folder.
    const folder = /-D (\S+)\/pg\/data/.exec(stack.find((p) => p.cmdline.includes("bin/postgres -D"))!.cmdline)![1];
    while (fs.existsSync(folder) && Date.now() < stopBy + 10_000) await sleep(200);
    expect(fs.existsSync(folder), folder).toBe(false);
  } finally {
    if (run.exitCode === null) run.kill("SIGKILL");
    // Whatever a failure left: stop it here rather than leave it running.
    for (const p of stack.filter(running)) process.kill(p.pid, p.cmdline.includes("postgres") ? "SIGINT" : "SIGTERM");
  }
}, 120_000);
