// Lock order across every path that locks teams, tournaments and registrations (issue 32): a
// team's deletion and rename race registrations, withdrawals and starts of the tournaments it
// is in (two accounts' tournaments share the teams). A deadlock or any other aborted
// transaction is a 503 to the client; the rule is that none happens, whatever the interleaving,
// and that what each request answered is what the database holds at the end.
//
// Each round draws its operations and their order from a seed (printed; TEAM_LOCKS_SEED=<n>
// replays it). Every request gets a key of its own: requests on one key queue behind its
// rate-limit row, which would serialise the race away.
import fs from "node:fs";
import { describe, expect, inject, it } from "vitest";
import pg from "pg";
import { type ApiResponse, asOwnerRole, createTournament, request, sql, type Tenant, tenant } from "../support/helpers.ts";
import { mulberry32 } from "../support/stages-oracle.ts";

const SEED = process.env.TEAM_LOCKS_SEED !== undefined ? Number(process.env.TEAM_LOCKS_SEED) : Math.floor(Math.random() * 2 ** 31);
const ROUNDS = Number(process.env.TEAM_LOCKS_ROUNDS ?? 12);

type Op =
  | { kind: "rename"; team: number }
  | { kind: "delete"; team: number }
  | { kind: "register"; team: number; tournament: number }
  | { kind: "withdraw"; team: number; tournament: number }
  | { kind: "start"; tournament: number };

interface Round {
  owner: Tenant;
  other: Tenant;
  teams: string[];
  /** Tournaments: the first half the owner's, the rest the other account's. */
  tournaments: { id: string; tenant: Tenant }[];
  /** Registration ids before the race, by tournament and team index ("i:j"). */
  registrations: Map<string, string>;
}

/** `n` fresh keys: one per request in flight. */
async function keys(t: Tenant, n: number): Promise<string[]> {
  return (await Promise.all(Array.from({ length: n }, () => t.newKey()))).map((k) => k.key);
}

