// Upgrading a database that already holds tournaments with the series migration
// (supabase/migrations/*_series.sql), the way the deploy does it (tests/support/upgrade-stack.ts): every
// migration before it pushed to a throwaway Supabase-shaped cluster, tournaments made there in
// each state through the operations the API runs, then the series migration pushed. Its
// hand-written backfill completes every tournament's options (and every stage's) with best_of
// and final_best_of; nothing else the API showed may change but the matches' new best_of and
// games, no webhook event may be recorded, and the old tournaments must take games.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, migrationsAround, startUpgradeCluster, type UpgradeCluster } from "../support/upgrade-stack.ts";

const { before: EARLIER, it: SERIES } = migrationsAround("_series.sql");

let cluster: UpgradeCluster | undefined;
const op = (account: string, name: string, args: Json) => cluster!.op(account, name, args);

const A = { account: "" };
const B = { account: "" };
interface Made {
  id: string;
  account: string;
}
let seOngoing: Made; // single elimination with a third-place match, one semi-final played
let deStarted: Made; // double elimination, one match played
let staged: Made; // round robin into single elimination, stage 1 under way
let waiting: Made; // swiss, taking registrations
let hooked: Made; // B's (an endpoint hears everything): the final ready
const all = () => ({ seOngoing, deStarted, staged, waiting, hooked });

const before = { tournaments: {} as Record<string, Json>, results: {} as Record<string, Json>, events: 0 };
let pushOutput = "";

const future = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

async function made(account: string, teams: string[], body: Json, startIt = true): Promise<Made> {
  const t = await op(account, "tournaments.create", {
    body: {
      name: `Old ${body.format ?? "event"}`,
      game_id: crypto.randomUUID(),
      team_size: 5,
      max_teams: 16,
      starts_at: future(),
      ...body,
    },
  });
  for (const team of teams) await op(account, "registrations.create", { tournament_id: t.id, body: { team_id: team } });
  if (startIt) await op(account, "tournaments.update", { id: t.id, body: { status: "ongoing" } });
  return { id: t.id, account };
}

const results = (t: Made) => op(t.account, "results.get", { tournament_id: t.id });
const ready = async (t: Made) => (await results(t)).matches.filter((m: Json) => m.status === "ready");
const report = (t: Made, m: Json) =>
  op(t.account, "matches.report", { tournament_id: t.id, match_id: m.id, body: { team1_score: 2, team2_score: 1 } });

