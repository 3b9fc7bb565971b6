// A read's ETag is the version of its body (contract section 14), even when a write commits
// while the read runs. The read is made to wait inside its operation: a transaction holds
// app.matches locked, renames the tournament (its version goes up) and commits once the read
// is waiting. With the version read in the caller's snapshot and the body's parts in later
// ones, the answer was the old version with matches read after the write (and, in the live
// suite under load, a body of the new version under the old ETag).
import { describe, expect, it } from "vitest";
import { admin, apiUrl, createTeams, startedTournament } from "../support/helpers.ts";

describe("a read racing a write", () => {
  it("answers the ETag of the version its body shows when a write commits while it reads", async () => {
    const { t, id } = await startedTournament({}, await createTeams(4, "Snapshot"));
    // (Not read through the function first: an instance that kept the results would answer from
    // the version alone, without reading.)
    const [{ version: before }] = (await admin().query("select app.version_of($1) as version", [id])).rows;
    const writer = await admin().connect();
    try {
      await writer.query("begin");
      await writer.query("lock table app.matches in access exclusive mode");
      await writer.query("update app.tournaments set name = name || ' (renamed)' where id = $1", [id]);
      const reading = fetch(`${apiUrl()}/tournaments/${id}/results`, { headers: { authorization: `Bearer ${t.key}` } });
      // The read is waiting for the lock once Postgres shows it waiting.
      let waiting = false;
      for (let i = 0; i < 400 && !waiting; i++) {
        const { rows } = await admin().query(
          "select count(*)::int as n from pg_locks where relation = 'app.matches'::regclass and not granted",
        );
        waiting = rows[0].n > 0;
        if (!waiting) await new Promise((r) => setTimeout(r, 25));
      }
      expect(waiting, "the read waits for the lock on app.matches").toBe(true);
      await writer.query("commit");
      const res = await reading;
      const body = await res.json();
      expect(res.status).toBe(200);
      expect(body.data.tournament.version).toBeGreaterThan(Number(before));
      expect(Number(JSON.parse(res.headers.get("etag")!))).toBe(body.data.tournament.version);
    } finally {
      await writer.query("rollback").catch(() => {});
      writer.release();
    }
  });
});
