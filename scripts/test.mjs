// `npm test`: the type check, lint and format check, the bundle check, the main suite, then the pooler pass (the files of
// vitest.pooler.config.ts again, with the function behind PgBouncer in transaction mode) where
// PgBouncer is installed; where it is not, one line says the pass was not run. Arguments go to
// both vitest runs; a JSON report (--outputFile=<file>) is written per pass, the pooler's as
// <file> with ".pooler" before its extension (scripts/ci-summary.mjs reads both). Exits non-zero
// when any step fails.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { findPgBouncer, ROOT } from "./stack.mjs";

const args = process.argv.slice(2);
const run = (command, list) => spawnSync(command, list, { cwd: ROOT, stdio: "inherit" }).status ?? 1;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const vitest = path.join(ROOT, "node_modules", ".bin", "vitest");

for (const script of ["typecheck", "lint", "check:bundle"]) {
  const status = run(npm, ["run", "--silent", script]);
  if (status !== 0) process.exit(status);
}
const main = run(vitest, ["run", ...args]);
let pooler = 0;
if (findPgBouncer()) {
  console.log("\nThe pooler pass: the function behind PgBouncer in transaction mode (vitest.pooler.config.ts)\n");
  // Its own JSON report: --outputFile=<file> or --outputFile <file> with ".pooler" before the extension.
  const pooledName = (file) => file.replace(/^(.*?)(\.[^./]*)?$/, (_, name, ext = "") => `${name}.pooler${ext}`);
  const pooled = args.map((a, i) =>
    a.startsWith("--outputFile=")
      ? `--outputFile=${pooledName(a.slice("--outputFile=".length))}`
      : args[i - 1] === "--outputFile"
      ? pooledName(a)
      : a
  );
  // A filter that names no file of the pass (npm test -- tests/x.test.ts) leaves it nothing to run.
  pooler = run(vitest, ["run", "--config", "vitest.pooler.config.ts", "--passWithNoTests", ...pooled]);
} else if (process.env.TEST_REQUIRE_POOLER === "1") {
  console.log("The pooler pass could not run: PgBouncer is not installed, and TEST_REQUIRE_POOLER=1 (.ci/run) requires it.");
  pooler = 1;
} else {
  console.log("The pooler pass was not run: PgBouncer is not installed (apt-get install pgbouncer); CI installs it.");
}
process.exit(main !== 0 ? main : pooler);