/** Four teams of the owner, four tournaments (two per account), each with three of the teams registered. */
async function setUp(): Promise<Round> {
  const owner = await tenant();
  const other = await tenant();
  const teams: string[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await owner.request("POST", "/teams", { body: { name: `Lock ${i}`, tag: `L${i}` } });
    if (res.status !== 201) throw new Error(res.text);
    teams.push(res.body.data.id);
  }
  const tournaments: Round["tournaments"] = [];
  for (const t of [owner, owner, other, other]) {
    tournaments.push({ id: (await createTournament(t, { max_teams: 8 })).id, tenant: t });
  }
  const registrations = new Map<string, string>();
  for (const [i, tour] of tournaments.entries()) {
    for (const [j, team] of teams.entries()) {
      if (j === i) continue;
      const res = await tour.tenant.request("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } });
      if (res.status !== 201) throw new Error(res.text);
      registrations.set(`${i}:${j}`, res.body.data.id);
    }
  }
  return { owner, other, teams, tournaments, registrations };
}

/** A random batch: every team renamed and most deleted, registrations made and withdrawn, some tournaments started. */
function drawOps(random: () => number): Op[] {
  const ops: Op[] = [];
  const pick = (n: number) => Math.floor(random() * n);
  for (let team = 0; team < 4; team++) {
    ops.push({ kind: "rename", team }, { kind: "rename", team });
    if (random() < 0.75) ops.push({ kind: "delete", team });
  }
  for (let tournament = 0; tournament < 4; tournament++) {
    ops.push({ kind: "register", team: tournament, tournament }); // the one team not registered yet
    ops.push({ kind: "withdraw", team: (tournament + 1 + pick(3)) % 4, tournament });
    if (random() < 0.5) ops.push({ kind: "start", tournament });
  }
  for (let i = ops.length - 1; i > 0; i--) { // Fisher-Yates: the order requests are sent in
    const j = pick(i + 1);
    [ops[i], ops[j]] = [ops[j], ops[i]];
  }
  return ops;
}

/** The registration id of a team in a tournament, read before the race (null: none). */
async function registrationOf(tournamentId: string, teamId: string): Promise<string | null> {
  const rows = await sql<{ id: string }>(
    "select id from app.registrations where tournament_id = $1 and team_id = $2",
    [tournamentId, teamId],
  );
  return rows[0]?.id ?? null;
}

async function send(round: Round, op: Op, key: string, n: number): Promise<ApiResponse> {
  const team = "team" in op ? round.teams[op.team] : "";
  const tour = "tournament" in op ? round.tournaments[op.tournament] : undefined;
  switch (op.kind) {
    case "rename":
      return request("PATCH", `/teams/${team}`, { key, body: { name: `Renamed ${n}` } });
    case "delete":
      return request("DELETE", `/teams/${team}`, { key });
    case "register":
      return request("POST", `/tournaments/${tour!.id}/registrations`, { key, body: { team_id: team } });
    case "withdraw":
      return request("DELETE", `/tournaments/${tour!.id}/registrations/${round.registrations.get(`${op.tournament}:${op.team}`)}`, { key });
    case "start":
      return request("PATCH", `/tournaments/${tour!.id}`, { key, body: { status: "ongoing" } });
  }
}

/** What each kind of request may answer (status, or status and code); anything else fails the round. */
const ALLOWED: Record<Op["kind"], string[]> = {
  rename: ["200", "404 not_found"],
  delete: ["200", "404 not_found", "409 team_in_use"],
  register: ["201", "404 not_found", "409 registration_closed"],
  withdraw: ["200", "404 not_found", "409 registration_closed"],
  start: ["200", "409 invalid_status_transition"], // fewer than 2 teams left
};

function label(r: ApiResponse): string {
  return r.body?.success === false ? `${r.status} ${r.body.error.code}` : String(r.status);
}

/** The function's log lines with a 5xx, to say why (the log names the driver's SQLSTATE). */
function serverErrors(): string {
  const lines = fs.readFileSync(inject("logFile"), "utf8").split("\n");
  return lines.filter((l) => /"status":5\d\d/.test(l)).slice(-10).join("\n");
}

describe("teams, tournaments and registrations locked in one order", () => {
  it(
    `answers every racing delete, rename, register, withdraw and start without a 5xx, and the answers match the database (seed ${SEED})`,
    async () => {
      console.log(`teams-lock-order: seed ${SEED} (TEAM_LOCKS_SEED=<n> replays), ${ROUNDS} rounds`);
      const random = mulberry32(SEED);
      for (let r = 0; r < ROUNDS; r++) {
        const round = await setUp();
        const ops = drawOps(random);
        const ownerKeys = await keys(round.owner, ops.length);
        const otherKeys = await keys(round.other, ops.length);
        const answers = await Promise.all(ops.map((op, i) => {
          // Team writes need the owner's key; a tournament's requests its own account's.
          const tenantOf = "tournament" in op ? round.tournaments[op.tournament].tenant : round.owner;
          return send(round, op, tenantOf === round.owner ? ownerKeys[i] : otherKeys[i], i);
        }));
        const unexpected = ops.map((op, i) => ({ op, got: label(answers[i]), text: answers[i].text }))
          .filter((x) => !ALLOWED[x.op.kind].includes(x.got));
        if (unexpected.some((x) => x.got.startsWith("5"))) console.error(serverErrors());
        expect(unexpected, `round ${r}, seed ${SEED}`).toEqual([]);

        // What the answers say, the database holds.
        for (const [i, op] of ops.entries()) {
          const team = "team" in op ? round.teams[op.team] : undefined;
          const [exists] = await sql<{ n: number }>("select count(*)::int as n from app.teams where id = $1", [team ?? null]);
          if (op.kind === "delete" && answers[i].status === 200) {
            expect(exists.n, `deleted team ${op.team} is gone`).toBe(0);
            const [regs] = await sql<{ n: number }>("select count(*)::int as n from app.registrations where team_id = $1", [team]);
            expect(regs.n, `deleted team ${op.team} left no registration`).toBe(0);
          }
          if (op.kind === "delete" && label(answers[i]) === "409 team_in_use") {
            const [used] = await sql<{ n: number }>(
              `select count(*)::int as n from app.registrations r join app.tournaments t on t.id = r.tournament_id
              where r.team_id = $1 and t.status <> 'registration'`,
              [team],
            );
            expect(used.n, `team ${op.team} answered in use is in a started tournament`).toBeGreaterThan(0);
            expect(exists.n).toBe(1);
          }
          if (op.kind === "register" && answers[i].status === 201) {
            // Registered, then possibly withdrawn by no one (withdrawals name the teams registered before the race)
            // or removed with its team: a registration of a team that still exists is there.
            const reg = await registrationOf(round.tournaments[op.tournament].id, team!);
            if (exists.n === 1) expect(reg, `team ${op.team} registered in tournament ${op.tournament}`).not.toBeNull();
          }
        }
        // Every started tournament's matches name teams that exist; no registration names a deleted team.
        const [orphans] = await sql<{ n: number }>(
          `select count(*)::int as n from app.registrations r where r.tournament_id = any($1)
            and not exists (select from app.teams tm where tm.id = r.team_id)`,
          [round.tournaments.map((t) => t.id)],
        );
        expect(orphans.n).toBe(0);
      }
    },
    120_000,
  );
});

describe("a registration landing while a team waits to be locked", () => {
  it("lets go of every lock and takes them again in order, so the new registration's tournament is locked too", async () => {
    const { owner, teams, tournaments, registrations } = await setUp();
    const team = teams[0]; // registered in tournaments 1-3
    const late = tournaments[0].id; // not yet
    // A: a registration of the team in `late`, open: it holds `late` and shares the team.
    const a = new pg.Client({ connectionString: inject("adminDbUrl") });
    const d = new pg.Client({ connectionString: inject("adminDbUrl") });
    await a.connect();
    await d.connect();
    try {
      await a.query("begin");
      await a.query("select from app.tournaments where id = $1 for no key update", [late]);
      await a.query(
        "insert into app.registrations (tournament_id, account_id, team_id, payment_status) values ($1, $2, $3, 'complete')",
        [late, owner.accountId, team],
      );
      const locked = asOwnerRole(owner.accountId, async (b) => {
        const [{ pid }] = (await b.query<{ pid: number }>("select pg_backend_pid() as pid")).rows;
        const result = b.query<{ ok: boolean }>("select app.lock_team_and_tournaments($1) as ok", [team]);
        // B read the team's tournaments (not `late`: A has not committed), locked them and waits for the team.
        for (let i = 0; i < 100; i++) {
          const [w] = (await d.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'",
            [pid],
          )).rows;
          if (w.n === 1) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        await a.query("commit");
        const [{ ok }] = (await result).rows;
        expect(ok).toBe(true);
        // B holds every tournament the team is in now, `late` included, and the team.
        for (const id of [late, ...tournaments.slice(1).map((t) => t.id)]) {
          await expect(d.query("select from app.tournaments where id = $1 for no key update nowait", [id]), `tournament ${id} locked`)
            .rejects.toMatchObject({ code: "55P03" });
        }
        await expect(d.query("select from app.teams where id = $1 for key share nowait", [team]))
          .rejects.toMatchObject({ code: "55P03" });
        return ok;
      });
      expect(await locked).toBe(true);
      expect(registrations.size).toBe(12);
    } finally {
      await a.query("rollback").catch(() => {});
      await a.end();
      await d.end();
    }
  });
});
