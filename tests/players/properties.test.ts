// Lineups under any sequence (contract section 16), against a model: registrations that copy
// their team's roster, lineup PUTs and withdrawals in one tournament, each answered as the model
// predicts (201/200, 400 naming the first entry past a cap, 409 player_already_registered or
// already_registered), and after every sequence the lineups as the model holds them, with no
// player (coaches aside) in two lineups, none past its caps; then, with lineups required, the
// start refused (409 lineup_incomplete naming exactly the short registrations, nothing started)
// or made. New inputs each run; the seed is printed (LINEUPS_SEED=<n> replays).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { caller, expectStatus, sql, tenant, tournamentBody } from "../support/helpers.ts";
import type { Call } from "../support/helpers.ts";

const SEED = process.env.LINEUPS_SEED !== undefined ? Number(process.env.LINEUPS_SEED) : Math.floor(Math.random() * 2 ** 31);
type Role = "player" | "substitute" | "coach";
const ROLES: Role[] = ["player", "substitute", "coach"];
interface Entry {
  p: number; // the player's index
  role: Role;
}
type Action =
  | { kind: "register"; team: number }
  | { kind: "lineup"; team: number; entries: Entry[] }
  | { kind: "withdraw"; team: number };
interface Plan {
  teamSize: number;
  subsMax: number;
  players: number;
  rosters: Entry[][];
  actions: Action[];
}

const entriesArb = (players: number, max: number) =>
  fc.uniqueArray(fc.record({ p: fc.nat(players - 1), role: fc.constantFrom(...ROLES) }), {
    maxLength: max,
    selector: (e) => e.p,
  });

const planArb = fc.record({
  teamSize: fc.integer({ min: 1, max: 3 }),
  subsMax: fc.integer({ min: 0, max: 2 }),
  players: fc.integer({ min: 4, max: 9 }),
})
  .chain(({ teamSize, subsMax, players }) =>
    fc.record({
      teamSize: fc.constant(teamSize),
      subsMax: fc.constant(subsMax),
      players: fc.constant(players),
      rosters: fc.array(entriesArb(players, 5), { minLength: 3, maxLength: 4 }),
    }).chain((p) =>
      fc.record({
        teamSize: fc.constant(p.teamSize),
        subsMax: fc.constant(p.subsMax),
        players: fc.constant(p.players),
        rosters: fc.constant(p.rosters),
        actions: fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.record({ kind: fc.constant("register" as const), team: fc.nat(p.rosters.length - 1) }) },
            {
              weight: 4,
              arbitrary: fc.record({
                kind: fc.constant("lineup" as const),
                team: fc.nat(p.rosters.length - 1),
                entries: entriesArb(p.players, p.teamSize + p.subsMax + 3),
              }),
            },
            { weight: 1, arbitrary: fc.record({ kind: fc.constant("withdraw" as const), team: fc.nat(p.rosters.length - 1) }) },
          ),
          { minLength: 4, maxLength: 14 },
        ),
      })
    )
  );

const cap = (plan: Plan, role: Role) => role === "player" ? plan.teamSize : role === "substitute" ? plan.subsMax : 2;

/** The entries a roster leaves in a new lineup: each role's first ones up to its cap. */
function kept(plan: Plan, roster: Entry[]): Entry[] {
  const seen: Record<Role, number> = { player: 0, substitute: 0, coach: 0 };
  return roster.filter((e) => ++seen[e.role] <= cap(plan, e.role));
}

/** The first entry past its role's cap, or -1. */
function pastCap(plan: Plan, entries: Entry[]): number {
  const seen: Record<Role, number> = { player: 0, substitute: 0, coach: 0 };
  return entries.findIndex((e) => ++seen[e.role] > cap(plan, e.role));
}

