// Reads vitest's JSON report and the test command's exit code; prints the closing line
// "Tests: N passed, N failed" and exits non-zero when anything is wrong: the command failed,
// a test or a test file failed, or no test ran at all.
import fs from "node:fs";

const [file, statusArg] = process.argv.slice(2);
const status = Number(statusArg);
let report = null;
try {
  report = JSON.parse(fs.readFileSync(file, "utf8"));
} catch {
  // no report: the type check (or something before vitest) failed
}
const passed = report?.numPassedTests ?? 0;
const failed = report?.numFailedTests ?? 0;
// One entry of testResults per test file (numTotalTestSuites also counts every describe block).
const fileResults = report?.testResults ?? [];
const files = fileResults.length;
const failedFiles = fileResults.filter((r) => r.status !== "passed").length;
const problems = [];
if (status !== 0) problems.push(`the test command exited ${status}`);
if (!report) problems.push("no test report was written");
if (failed > 0) problems.push(`${failed} test(s) failed`);
if (failedFiles > 0) problems.push(`${failedFiles} test file(s) failed`);
if (report && report.numTotalTests === 0) problems.push("no test ran");
if (report && passed + failed !== report.numTotalTests) {
  problems.push(`${report.numTotalTests - passed - failed} test(s) were skipped or left pending`);
}
console.log(`Test files: ${files - failedFiles} passed, ${failedFiles} failed`);
if (problems.length) console.log(`CI FAILED: ${problems.join("; ")}`);
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(problems.length ? 1 : 0);
