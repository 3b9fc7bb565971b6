// Contract section 16, as a property (second author, from the contract alone): across any random
// sequence of registrations (own teams with rosters, platform teams), lineup PUTs (alone or two at
// once) and withdrawals in one tournament, no non-coach player is ever in two lineups, every lineup
// respects the caps (team_size players, substitutes_max substitutes, 2 coaches, one captain, each
// player once), and each answer is the one an independent model predicts. New inputs each run;
// the seed is printed (FC_SEED=<seed> replays a run).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type ApiResponse, type Call, caller, createTeams, expectStatus, tenant, tournamentBody } from "../support/helpers.ts";

const TEAM_SIZE = 2;
const SUBS_MAX = 1;
const COACHES_MAX = 2;
const PLAYERS = 8;
const OWN_TEAMS = 4;
const PLATFORM_TEAMS = 2;

type Role = "player" | "substitute" | "coach";
interface Spec {
  player: number;
  role: Role;
  captain: boolean;
}
interface Held {
  player_id: string;
  role: Role;
  captain: boolean;
}

type Command =
  | { kind: "register"; team: number }
  | { kind: "registerRace"; teams: [number, number] }
  | { kind: "lineup"; reg: number; entries: Spec[] }
  | { kind: "lineupRace"; regs: [number, number]; entries: [Spec[], Spec[]] }
  | { kind: "withdraw"; reg: number };

const roleArb = fc.constantFrom<Role>("player", "player", "substitute", "coach");
const captainArb = fc.nat(3).map((n) => n === 0);
const specArb = fc.record({ player: fc.nat(PLAYERS - 1), role: roleArb, captain: captainArb });
// Lineups at and just past each cap: counts per role, players drawn without repeats, in any order.
const nearCapsArb = fc.record({
  counts: fc.tuple(fc.nat(TEAM_SIZE + 1), fc.nat(SUBS_MAX + 1), fc.nat(COACHES_MAX + 1)),
  captains: fc.nat(2),
  order: fc.shuffledSubarray([...Array(PLAYERS).keys()], { minLength: PLAYERS, maxLength: PLAYERS }),
}).map(({ counts, captains, order }) => {
  const roles: Role[] = [
    ...Array(counts[0]).fill("player"),
    ...Array(counts[1]).fill("substitute"),
    ...Array(counts[2]).fill("coach"),
  ].slice(0, PLAYERS);
  return roles.map((role, i): Spec => ({ player: order[i], role, captain: i < captains }))
    .sort((a, b) => order.indexOf(b.player) - order.indexOf(a.player));
});
// Mostly valid lineups (distinct players), some at the caps, sometimes anything.
const entriesArb = fc.oneof(
  { weight: 3, arbitrary: fc.uniqueArray(specArb, { selector: (s) => s.player, maxLength: 5 }) },
  { weight: 2, arbitrary: nearCapsArb },
  { weight: 1, arbitrary: fc.array(specArb, { maxLength: 6 }) },
);
const teamArb = fc.nat(OWN_TEAMS + PLATFORM_TEAMS - 1);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("register" as const), team: teamArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("registerRace" as const), teams: fc.tuple(teamArb, teamArb) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("lineup" as const), reg: fc.nat(5), entries: entriesArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("lineupRace" as const),
      regs: fc.tuple(fc.nat(5), fc.nat(5)),
      entries: fc.tuple(entriesArb, entriesArb),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("withdraw" as const), reg: fc.nat(5) }) },
);
// Each own team's roster: distinct players in the order they are added, at most one captain.
const rosterArb = fc.uniqueArray(fc.record({ player: fc.nat(PLAYERS - 1), role: roleArb, captain: captainArb }), {
  selector: (s) => s.player,
  maxLength: 6,
});