beforeAll(async () => {
  cluster = await startUpgradeCluster("series-upgrade");
  await cluster.push(EARLIER);
  for (const acct of [A, B]) {
    [{ id: acct.account }] = await cluster.sql<{ id: string }>("select admin.create_account($1) as id", [
      acct === A ? "Series A" : "Series B",
    ]);
    await cluster.sql("select admin.set_api_access($1, true)", [acct.account]);
  }
  const teams = async (account: string, prefix: string, n: number) => {
    const ids: string[] = [];
    for (let i = 1; i <= n; i++) {
      ids.push((await op(account, "teams.create", { body: { name: `${prefix} ${i}`, tag: `${prefix[0]}${i}` } })).id);
    }
    return ids;
  };
  const ta = await teams(A.account, "Alpha", 8);
  const tb = await teams(B.account, "Bravo", 2);
  await op(B.account, "webhooks.create", {
    body: { url: "https://hooks.example.com/t", events: ["*"] },
    secret: crypto.randomBytes(32).toString("base64"),
  });

  seOngoing = await made(A.account, ta.slice(0, 4), { format: "single_elimination", format_options: { third_place_match: true } });
  await report(seOngoing, (await ready(seOngoing))[0]);
  deStarted = await made(A.account, ta.slice(0, 4), { format: "double_elimination" });
  await report(deStarted, (await ready(deStarted))[0]);
  staged = await made(A.account, ta.slice(0, 4), {
    stages: [
      { name: "Groups", format: "round_robin", advance: { per_group: 2 } },
      { name: "Final", format: "single_elimination" },
    ],
  });
  await report(staged, (await ready(staged))[0]);
  waiting = await made(A.account, ta.slice(4, 8), { format: "swiss" }, false);
  hooked = await made(B.account, tb, { format: "single_elimination" });

  for (const [name, t] of Object.entries(all())) {
    before.tournaments[name] = await op(t.account, "tournaments.get", { id: t.id });
    before.results[name] = await results(t);
  }
  [{ n: before.events }] = await cluster.sql<{ n: number }>("select count(*)::int as n from app.webhook_events");

  await cluster.reconnect(); // no session of ours open across the migration
  pushOutput = await cluster.push([SERIES]);
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

/** What the migration adds to a format's options: best_of 1, and final_best_of 1 where there is a final. */
const completed = (format: string, options: Json) => ({
  ...options,
  best_of: 1,
  ...(format.endsWith("_elimination") ? { final_best_of: 1 } : {}),
});

describe("the series migration on a database that holds tournaments", () => {
  it("completes every tournament's options and every stage's with best_of (and final_best_of), changing nothing else", async () => {
    expect(pushOutput).toContain(SERIES);
    for (const [name, t] of Object.entries(all())) {
      const was = before.tournaments[name];
      const now = await op(t.account, "tournaments.get", { id: t.id });
      expect(was.format_options.best_of, name).toBeUndefined(); // the scenario is from before series
      expect(now, name).toEqual({
        ...was,
        format_options: completed(was.format, was.format_options),
        stages: was.stages.map((s: Json) => ({ ...s, format_options: completed(s.format, s.format_options) })),
      });
    }
  });

  it("leaves the results as they were, but for best_of 1 and no games on every match", async () => {
    for (const [name, t] of Object.entries(all())) {
      const now = await results(t);
      expect(now, name).toEqual({
        ...before.results[name],
        matches: before.results[name].matches.map((m: Json) => ({ ...m, best_of: 1, games: [] })),
      });
    }
  });

  it("records no webhook event", async () => {
    const [{ n }] = await cluster!.sql<{ n: number }>("select count(*)::int as n from app.webhook_events");
    expect(n).toBe(before.events);
  });
});

describe("the old tournaments afterwards", () => {
  it("take games: a best-of-one decided by its game advances its winner, as a result sent directly would", async () => {
    const [semi] = await ready(seOngoing);
    const after = await op(A.account, "games.put", {
      tournament_id: seOngoing.id,
      match_id: semi.id,
      number: 1,
      body: { team1_score: 13, team2_score: 4, map: "Mirage" },
    });
    expect(after).toMatchObject({ status: "completed", team1_score: 1, team2_score: 0, winner_id: semi.team1_id, best_of: 1 });
    const ms = (await results(seOngoing)).matches;
    const final = ms.find((m: Json) => m.bracket === "winners" && m.round === 2);
    expect([final.team1_id, final.team2_id]).toContain(semi.team1_id);
    expect(final.status).toBe("ready");
    expect(ms.find((m: Json) => m.bracket === "third_place").status).toBe("ready");
  });

  it("send match.game_reported, then match.completed, to an endpoint made before the upgrade", async () => {
    const [final] = await ready(hooked);
    await op(B.account, "games.put", {
      tournament_id: hooked.id,
      match_id: final.id,
      number: 1,
      body: { team1_score: 2, team2_score: 16 },
    });
    const types = (await cluster!.sql<{ type: string }>(
      `select e.type from app.webhook_events e join app.webhook_deliveries d on d.event_id = e.id
        where e.account_id = $1 and e.type like 'match.%' order by d.seq`,
      [B.account],
    ))
      .map((r) => r.type);
    expect(types.slice(-2)).toEqual(["match.game_reported", "match.completed"]);
  });

  it("play on in double elimination and across stages; a tournament in registration takes best_of and starts with it", async () => {
    expect(
      await op(A.account, "games.put", {
        tournament_id: deStarted.id,
        match_id: (await ready(deStarted))[0].id,
        number: 1,
        body: { team1_score: 1, team2_score: 0 },
      }),
    ).toMatchObject({ status: "completed" });
    expect(
      await op(A.account, "games.put", {
        tournament_id: staged.id,
        match_id: (await ready(staged))[0].id,
        number: 1,
        body: { team1_score: 0, team2_score: 1 },
      }),
    ).toMatchObject({ status: "completed" });
    expect(
      (await cluster!.opError(A.account, "games.put", {
        tournament_id: staged.id,
        match_id: (await ready(staged))[0].id,
        number: 2,
        body: { team1_score: 0, team2_score: 1 },
      })).code,
    ).toBe("validation_error");
    await op(A.account, "tournaments.update", { id: waiting.id, body: { format_options: { best_of: 3 } } });
    await op(A.account, "tournaments.update", { id: waiting.id, body: { status: "ongoing" } });
    const ms = (await results(waiting)).matches;
    expect(ms.length).toBeGreaterThan(0);
    for (const m of ms) expect(m.best_of).toBe(3);
  });
});