async function play(call: Call, plan: Plan): Promise<void> {
  const ctx: string[] = [`seed ${SEED}`, JSON.stringify({ ...plan, actions: undefined })];
  const players: string[] = [];
  for (let i = 0; i < plan.players; i++) {
    const res = await call("POST", "/players", { body: { handle: `p${i}` } });
    expectStatus(res, 201);
    players.push(res.body.data.id);
  }
  const teams: string[] = [];
  for (const [i, roster] of plan.rosters.entries()) {
    const res = await call("POST", "/teams", { body: { name: `Team ${i}`, tag: `T${i}` } });
    expectStatus(res, 201);
    teams.push(res.body.data.id);
    for (const e of roster) {
      expectStatus(await call("PUT", `/teams/${res.body.data.id}/players/${players[e.p]}`, { body: { role: e.role } }), 200);
    }
  }
  const created = await call("POST", "/tournaments", {
    body: tournamentBody({ team_size: plan.teamSize, substitutes_max: plan.subsMax, lineups: "required", max_teams: 8 }),
  });
  expectStatus(created, 201);
  const tid: string = created.body.data.id;

  // The model: each registered team's registration id and lineup.
  const regs = new Map<number, { id: string; lineup: Entry[] }>();
  const holder = (p: number, except: number) =>
    [...regs.entries()].find(([team, r]) => team !== except && r.lineup.some((e) => e.p === p && e.role !== "coach"));
  for (const action of plan.actions) {
    ctx.push(JSON.stringify(action));
    const at = ctx.join("\n");
    if (action.kind === "register") {
      const res = await call("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teams[action.team] } });
      const lineup = kept(plan, plan.rosters[action.team]);
      if (regs.has(action.team)) {
        expect([res.status, res.body.error?.code], at).toEqual([409, "already_registered"]);
      } else if (lineup.some((e) => e.role !== "coach" && holder(e.p, action.team))) {
        expect([res.status, res.body.error?.code], at).toEqual([409, "player_already_registered"]);
      } else {
        expect(res.status, `${at}\n${res.text}`).toBe(201);
        regs.set(action.team, { id: res.body.data.id, lineup });
      }
    } else if (action.kind === "lineup") {
      const reg = regs.get(action.team);
      if (!reg) continue;
      const res = await call("PUT", `/tournaments/${tid}/registrations/${reg.id}/lineup`, {
        body: { players: action.entries.map((e) => ({ player_id: players[e.p], role: e.role })) },
      });
      const past = pastCap(plan, action.entries);
      const taken = action.entries.filter((e) => e.role !== "coach" && holder(e.p, action.team));
      if (past >= 0) {
        expect([res.status, res.body.error?.details?.[0]?.field], `${at}\n${res.text}`).toEqual([400, `players[${past}]`]);
      } else if (taken.length) {
        expect([res.status, res.body.error?.code], `${at}\n${res.text}`).toEqual([409, "player_already_registered"]);
        expect(res.body.error.details.map((d: { player_id: string }) => d.player_id), at).toEqual(taken.map((e) => players[e.p]));
      } else {
        expect(res.status, `${at}\n${res.text}`).toBe(200);
        reg.lineup = action.entries;
      }
    } else {
      const reg = regs.get(action.team);
      if (!reg) continue;
      expectStatus(await call("DELETE", `/tournaments/${tid}/registrations/${reg.id}`), 200);
      regs.delete(action.team);
    }
    await check();
  }
  await check();

  async function check(): Promise<void> {
    const at = ctx.join("\n");
    const listed = await call("GET", `/tournaments/${tid}/registrations`);
    expectStatus(listed, 200);
    const got = Object.fromEntries(
      listed.body.data.map((
        r: { id: string; lineup: { player_id: string; role: Role }[] },
      ) => [r.id, r.lineup.map((e) => `${e.player_id}:${e.role}`)]),
    );
    const want = Object.fromEntries([...regs.values()].map((r) => [r.id, r.lineup.map((e) => `${players[e.p]}:${e.role}`)]));
    expect(got, at).toEqual(want);
    const [{ doubled }] = await sql<{ doubled: number }>(
      `select count(*)::int as doubled from (select player_id from app.lineup_entries
         where tournament_id = $1 and role <> 'coach' group by player_id having count(*) > 1) x`,
      [tid],
    );
    expect(doubled, at).toBe(0);
  }

  // With lineups required, the start names exactly the short registrations, or starts.
  const short = [...regs.values()].filter((r) => r.lineup.filter((e) => e.role === "player").length < plan.teamSize);
  const start = await call("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing" } });
  const at = ctx.join("\n");
  if (regs.size < 2) {
    expect([start.status, start.body.error?.code], at).toEqual([409, "invalid_status_transition"]);
  } else if (short.length) {
    expect([start.status, start.body.error?.code], at).toEqual([409, "lineup_incomplete"]);
    expect(start.body.error.details.map((d: { registration_id: string }) => d.registration_id).sort(), at).toEqual(
      short.map((r) => r.id).sort(),
    );
    expect((await call("GET", `/tournaments/${tid}`)).body.data.status, at).toBe("registration");
  } else {
    expect(start.status, `${at}\n${start.text}`).toBe(200);
  }
}

describe("lineups under any sequence of registrations, PUTs and withdrawals (section 16)", () => {
  it(
    `answer as the model predicts, never one player in two lineups, never past a cap; the start names every short lineup (seed ${SEED})`,
    async () => {
      console.log(`lineups-properties: seed ${SEED} (LINEUPS_SEED=<n> replays)`);
      const call = caller(await tenant());
      await fc.assert(fc.asyncProperty(planArb, (plan) => play(call, plan)), { numRuns: 12, seed: SEED, endOnFailure: true });
    },
    240_000,
  );
});
