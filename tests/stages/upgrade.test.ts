// Upgrading a database that already holds tournaments with the stages migration
// (supabase/migrations/*_stages.sql), the way the deploy does it: `supabase db push` of the
// migrations before it to a throwaway Supabase-shaped cluster, tournaments made there through
// the operations the API runs, then `supabase db push` again with the stages migration added.
// Its hand-written backfill must give every started tournament stage 1's entries (the bracket
// seeds, or registration order for a tournament started before bracket seeds existed) and
// stage 1's row, change nothing the API showed, record no webhook event, and leave the old
// tournaments playable. One cluster for the file; the tests run in order on it.
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Json, migrationsAround, startUpgradeCluster, type UpgradeCluster } from "../support/upgrade-stack.ts";

const { before: EARLIER, it: STAGES_FILE } = migrationsAround("_stages.sql");
const STAGES = [STAGES_FILE];
// The last migration before bracket seeds existed (20261123110000_teams_lifecycle adds them).
const LEGACY_UNTIL = "20261123110000";

type Row = Record<string, unknown>;

let cluster: UpgradeCluster | undefined;
const sql = <T extends Row = Row>(text: string, params: unknown[] = []) => cluster!.sql<T>(text, params);
const push = (files: string[]) => cluster!.push(files);
const op = (account: string, name: string, args: Json) => cluster!.op(account, name, args);
const opError = (account: string, name: string, args: Json) => cluster!.opError(account, name, args);

/** Before bracket seeds: the app functions of that day, called as postgres with the account set. */
function legacy(account: string, fn: string, args: Json): Promise<Json> {
  return cluster!.bound(account, null, `select app.${fn}($1::jsonb) as result`, [JSON.stringify(args)]);
}

const future = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

interface Made {
  id: string;
  account: string;
  teams: string[]; // registered, in registration order
  participants: string[]; // those that play (checked in, where there is check-in)
  seeds: Record<string, number>; // the seeds the organiser asked for
}

const A = { account: "" };
const B = { account: "" };
const L = { account: "" };
let seOngoing: Made;
let seCompleted: Made;
let swiss: Made;
let waiting: Made;
let hooked: Made;
let old: Made;
const all = () => ({ seOngoing, seCompleted, swiss, waiting, hooked, old });
const started = () => ({ seOngoing, seCompleted, swiss, hooked, old });

// Before the stages migration.
const before = {
  results: {} as Record<string, Json>,
  bracketSeeds: {} as Record<string, { team_id: string; seed: number }[]>,
  events: 0,
  hookedEvents: {} as Record<string, number>,
};
let pushStartedAt: number;
let pushEndedAt: number;
let pushOutput = "";

/** An account's webhook events, counted by type. */
async function eventTypes(account: string): Promise<Record<string, number>> {
  const rows = await sql<{ type: string; n: number }>(
    "select type, count(*)::int as n from app.webhook_events where account_id = $1 group by type",
    [account],
  );
  return Object.fromEntries(rows.map((r) => [r.type, r.n]));
}

async function matches(t: Made): Promise<Json[]> {
  return (await op(t.account, "results.get", { tournament_id: t.id })).matches;
}

async function report(t: Made, match: Json, team1Wins = true): Promise<Json> {
  return op(t.account, "matches.report", {
    tournament_id: t.id,
    match_id: match.id,
    body: team1Wins ? { team1_score: 2, team2_score: 1 } : { team1_score: 0, team2_score: 3 },
  });
}

async function reportReady(t: Made, filter: (m: Json) => boolean = () => true): Promise<number> {
  let n = 0;
  for (const m of await matches(t)) {
    if (m.status === "ready" && filter(m)) {
      await report(t, m, n % 2 === 0);
      n++;
    }
  }
  return n;
}

async function makeTournament(
  account: string,
  name: string,
  teams: string[],
  body: Json,
  { seeds = {}, checkedIn }: { seeds?: Record<string, number>; checkedIn?: string[] } = {},
): Promise<Made> {
  const t = await op(account, "tournaments.create", {
    body: { name, game_id: crypto.randomUUID(), team_size: 5, max_teams: 16, starts_at: future(), ...body },
  });
  for (const team of teams) {
    const r = await op(account, "registrations.create", { tournament_id: t.id, body: { team_id: team } });
    const patch: Json = {};
    if (seeds[team] !== undefined) patch.seed = seeds[team];
    if (checkedIn?.includes(team)) patch.checked_in = true;
    if (Object.keys(patch).length) {
      await op(account, "registrations.update", { tournament_id: t.id, registration_id: r.id, body: patch });
    }
  }
  return { id: t.id, account, teams, participants: checkedIn ?? teams, seeds };
}

