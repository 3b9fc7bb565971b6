// The 5xx report the test stack prints at the end of a run (tests/support/server-errors.ts), on
// logs written here: the failing requests' lines, Postgres's errors of their SQLSTATEs before
// any lock wait, bounded, secrets taken out; nothing when no request answered 5xx.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serverErrorReport } from "../support/server-errors.ts";

function logs(functionLines: object[], postgresLines: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "server-errors-"));
  const fn = path.join(dir, "function.log");
  const pg = path.join(dir, "postgres.log");
  fs.writeFileSync(fn, functionLines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  fs.writeFileSync(pg, postgresLines.join("\n") + "\n");
  return { fn, pg };
}

const at = "2026-11-28 10:00:00.000 UTC";

describe("the 5xx report", () => {
  it("says nothing when no request answered 5xx", () => {
    const { fn, pg } = logs([{ msg: "request", status: 200 }, { msg: "request", status: 409 }], [
      `${at} [1] 40P01 tournament_api ERROR:  deadlock detected`,
    ]);
    expect(serverErrorReport(fn, pg)).toBe("");
  });

  it("shows a 503's deadlock report ahead of many lock waits, and takes keys and passwords out", () => {
    const waits = Array.from(
      { length: 200 },
      (_, i) =>
        `${at} [${i + 10}] 00000 tournament_api LOG:  process ${i + 10} still waiting for ShareLock on transaction 7 after 1000.1 ms`,
    );
    const { fn, pg } = logs([
      { msg: "request", status: 503, db_code: "40P01", error: "deadlock detected postgres://tournament_api:secret@127.0.0.1:1/postgres" },
      { msg: "request", status: 200, error: "tmk_notshown" },
    ], [
      ...waits,
      `${at} [42] 40P01 tournament_api ERROR:  deadlock detected`,
      `${at} [42] 40P01 tournament_api DETAIL:  Process 42 waits for ShareLock on transaction 9; blocked by process 43.`,
      `\tProcess 43 waits for ShareLock on transaction 8; blocked by process 42.`,
      `${at} [42] 40P01 tournament_api STATEMENT:  select api.call($1, $2, $3, $4, $5, $6) -- tmk_abcdefghijklmnopqrstuvwxyz`,
      `${at} [44] 23505 postgres ERROR:  duplicate key value violates unique constraint "x"`,
    ]);
    const report = serverErrorReport(fn, pg);
    expect(report).toContain("1 request(s) answered 5xx");
    expect(report).toContain("ERROR:  deadlock detected");
    expect(report).toContain("Process 43 waits for ShareLock");
    expect(report).toContain("STATEMENT:  select api.call");
    expect(report).not.toContain("duplicate key"); // another SQLSTATE
    expect(report).not.toMatch(/secret@|tmk_[a-z]{5}/);
    expect(report.trimEnd().split("\n").length).toBeLessThanOrEqual(52);
  });
});