/** Why a lineup is refused whatever the state: a repeated player or a cap exceeded. */
function invalid(entries: { role: Role; captain: boolean; key: string }[]): boolean {
  const count = (f: (e: (typeof entries)[number]) => boolean) => entries.filter(f).length;
  return new Set(entries.map((e) => e.key)).size !== entries.length ||
    count((e) => e.role === "player") > TEAM_SIZE ||
    count((e) => e.role === "substitute") > SUBS_MAX ||
    count((e) => e.role === "coach") > COACHES_MAX ||
    count((e) => e.captain) > 1;
}

/** The players (non-coach) of `entries` that some other registration holds as non-coach. */
function conflicts(lineups: Map<string, Held[]>, regId: string, entries: Held[]): string[] {
  const taken = new Set<string>();
  for (const [id, held] of lineups) {
    if (id === regId) continue;
    for (const e of held) if (e.role !== "coach") taken.add(e.player_id);
  }
  return entries.filter((e) => e.role !== "coach" && taken.has(e.player_id)).map((e) => e.player_id);
}

/** The caps and the one-team rule over everything the API shows now. */
function checkInvariants(lineups: Map<string, Held[]>, context: string) {
  const seen = new Map<string, string>();
  for (const [regId, held] of lineups) {
    const entries = held.map((e) => ({ ...e, key: e.player_id }));
    expect(invalid(entries), `${context}: lineup of ${regId} breaks a cap: ${JSON.stringify(held)}`).toBe(false);
    for (const e of held) {
      if (e.role === "coach") continue;
      expect(seen.get(e.player_id), `${context}: player ${e.player_id} in the lineups of ${seen.get(e.player_id)} and ${regId}`)
        .toBeUndefined();
      seen.set(e.player_id, regId);
    }
  }
}

const heldOf = (lineup: Held[]): Held[] => lineup.map((e) => ({ player_id: e.player_id, role: e.role, captain: e.captain }));