const start = (t: Made) => op(t.account, "tournaments.update", { id: t.id, body: { status: "ongoing" } });
const complete = (t: Made) => op(t.account, "tournaments.update", { id: t.id, body: { status: "completed" } });

/** The seeds a tournament's start gives: seeded teams first by seed, then registration order. */
function expectedSeeds(t: Made): { team_id: string; seed: number }[] {
  const order = t.participants.map((team, i) => ({ team, i }))
    .sort((x, y) => (t.seeds[x.team] ?? Infinity) - (t.seeds[y.team] ?? Infinity) || x.i - y.i);
  return order.map((o, i) => ({ team_id: o.team, seed: i + 1 }));
}

async function entries(t: Made, stage = 1) {
  return sql<{ team_id: string; seed: number }>(
    "select team_id, seed from app.stage_entries where tournament_id = $1 and stage = $2 order by seed",
    [t.id, stage],
  );
}

async function stageRows(t: Made) {
  return sql<{ number: number; status: string; team_count: number; started_at: Date; completed_at: Date | null }>(
    "select number, status, team_count, started_at, completed_at from app.stages where tournament_id = $1 order by number",
    [t.id],
  );
}

/** A results document without what the stages migration adds (`stage` on the tournament and matches). */
function withoutStage(doc: Json): Json {
  const { stage: _t, ...tournament } = doc.tournament;
  return { ...doc, tournament, matches: doc.matches.map(({ stage: _m, ...m }: Json) => m) };
}

