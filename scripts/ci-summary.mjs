// Reads vitest's JSON reports and the test command's exit code; prints the closing line
// "Tests: N passed, N failed" and exits non-zero when anything is wrong: the command failed,
// a test or a test file failed, or no test ran at all. `npm test` writes one report per pass
// (scripts/test.mjs): <file> for the main suite and <file> with ".pooler" before its extension
// for the pooler pass, which is counted when it ran.
import fs from "node:fs";

const [file, statusArg] = process.argv.slice(2);
const status = Number(statusArg);
const read = (f) => {
  try {
    return JSON.parse(fs.readFileSync(f, "utf8"));
  } catch {
    return null; // no report: the type check (or something before vitest) failed, or the pass did not run
  }
};
const main = read(file);
const pooler = read(file.replace(/(\.[^./]*)?$/, (ext) => `.pooler${ext}`));
const reports = [main, pooler].filter(Boolean);
const sum = (f) => reports.reduce((n, r) => n + f(r), 0);
const passed = sum((r) => r.numPassedTests ?? 0);
const failed = sum((r) => r.numFailedTests ?? 0);
const total = sum((r) => r.numTotalTests ?? 0);
// One entry of testResults per test file (numTotalTestSuites also counts every describe block).
const fileResults = reports.flatMap((r) => r.testResults ?? []);
const files = fileResults.length;
const failedFiles = fileResults.filter((r) => r.status !== "passed").length;
const problems = [];
if (status !== 0) problems.push(`the test command exited ${status}`);
if (!main) problems.push("no test report was written");
if (failed > 0) problems.push(`${failed} test(s) failed`);
if (failedFiles > 0) problems.push(`${failedFiles} test file(s) failed`);
if (main && main.numTotalTests === 0) problems.push("no test ran");
if (passed + failed !== total) problems.push(`${total - passed - failed} test(s) were skipped or left pending`);
// The failures are named last, beside the counts, so that the tail of a CI log (often all that
// is kept of it) says which test failed and why, not only how many.
for (const r of fileResults) {
  const name = r.name ? r.name.replace(process.cwd() + "/", "") : "?";
  const tests = (r.assertionResults ?? []).filter((t) => t.status === "failed");
  if (r.status !== "passed" && tests.length === 0) console.log(`FAILED FILE ${name}: ${(r.message ?? "").slice(0, 600)}`);
  for (const t of tests) {
    console.log(`FAILED ${name} > ${t.fullName ?? t.title}`);
    // the message's first lines and the stack's frames outside node_modules (where in the test it failed)
    for (const m of t.failureMessages ?? []) {
      const lines = m.split("\n");
      const message = lines.filter((l) => l.trim() !== "" && !/^\s+at /.test(l)).slice(0, 4);
      const frames = lines.filter((l) => /^\s+at .*\/tests\//.test(l) && !l.includes("node_modules")).slice(0, 2);
      for (const l of message) console.log("  " + l.trimEnd().slice(0, 400));
      for (const l of frames) console.log("    " + l.trim().slice(0, 400));
    }
  }
}
// (When the pooler pass did not run, scripts/test.mjs said so.)
if (pooler) console.log(`Pooler pass: ${pooler.numPassedTests} passed, ${pooler.numFailedTests} failed (counted below)`);
console.log(`Test files: ${files - failedFiles} passed, ${failedFiles} failed`);
if (problems.length) console.log(`CI FAILED: ${problems.join("; ")}`);
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(problems.length ? 1 : 0);