describe("property: one player, one team, caps respected", () => {
  it("holds across random registrations, lineup PUTs (alone and racing) and withdrawals", async () => {
    const seed = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`players property seed: ${seed} (FC_SEED=${seed} replays it)`);
    // Any account may register a platform team, in every run's own tournament.
    const platformTeams = await createTeams(PLATFORM_TEAMS, "Property platform");

    await fc.assert(
      fc.asyncProperty(
        fc.array(rosterArb, { minLength: OWN_TEAMS, maxLength: OWN_TEAMS }),
        fc.array(commandArb, { minLength: 4, maxLength: 14 }),
        async (rosters, commands) => {
          const t = await tenant();
          const call: Call = caller(t);
          const players: string[] = [];
          for (let i = 0; i < PLAYERS; i++) {
            const res = await call("POST", "/players", { body: { handle: `prop-${i}` } });
            expectStatus(res, 201);
            players.push(res.body.data.id);
          }
          // Own teams with their rosters; the roster the API keeps (captain cleared by a later captain).
          const teams: string[] = [];
          const expectedCopy: Held[][] = [];
          for (const roster of rosters) {
            const res = await call("POST", "/teams", { body: { name: `Prop ${teams.length}`, tag: "PR" } });
            expectStatus(res, 201);
            const teamId = res.body.data.id;
            teams.push(teamId);
            const members: Held[] = [];
            for (const m of roster) {
              expectStatus(
                await call("PUT", `/teams/${teamId}/players/${players[m.player]}`, { body: { role: m.role, captain: m.captain } }),
                200,
              );
              if (m.captain) { for (const o of members) o.captain = false; }
              members.push({ player_id: players[m.player], role: m.role, captain: m.captain });
            }
            const caps: Record<Role, number> = { player: TEAM_SIZE, substitute: SUBS_MAX, coach: COACHES_MAX };
            const used: Record<Role, number> = { player: 0, substitute: 0, coach: 0 };
            expectedCopy.push(members.filter((m) => ++used[m.role] <= caps[m.role]));
          }
          const allTeams = [...teams, ...platformTeams];
          const created = await call("POST", "/tournaments", {
            body: tournamentBody({ team_size: TEAM_SIZE, substitutes_max: SUBS_MAX, max_teams: allTeams.length }),
          });
          expectStatus(created, 201);
          const tid: string = created.body.data.id;

          // The model: registration id → lineup, in registration order; which team each holds.
          const lineups = new Map<string, Held[]>();
          const teamOf = new Map<string, string>();
          const log: string[] = [];
          const regAt = (i: number) => [...lineups.keys()][i % Math.max(lineups.size, 1)];
          const toHeld = (entries: Spec[]): Held[] =>
            entries.map((e) => ({ player_id: players[e.player], role: e.role, captain: e.captain }));
          const body = (entries: Spec[]) => ({
            players: entries.map((e) => ({ player_id: players[e.player], role: e.role, ...(e.captain ? { captain: true } : {}) })),
          });
          const isInvalid = (entries: Spec[]) => invalid(entries.map((e) => ({ ...e, key: String(e.player) })));
          const code = (res: ApiResponse) => res.body?.error?.code;

          const registerTeam = (teamIndex: number, res: ApiResponse) => {
            const teamId = allTeams[teamIndex];
            const copy = teamIndex < OWN_TEAMS ? expectedCopy[teamIndex] : [];
            if ([...teamOf.values()].includes(teamId)) {
              expect(res.status, res.text).toBe(409);
              expect(code(res)).toBe("already_registered");
              return;
            }
            const clash = conflicts(lineups, "", copy).length > 0;
            if (res.status === 201) {
              const got = heldOf(res.body.data.lineup);
              // Without a clash the lineup is the roster within the caps; with one, the invariants (sync) judge.
              if (!clash) expect(got, `roster copy of team ${teamIndex}`).toEqual(copy);
              lineups.set(res.body.data.id, got);
              teamOf.set(res.body.data.id, teamId);
            } else {
              // Only a clash with a lineup held may refuse a roster copy.
              expect(clash, res.text).toBe(true);
              expect(res.status, res.text).toBe(409);
              expect(code(res)).toBe("player_already_registered");
            }
          };

          const sync = async (context: string) => {
            const res = await call("GET", `/tournaments/${tid}/registrations`);
            expectStatus(res, 200);
            const shown = new Map<string, Held[]>();
            for (const r of res.body.data) shown.set(r.id, heldOf(r.lineup));
            checkInvariants(shown, context);
            expect([...shown.keys()], context).toEqual([...lineups.keys()]);
            for (const [id, held] of lineups) expect(shown.get(id), `${context}: lineup of ${id}`).toEqual(held);
          };

          for (const cmd of commands) {
            log.push(JSON.stringify(cmd));
            const context = log.join("\n");
            if (cmd.kind === "register") {
              const res = await call("POST", `/tournaments/${tid}/registrations`, { body: { team_id: allTeams[cmd.team] } });
              registerTeam(cmd.team, res);
            } else if (cmd.kind === "registerRace") {
              if (cmd.teams[0] === cmd.teams[1]) continue;
              const [a, b] = await Promise.all(
                cmd.teams.map((i) => call("POST", `/tournaments/${tid}/registrations`, { body: { team_id: allTeams[i] } })),
              );
              // Racing roster copies: each answer against the model as it stood; what stands is judged by sync.
              const registered = new Set(teamOf.values());
              for (const [i, res] of [[cmd.teams[0], a], [cmd.teams[1], b]] as const) {
                if (registered.has(allTeams[i])) {
                  expect(res.status, res.text).toBe(409);
                  expect(code(res)).toBe("already_registered");
                  continue;
                }
                expect([201, 409], res.text).toContain(res.status);
                if (res.status === 201) {
                  lineups.set(res.body.data.id, heldOf(res.body.data.lineup));
                  teamOf.set(res.body.data.id, allTeams[i]);
                } else {
                  expect(code(res), res.text).toBe("player_already_registered");
                }
              }
              // Registration order between the two is the server's: take it from the list.
              const listed = await call("GET", `/tournaments/${tid}/registrations`);
              const order: string[] = listed.body.data.map((r: { id: string }) => r.id);
              const reordered = new Map<string, Held[]>();
              for (const id of order) if (lineups.has(id)) reordered.set(id, lineups.get(id)!);
              lineups.clear();
              for (const [k, v] of reordered) lineups.set(k, v);
            } else if (cmd.kind === "lineup") {
              if (lineups.size === 0) continue;
              const regId = regAt(cmd.reg);
              const res = await call("PUT", `/tournaments/${tid}/registrations/${regId}/lineup`, { body: body(cmd.entries) });
              const wanted = toHeld(cmd.entries);
              if (isInvalid(cmd.entries)) {
                expect(res.status, `${context}\n${res.text}`).toBe(400);
                expect(code(res)).toBe("validation_error");
              } else if (conflicts(lineups, regId, wanted).length > 0) {
                expect(res.status, `${context}\n${res.text}`).toBe(409);
                expect(code(res)).toBe("player_already_registered");
                expect(JSON.stringify(res.body.error.details)).toContain(conflicts(lineups, regId, wanted)[0]);
              } else {
                expect(res.status, `${context}\n${res.text}`).toBe(200);
                expect(heldOf(res.body.data.lineup)).toEqual(wanted);
                lineups.set(regId, wanted);
              }
            } else if (cmd.kind === "lineupRace") {
              if (lineups.size < 2) continue;
              const regIds = cmd.regs.map(regAt);
              if (regIds[0] === regIds[1]) continue;
              const results = await Promise.all(
                [0, 1].map((i) => call("PUT", `/tournaments/${tid}/registrations/${regIds[i]}/lineup`, { body: body(cmd.entries[i]) })),
              );
              const wanted = cmd.entries.map(toHeld);
              const alone = [0, 1].map((i) => {
                if (isInvalid(cmd.entries[i])) return 400;
                // Against every lineup but the other racer's: its outcome decides that one.
                const others = new Map(lineups);
                others.delete(regIds[1 - i]);
                return conflicts(others, regIds[i], wanted[i]).length > 0 ? 409 : 200;
              });
              const mutual = wanted[0].some((e) =>
                e.role !== "coach" && wanted[1].some((f) => f.role !== "coach" && f.player_id === e.player_id)
              );
              const dependsOnOther = [0, 1].map((i) =>
                conflicts(new Map([[regIds[1 - i], lineups.get(regIds[1 - i])!]]), regIds[i], wanted[i]).length > 0
              );
              for (const i of [0, 1]) {
                const res = results[i];
                const what = `${context}\nracer ${i}: ${res.text}`;
                if (alone[i] === 400) expect(res.status, what).toBe(400);
                else if (alone[i] === 409) expect(res.status, what).toBe(409);
                else expect([200, 409], what).toContain(res.status);
                if (res.status === 200) lineups.set(regIds[i], wanted[i]);
              }
              if (alone[0] === 200 && alone[1] === 200 && mutual) {
                expect(results.map((r) => r.status).sort(), `${context}\n${results.map((r) => r.text).join("\n")}`).toEqual([200, 409]);
              }
              if (alone[0] === 200 && alone[1] === 200 && !mutual && !dependsOnOther[0] && !dependsOnOther[1]) {
                expect(results.map((r) => r.status), `${context}\n${results.map((r) => r.text).join("\n")}`).toEqual([200, 200]);
              }
            } else {
              if (lineups.size === 0) continue;
              const regId = regAt(cmd.reg);
              const res = await call("DELETE", `/tournaments/${tid}/registrations/${regId}`);
              expect(res.status, res.text).toBe(200);
              lineups.delete(regId);
              teamOf.delete(regId);
            }
            await sync(context);
          }
        },
      ),
      { seed, numRuns: 25, endOnFailure: true },
    );
  }, 300_000);
});
