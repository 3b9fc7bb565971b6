// The suite can fail: a run with one failing test exits non-zero. An earlier Postgres helper
// called process.exit(0) from an exit hook inside vitest's process, so `npm test` passed
// whatever the tests said; this runs a fixture suite under the same global setup, on its own,
// and checks the exit code and the counts vitest reports.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

it("a suite with a failing test exits non-zero and reports 1 passed, 1 failed", () => {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "can-fail-")), "result.json");
  const run = spawnSync(path.join("node_modules", ".bin", "vitest"), [
    "run",
    "--config",
    "tests/support/fixtures/can-fail/vitest.config.ts",
    "--reporter=json",
    `--outputFile=${out}`,
  ], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 120_000 });
  const result = JSON.parse(fs.readFileSync(out, "utf8"));
  // .ci/run's closing summary, over the same report, fails too and counts the file once.
  const summary = spawnSync(process.execPath, ["scripts/ci-summary.mjs", out, String(run.status)], { encoding: "utf8" });
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  expect({ status: run.status, passed: result.numPassedTests, failed: result.numFailedTests }, run.stdout + run.stderr).toEqual({
    status: 1,
    passed: 1,
    failed: 1,
  });
  expect({ status: summary.status, lines: summary.stdout.trim().split("\n") }).toEqual({
    status: 1,
    lines: [
      // the failed test named, with its failure's first line and where in the test file it failed
      "FAILED tests/support/fixtures/can-fail/fails.fixture.ts > fails on purpose",
      "  AssertionError: expected 1 to be 2 // Object.is equality",
      expect.stringMatching(/^ {4}at .*tests\/support\/fixtures\/can-fail\/fails\.fixture\.ts:\d+:\d+$/),
      "Test files: 0 passed, 1 failed",
      "CI FAILED: the test command exited 1; 1 test(s) failed; 1 test file(s) failed",
      "Tests: 1 passed, 1 failed",
    ],
  });
}, 120_000);