beforeAll(async () => {
  const oldest = EARLIER.filter((f) => f.slice(0, 14) < LEGACY_UNTIL);
  const rest = EARLIER.filter((f) => f.slice(0, 14) >= LEGACY_UNTIL);
  expect(oldest.length).toBeGreaterThan(0);
  cluster = await startUpgradeCluster("stages-upgrade");

  // 1. A database from before bracket seeds: one tournament started then, with a result.
  await push(oldest);
  [{ id: L.account }] = await sql<{ id: string }>("select admin.create_account('Legacy Esports') as id");
  const legacyTeams: string[] = [];
  for (let i = 1; i <= 5; i++) {
    const [{ id }] = await sql<{ id: string }>("select admin.create_team($1, $2) as id", [`Legacy ${i}`, `LG${i}`]);
    legacyTeams.push(id);
  }
  const lt = await legacy(L.account, "create_tournament", {
    body: { name: "Legacy Cup", game_id: crypto.randomUUID(), team_size: 5, max_teams: 8, starts_at: future() },
  });
  for (const team of legacyTeams) await legacy(L.account, "create_registration", { tournament_id: lt.id, body: { team_id: team } });
  await legacy(L.account, "update_tournament", { id: lt.id, body: { status: "ongoing" } });
  const [ready] = await sql<{ id: string }>(
    "select id from app.matches where tournament_id = $1 and status = 'ready' order by round, position limit 1",
    [lt.id],
  );
  await legacy(L.account, "report_match", { tournament_id: lt.id, match_id: ready.id, body: { team1_score: 3, team2_score: 1 } });
  old = { id: lt.id, account: L.account, teams: legacyTeams, participants: legacyTeams, seeds: {} };

  // 2. Every migration before the stages one, then tournaments in each state.
  await push(rest);
  for (const acct of [A, B]) {
    [{ id: acct.account }] = await sql<{ id: string }>("select admin.create_account($1) as id", [acct === A ? "Upgrade A" : "Upgrade B"]);
    await sql("select admin.set_api_access($1, true)", [acct.account]);
  }
  const teamsOf = async (account: string, prefix: string, n: number) => {
    const ids: string[] = [];
    for (let i = 1; i <= n; i++) {
      ids.push((await op(account, "teams.create", { body: { name: `${prefix} ${i}`, tag: `${prefix[0]}${i}` } })).id);
    }
    return ids;
  };
  const ta = await teamsOf(A.account, "Alpha", 10);
  const tb = await teamsOf(B.account, "Bravo", 4);
  // B has a webhook endpoint for everything: any event the upgrade made would be recorded.
  await op(B.account, "webhooks.create", {
    body: { url: "https://hooks.example.com/t", events: ["*"] },
    secret: crypto.randomBytes(32).toString("base64"),
  });

  // Single elimination, 6 teams (byes), third-place match, two organiser seeds; one result of two.
  seOngoing = await makeTournament(A.account, "Ongoing Cup", ta.slice(0, 6), {
    format: "single_elimination",
    format_options: { third_place_match: true },
  }, { seeds: { [ta[4]]: 1, [ta[1]]: 2 } });
  await start(seOngoing);
  expect(await reportReady(seOngoing, (m) => m.round === 1 && m.position === 2)).toBe(1);

  // Single elimination, 4 teams, played out and completed.
  seCompleted = await makeTournament(A.account, "Finished Cup", ta.slice(2, 6), { format: "single_elimination" }, {
    seeds: { [ta[5]]: 1 },
  });
  await start(seCompleted);
  while (await reportReady(seCompleted));
  await complete(seCompleted);

  // Swiss with check-in: 7 registered, 6 checked in (ta[3] is not); round 1 played, round 2 drawn.
  const swissTeams = ta.slice(0, 7);
  swiss = await makeTournament(A.account, "Swiss Open", swissTeams, {
    format: "swiss",
    check_in_opens: new Date(Date.now() - 3_600_000).toISOString(),
  }, { seeds: { [ta[6]]: 1 }, checkedIn: swissTeams.filter((t) => t !== ta[3]) });
  await start(swiss);
  expect(await reportReady(swiss, (m) => m.round === 1)).toBe(3);

  // Round robin still taking registrations.
  waiting = await makeTournament(A.account, "Spring League", ta.slice(5, 10), { format: "round_robin" }, { seeds: { [ta[9]]: 1 } });

  // B's single elimination: both semi-finals played, the final not.
  hooked = await makeTournament(B.account, "Hooked Cup", tb, { format: "single_elimination" });
  await start(hooked);
  expect(await reportReady(hooked)).toBe(2);

  for (const [name, t] of Object.entries(all())) {
    before.results[name] = await op(t.account, "results.get", { tournament_id: t.id });
    before.bracketSeeds[name] = await sql<{ team_id: string; seed: number }>(
      "select team_id, bracket_seed as seed from app.registrations where tournament_id = $1 and bracket_seed is not null order by bracket_seed",
      [t.id],
    );
  }
  [{ n: before.events }] = await sql<{ n: number }>("select count(*)::int as n from app.webhook_events");
  before.hookedEvents = await eventTypes(B.account);

  // 3. The deploy of the stages migration.
  [{ t: pushStartedAt }] = await sql<{ t: number }>("select (extract(epoch from clock_timestamp()) * 1000)::float8 as t");
  await cluster.reconnect(); // no session of ours open across the migration
  pushOutput = await push(STAGES);
  [{ t: pushEndedAt }] = await sql<{ t: number }>("select (extract(epoch from clock_timestamp()) * 1000)::float8 as t");
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("the database before the stages migration", () => {
  it("holds what the scenario needs: results played, the legacy tournament without bracket seeds, events on B's endpoint", () => {
    expect(pushOutput).toContain(STAGES_FILE);
    expect(before.results.seCompleted.tournament.status).toBe("completed");
    expect(before.results.seOngoing.matches.filter((m: Json) => m.status === "completed")).toHaveLength(1);
    expect(before.results.swiss.matches.map((m: Json) => m.round)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(before.results.waiting.tournament.status).toBe("registration");
    expect(before.results.hooked.matches.filter((m: Json) => m.status === "ready")).toHaveLength(1);
    expect(before.bracketSeeds.old).toEqual([]); // started before bracket seeds existed
    expect(before.results.old.standings.length).toBeGreaterThan(0);
    // The endpoint hears B's changes.
    expect(before.hookedEvents).toMatchObject({ "tournament.started": 1, "match.completed": 2 });
    // The participants' bracket seeds: seeded teams first, then registration order.
    for (const name of ["seOngoing", "seCompleted", "swiss", "hooked"] as const) {
      expect(before.bracketSeeds[name], name).toEqual(expectedSeeds(all()[name]));
    }
  });
});

describe("the backfill", () => {
  it("gives every started tournament stage 1's entries: its participants with their bracket seeds", async () => {
    for (const [name, t] of Object.entries(started())) {
      const got = await entries(t);
      expect(got, name).toEqual(expectedSeeds(t)); // the legacy one: registration order
      if (name !== "old") expect(got, name).toEqual(before.bracketSeeds[name]);
      expect(await entries(t, 2), name).toEqual([]);
    }
    expect((await entries(swiss)).map((e) => e.team_id)).not.toContain(swiss.teams[3]); // not checked in
    expect(await entries(waiting)).toEqual([]);
    const [{ n }] = await sql<{ n: number }>(
      "select count(*)::int as n from app.stage_entries e join app.tournaments t on t.id = e.tournament_id where e.account_id <> t.account_id",
    );
    expect(n).toBe(0);
  });

  it("gives every started tournament one stage row: completed exactly when all its matches are decided", async () => {
    for (const [name, t] of Object.entries(started())) {
      const rows = await stageRows(t);
      expect(rows, name).toHaveLength(1);
      const [row] = rows;
      expect(row.number, name).toBe(1);
      expect(row.team_count, name).toBe(t.participants.length);
      expect(row.started_at.getTime(), name).toBeGreaterThanOrEqual(pushStartedAt - 1);
      expect(row.started_at.getTime(), name).toBeLessThanOrEqual(pushEndedAt + 1);
      if (t === seCompleted) {
        const [{ last }] = await sql<{ last: Date }>(
          "select max(completed_at) as last from app.matches where tournament_id = $1",
          [t.id],
        );
        expect(row.status, name).toBe("completed");
        expect(row.completed_at?.getTime(), name).toBe(last.getTime());
      } else {
        expect(row.status, name).toBe("ongoing");
        expect(row.completed_at, name).toBeNull();
      }
    }
    expect(await stageRows(waiting)).toEqual([]);
    const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.stages");
    expect(n).toBe(Object.keys(started()).length);
    const tournaments = await sql<{ stage: number; stages: unknown }>(
      "select stage, stages from app.tournaments where id = any($1)",
      [Object.values(all()).map((t) => t.id)],
    );
    expect(tournaments).toEqual(Object.values(all()).map(() => ({ stage: 1, stages: null })));
  });

  it("shows the stages through the API: stages.list and stages.get", async () => {
    const [done] = await op(A.account, "stages.list", { tournament_id: seCompleted.id });
    expect(done).toMatchObject({ number: 1, format: "single_elimination", status: "completed", team_count: 4 });
    expect(done.completed_at).toEqual(expect.any(String));
    const playing = await op(A.account, "stages.get", { tournament_id: seOngoing.id, number: 1 });
    expect(playing).toMatchObject({ number: 1, status: "ongoing", team_count: 6, completed_at: null });
    expect(playing.standings).toEqual(before.results.seOngoing.standings);
    expect(await op(A.account, "stages.list", { tournament_id: waiting.id }))
      .toEqual([expect.objectContaining({ number: 1, status: "pending", team_count: null, started_at: null })]);
  });

  it("leaves the results documents as they were, but for stage 1 on the tournament and every match", async () => {
    for (const [name, t] of Object.entries(all())) {
      const after = await op(t.account, "results.get", { tournament_id: t.id });
      expect(after.tournament.stage, name).toBe(1);
      expect(after.matches.length, name).toBe(before.results[name].matches.length);
      for (const m of after.matches) expect(m.stage, `${name} match ${m.id}`).toBe(1);
      expect(after.standings, name).toEqual(before.results[name].standings);
      expect(withoutStage(after), name).toEqual(before.results[name]);
    }
  });

  it("records no webhook event", async () => {
    const [{ n }] = await sql<{ n: number }>("select count(*)::int as n from app.webhook_events");
    expect(n).toBe(before.events);
    const [{ stage }] = await sql<{ stage: number }>(
      "select count(*)::int as stage from app.webhook_events where type like 'stage.%'",
    );
    expect(stage).toBe(0);
  });
});

describe("the old tournaments afterwards", () => {
  it("reports the next matches of the ongoing single elimination, seeds from stage 1's entries", async () => {
    const seedOf = Object.fromEntries((await entries(seOngoing)).map((e) => [e.team_id, e.seed]));
    expect(await reportReady(seOngoing)).toBe(2); // round 1's other match and round 2's first
    const docs = await matches(seOngoing);
    for (const m of docs) {
      expect(m.stage).toBe(1);
      if (m.team1_id) expect(m.team1_seed, `match ${m.round}/${m.position}`).toBe(seedOf[m.team1_id]);
      if (m.team2_id) expect(m.team2_seed, `match ${m.round}/${m.position}`).toBe(seedOf[m.team2_id]);
    }
    expect(docs.filter((m: Json) => m.status === "completed")).toHaveLength(3);
    expect(docs.find((m: Json) => m.round === 2 && m.position === 2).status).toBe("ready");
    // Not decided: it cannot complete, and its stage stays ongoing.
    expect((await opError(A.account, "tournaments.update", { id: seOngoing.id, body: { status: "completed" } })).code)
      .toBe("invalid_status_transition");
    expect((await stageRows(seOngoing))[0].status).toBe("ongoing");
  });

  it("draws the swiss tournament's next round once its round is reported", async () => {
    expect(await reportReady(swiss, (m) => m.round === 2)).toBe(3);
    const docs = await matches(swiss);
    const third = docs.filter((m: Json) => m.round === 3);
    expect(third).toHaveLength(3);
    const seedOf = Object.fromEntries((await entries(swiss)).map((e) => [e.team_id, e.seed]));
    for (const m of third) {
      expect(m).toMatchObject({ stage: 1, status: "ready" });
      expect(m.team1_seed).toBe(seedOf[m.team1_id]);
      expect(m.team2_seed).toBe(seedOf[m.team2_id]);
    }
    expect(new Set(third.flatMap((m: Json) => [m.team1_id, m.team2_id]))).toEqual(new Set(swiss.participants));
    expect((await stageRows(swiss))[0].status).toBe("ongoing");
  });

  it("completes B's tournament only once its final is decided, with stage.completed and tournament.completed events", async () => {
    expect((await opError(B.account, "tournaments.update", { id: hooked.id, body: { status: "completed" } })).code)
      .toBe("invalid_status_transition");
    expect(await reportReady(hooked)).toBe(1); // the final
    const [row] = await stageRows(hooked);
    expect(row.status).toBe("completed");
    expect(row.completed_at).not.toBeNull();
    expect((await complete(hooked)).status).toBe("completed");
    const now = await eventTypes(B.account);
    const since = Object.fromEntries(
      Object.entries(now).map(([type, n]) => [type, n - (before.hookedEvents[type] ?? 0)])
        .filter(([, n]) => n !== 0),
    );
    expect(since).toEqual({ "match.completed": 1, "stage.completed": 1, "tournament.completed": 1 });
    const results = await op(B.account, "results.get", { tournament_id: hooked.id });
    expect(results.tournament).toMatchObject({ status: "completed", stage: 1 });
    expect(results.standings.map((s: Json) => s.position)).toEqual([1, 2, 3, 3]);
  });

  it("plays on the tournament started before bracket seeds existed", async () => {
    expect(await reportReady(old)).toBeGreaterThan(0);
    const seedOf = Object.fromEntries((await entries(old)).map((e) => [e.team_id, e.seed]));
    const docs = await matches(old);
    for (const m of docs) expect(m.stage).toBe(1);
    // The final, filled by reports since the upgrade: its teams carry their stage-1 seeds.
    const final = docs.find((m: Json) => m.next_match_id === null);
    expect(final.status).toBe("ready");
    expect([final.team1_seed, final.team2_seed]).toEqual([seedOf[final.team1_id], seedOf[final.team2_id]]);
    expect(final.team1_seed).toEqual(expect.any(Number));
    expect((await stageRows(old))[0].status).toBe("ongoing");
  });

  it("starts the tournament that was taking registrations: stage 1's entries and row", async () => {
    expect((await start(waiting)).status).toBe("ongoing");
    expect(await entries(waiting)).toEqual(expectedSeeds(waiting));
    const rows = await stageRows(waiting);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ number: 1, status: "ongoing", team_count: 5, completed_at: null });
    const docs = await matches(waiting);
    expect(docs.length).toBeGreaterThan(0);
    for (const m of docs) expect(m.stage).toBe(1);
  });

  it("keeps a completed tournament's stage completed and its matches locked", async () => {
    const first = (await matches(seCompleted))[0];
    expect(
      (await opError(A.account, "matches.report", {
        tournament_id: seCompleted.id,
        match_id: first.id,
        body: { team1_score: 0, team2_score: 5 },
      })).code,
    ).toBe("match_locked");
    expect((await stageRows(seCompleted))[0].status).toBe("completed");
  });
});
