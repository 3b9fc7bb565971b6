// Free-for-all in stages (contract section 20 with 12), from the contract alone: ffa → single
// elimination with {top: n} (qualifiers by the stage's standings, from_group null) and with
// {per_lobby: n} (tiers of lobby places, lobbies as groups, from_position the place in the lobby),
// swiss → an ffa final lobby, the earlier stage locked, and the overall standings (the teams an
// ffa stage did not advance keep its order). A = seed 1, B = seed 2, …
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Match } from "../support/helpers.ts";
import {
  type Event,
  event,
  FFA_DEFAULTS,
  game,
  gameBody,
  lobbiesOf,
  type Lobby,
  putGame,
  rank,
  results,
  type Scoring,
  tally,
  teamsOf,
} from "./contract-support.ts";

const scoring: Scoring = { placement_points: FFA_DEFAULTS.placement_points, kill_points: 1, tie_breakers: FFA_DEFAULTS.tie_breakers };
const seedsOf = (ev: Event) => Object.fromEntries(ev.teams.map((_, i) => [String.fromCharCode(65 + i), i + 1]));

async function stage(ev: Event, n: number) {
  const res = await ev.call("GET", `/tournaments/${ev.id}/stages/${n}`);
  expectStatus(res, 200);
  return res.body.data;
}

/** Qualifier rows [team, seed, from_group, from_position]. */
// deno-lint-ignore no-explicit-any
const qualifierRows = (ev: Event, qs: any[]) => qs.map((q) => [ev.label(q.team_id), q.seed, q.from_group, q.from_position]);

/** A duel's result: `winner` beats the other side 1–0. */
async function win(ev: Event, m: Match, winner: string) {
  const w = ev.team(winner);
  const body = m.team1_id === w ? { team1_score: 1, team2_score: 0 } : { team1_score: 0, team2_score: 1 };
  expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/matches/${m.id}`, { body }), 200);
}

/** Plays the ffa stage 1 of the tests below: 6 teams, lobbies A D E and B C F. */
async function playFirstStage(ev: Event) {
  const [l1, l2] = lobbiesOf((await results(ev)).matches, 1);
  expect([teamsOf(ev, l1), teamsOf(ev, l2)]).toEqual(["ADE", "BCF"]);
  // Lobby 1: E 10 + 2 = 12, A 6, D 5. Lobby 2: C 10, B 6 + 1 = 7, F 5.
  // Stage standings: E 12, C 10, B 7, A 6, D 5, F 5 (D and F level to the seed).
  await game(ev, l1, 1, "E:2 A D");
  await game(ev, l2, 1, "C B:1 F");
  const model = rank(
    scoring,
    tally(scoring, seedsOf(ev), [{ round: 1, number: 1, script: "E:2 A D" }, { round: 1, number: 1, script: "C B:1 F" }]),
  );
  expect(model.map((r) => r.label).join(" ")).toBe("E C B A D F");
  return { l1, l2, order: model.map((r) => r.label) };
}

const se = { format: "single_elimination" };

describe("ffa → single elimination", () => {
  it("{top: 4}: the stage's first four by its standings, seeded 1..4, bracket, locks and the overall standings", async () => {
    const ev = await event({ stages: [{ format: "ffa", format_options: { lobby_size: 3 }, advance: { top: 4 } }, se] }, 6);
    const { l1, order } = await playFirstStage(ev);
    const s1 = await stage(ev, 1);
    expect(s1.status).toBe("completed");
    expect(s1.standings.map((s: { team_id: string }) => ev.label(s.team_id))).toEqual(order);
    const s2 = await stage(ev, 2);
    expect(s2.status).toBe("pending");
    // Without groups: from_group null, from_position the place in the stage.
    expect(qualifierRows(ev, s2.qualifiers)).toEqual(order.slice(0, 4).map((l, i) => [l, i + 1, null, i + 1]));
    expect(s2.qualifiers.map((q: { tied: boolean }) => q.tied), "nothing tied: the seed ends the order").toEqual([
      false,
      false,
      false,
      false,
    ]);

    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    // A lobby of stage 1 is locked once stage 2 has started.
    expectError(await putGame(ev, l1, 1, gameBody(ev, "A D E")), 409, "match_locked");
    expectError(await ev.call("DELETE", `/tournaments/${ev.id}/matches/${l1.id}/games/1`), 409, "match_locked");

    // Standard seeding: 1 v 4 (E v A), 2 v 3 (C v B).
    const stage2 = (await results(ev, "?stage=2")).matches;
    expect(stage2.every((m) => m.stage === 2)).toBe(true);
    const first = stage2.filter((m) => m.round === 1);
    const pairs = first.map((m) => [ev.label(m.team1_id!), m.team1_seed, ev.label(m.team2_id!), m.team2_seed]);
    expect(pairs.map((p) => [[p[0], p[1]], [p[2], p[3]]].sort((a, b) => (a[1] as number) - (b[1] as number)))).toEqual(
      expect.arrayContaining([[["E", 1], ["A", 4]], [["C", 2], ["B", 3]]]),
    );
    expect(first.length).toBe(2);
    for (const m of first) await win(ev, m as unknown as Match, m.team1_id === ev.team("E") || m.team2_id === ev.team("E") ? "E" : "B");
    const final = (await results(ev, "?stage=2")).matches.find((m) => m.round === 2)!;
    await win(ev, final as unknown as Match, "E");
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);

    // Overall: the bracket's places (E 1, B 2, A and C 3), then the ffa stage's D and F in its
    // order, positions continuing after the block (5, 6).
    const overall = (await results(ev)).standings.map((s: { team_id: string; position: number }) => [ev.label(s.team_id), s.position]);
    expect(overall).toEqual([["E", 1], ["B", 2], ["A", 3], ["C", 3], ["D", 5], ["F", 6]]);
  });

  it("{per_lobby: 2}: every lobby's 1st, then every lobby's 2nd, each tier by the stage's standings; lobby teams kept apart", async () => {
    const ev = await event({ stages: [{ format: "ffa", format_options: { lobby_size: 3 }, advance: { per_lobby: 2 } }, se] }, 6);
    // While stage 1 is being played the qualifiers are provisional (shown once it has started).
    const early = await stage(ev, 2);
    expect(Array.isArray(early.qualifiers)).toBe(true);
    await playFirstStage(ev);
    // Lobby 1: E 1st, A 2nd; lobby 2: C 1st, B 2nd. Tier order by the stage's standings: E (12),
    // C (10), then B (7), A (6): seeds 1 2 3 4 would pair 1 v 4 (E, A: lobby 1) and 2 v 3 (C, B:
    // lobby 2). Lobbies count as groups (section 12): within the rule that no first-round match
    // pairs two teams of one lobby, the tier order decides (the smallest change: B and A swap
    // seeds 3 and 4; the ffa → ffa test below, with no bracket, sees the tier order itself).
    // from_group the lobby, from_position the place in it; listed in seed order.
    const s2 = await stage(ev, 2);
    expect(qualifierRows(ev, s2.qualifiers)).toEqual([
      ["E", 1, 1, 1],
      ["C", 2, 2, 1],
      ["A", 3, 1, 2],
      ["B", 4, 2, 2],
    ]);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const first = (await results(ev, "?stage=2")).matches.filter((m) => m.round === 1);
    const lobbyOf: Record<string, number> = { E: 1, A: 1, C: 2, B: 2 };
    const pairs = first.map((m) => [ev.label(m.team1_id!), ev.label(m.team2_id!)].sort().join("-")).sort();
    expect(pairs).toEqual(["A-C", "B-E"]);
    for (const m of first) expect(lobbyOf[ev.label(m.team1_id!)]).not.toBe(lobbyOf[ev.label(m.team2_id!)]);
    const seedOf = Object.fromEntries(first.flatMap((m) => [[ev.label(m.team1_id!), m.team1_seed], [ev.label(m.team2_id!), m.team2_seed]]));
    expect(seedOf).toEqual({ E: 1, C: 2, A: 3, B: 4 });
  });
});

describe("swiss → an ffa final lobby", () => {
  it("takes the swiss top 3 into one lobby with their new seeds; the overall standings put the lobby first, then the rest", async () => {
    const ev = await event({ stages: [{ format: "swiss", format_options: { rounds: 1 }, advance: { top: 3 } }, { format: "ffa" }] }, 4);
    // Swiss round 1: A v C, B v D. C beats A, B beats D. Standings: B, C (1 win, Buchholz 0:
    // the seed), A, D (0 wins, Buchholz 1 each: the seed). Top 3: B, C, A.
    const swiss = (await results(ev)).matches;
    const ac = swiss.find((m) => [m.team1_id, m.team2_id].includes(ev.team("A")))!;
    const bd = swiss.find((m) => [m.team1_id, m.team2_id].includes(ev.team("B")))!;
    expect([ac.team1_id, ac.team2_id].sort()).toEqual([ev.team("A"), ev.team("C")].sort());
    await win(ev, ac as unknown as Match, "C");
    await win(ev, bd as unknown as Match, "B");
    const s2 = await stage(ev, 2);
    expect(s2.format).toBe("ffa");
    expect(qualifierRows(ev, s2.qualifiers)).toEqual([["B", 1, null, 1], ["C", 2, null, 2], ["A", 3, null, 3]]);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    expectError(
      await ev.call("PATCH", `/tournaments/${ev.id}/matches/${ac.id}`, { body: { team1_score: 1, team2_score: 0 } }),
      409,
      "match_locked",
    );

    const { matches, tournament } = await results(ev, "?stage=2");
    expect(tournament.stage).toBe(2);
    expect(matches.length).toBe(1);
    const lobby = matches[0] as Lobby;
    expect(lobby.stage).toBe(2);
    const stages = await ev.call("GET", `/tournaments/${ev.id}/stages`);
    expect(stages.body.data.map((x: { team_count: number; status: string }) => [x.team_count, x.status])).toEqual([[4, "completed"], [
      3,
      "ongoing",
    ]]);
    expect(stages.body.data[1].format_options, "an ffa stage's defaults").toEqual(FFA_DEFAULTS);
    expect(Object.fromEntries(lobby.opponents.map((o) => [ev.label(o.team_id), o.seed]))).toEqual({ B: 1, C: 2, A: 3 });
    // A 10 + 3 = 13, C 6, B 5.
    const l = await game(ev, lobby, 1, "A:3 C B");
    expect(l.winner_id).toBe(ev.team("A"));
    expect((await stage(ev, 2)).status).toBe("completed");
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    const overall = (await results(ev)).standings.map((s: { team_id: string; position: number }) => [ev.label(s.team_id), s.position]);
    expect(overall).toEqual([["A", 1], ["C", 2], ["B", 3], ["D", 4]]);
    const st2 = (await results(ev, "?stage=2")).standings;
    expect(
      st2.map((s: { team_id: string; points: number; separated_by: string | null }) => [ev.label(s.team_id), s.points, s.separated_by]),
    ).toEqual([
      ["A", 13, null],
      ["C", 6, "points"],
      ["B", 5, "points"],
    ]);
  });
});

/** Reports `winner` beating `loser` ws–ls on their match among `matches`. */
async function score(ev: Event, matches: Match[], winner: string, loser: string, ws: number, ls: number) {
  const [w, l] = [ev.team(winner), ev.team(loser)];
  const m = matches.find((x) => (x.team1_id === w && x.team2_id === l) || (x.team1_id === l && x.team2_id === w));
  if (!m) throw new Error(`no match ${winner} v ${loser}`);
  const body = m.team1_id === w ? { team1_score: ws, team2_score: ls } : { team1_score: ls, team2_score: ws };
  expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/matches/${m.id}`, { body }), 200);
}

describe("per_lobby takes the last round's lobbies; the teams an ffa stage did not advance keep its order", () => {
  it("qualifies each last-round lobby's winner by that lobby's placement, not the stage total, and ranks the rest in the stage's order", async () => {
    // 6 teams, lobbies of 3, 2 rounds dealt from seeds: A D E | B C F both rounds.
    const ev = await event({ stages: [{ format: "ffa", format_options: { lobby_size: 3, rounds: 2 }, advance: { per_lobby: 1 } }, se] }, 6);
    const matches = (await results(ev)).matches;
    const scripts: Record<string, string> = { "1.1": "A:5 D E", "1.2": "B:5 C F", "2.1": "E D A", "2.2": "F C B" };
    const played: { round: number; number: number; script: string }[] = [];
    for (const round of [1, 2]) {
      for (const l of lobbiesOf(matches, round)) {
        const script = scripts[`${round}.${l.position}`];
        await game(ev, l, 1, script);
        played.push({ round, number: 1, script });
      }
    }
    // Stage totals: A 15 + 5 = 20, B 20, E 5 + 10 = 15, F 15, D 6 + 6 = 12, C 12.
    // Round 2's lobby winners: E (lobby 1), F (lobby 2), although A and B lead the stage.
    const order = rank(scoring, tally(scoring, seedsOf(ev), played)).map((r) => r.label);
    expect(order.join(" ")).toBe("A B E F C D");
    const s2 = await stage(ev, 2);
    expect(qualifierRows(ev, s2.qualifiers)).toEqual([["E", 1, 1, 1], ["F", 2, 2, 1]]);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const final = (await results(ev, "?stage=2")).matches;
    expect(final.length).toBe(1);
    await score(ev, final as unknown as Match[], "F", "E", 1, 0);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    // Lobbies are not groups: A B C D keep the ffa stage's order (3, 4, 5, 6), no shared places.
    const overall = (await results(ev)).standings.map((s: { team_id: string; position: number }) => [ev.label(s.team_id), s.position]);
    expect(overall).toEqual([["F", 1], ["E", 2], ["A", 3], ["B", 4], ["C", 5], ["D", 6]]);
  });
});

describe("round robin with groups → an ffa final lobby", () => {
  it("seeds the lobby by tiers (group winners, then seconds, each by the group stage's criteria) and shares places of teams it did not advance", async () => {
    // 6 teams, 2 groups by snake: A D E | B C F. Group 1: D 3–0 A, D 1–0 E, A 2–0 E → D 6 (+4),
    // A 3 (−1), E 0. Group 2: C 1–0 B, C 1–0 F, B 1–0 F → C 6 (+2), B 3 (0), F 0.
    // Tier 1: D (+4), C (+2); tier 2: B (0), A (−1). Lobby seeds D 1, C 2, B 3, A 4.
    const ev = await event({
      stages: [{ format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 2 } }, { format: "ffa" }],
    }, 6);
    const rr = (await results(ev)).matches as unknown as Match[];
    await score(ev, rr, "D", "A", 3, 0);
    await score(ev, rr, "D", "E", 1, 0);
    await score(ev, rr, "A", "E", 2, 0);
    await score(ev, rr, "C", "B", 1, 0);
    await score(ev, rr, "C", "F", 1, 0);
    await score(ev, rr, "B", "F", 1, 0);
    const s2 = await stage(ev, 2);
    expect(qualifierRows(ev, s2.qualifiers)).toEqual([["D", 1, 1, 1], ["C", 2, 2, 1], ["B", 3, 2, 2], ["A", 4, 1, 2]]);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const [lobby] = (await results(ev, "?stage=2")).matches;
    expect(Object.fromEntries(lobby.opponents.map((o) => [ev.label(o.team_id), o.seed]))).toEqual({ D: 1, C: 2, B: 3, A: 4 });
    // A 10, B 6 + 2 = 8, C 5, D 4.
    await game(ev, lobby, 1, "A B:2 C D");
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    const overall = (await results(ev)).standings.map((s: { team_id: string; position: number }) => [ev.label(s.team_id), s.position]);
    expect(overall.slice(0, 4)).toEqual([["A", 1], ["B", 2], ["C", 3], ["D", 4]]);
    expect(Object.fromEntries(overall.slice(4))).toEqual({ E: 5, F: 5 });
  });
});

describe("ffa → ffa: qualifiers into a final lobby", () => {
  it("takes every lobby's first two into one final lobby; overall the final's order, then the rest in the first stage's order", async () => {
    const ev = await event(
      { stages: [{ format: "ffa", format_options: { lobby_size: 3 }, advance: { per_lobby: 2 } }, { format: "ffa" }] },
      6,
    );
    await playFirstStage(ev);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const { matches } = await results(ev, "?stage=2");
    expect(matches.length).toBe(1);
    const [final] = matches;
    expect(teamsOf(ev, final)).toBe("ABCE");
    // Seeds by tier: E, C (lobby winners by the stage's standings), then B (7), A (6).
    expect(Object.fromEntries(final.opponents.map((o) => [ev.label(o.team_id), o.seed]))).toEqual({ E: 1, C: 2, B: 3, A: 4 });
    // Final: B 10 + 1, A 6, E 5, C 4.
    await game(ev, final, 1, "B:1 A E C");
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    const overall = (await results(ev)).standings.map((s: { team_id: string; position: number }) => [ev.label(s.team_id), s.position]);
    expect(overall).toEqual([["B", 1], ["A", 2], ["E", 3], ["C", 4], ["D", 5], ["F", 6]]);
  });
});

describe("advancing by hand into an ffa stage", () => {
  it("seeds the next ffa stage in the order given and deals its lobbies from those seeds", async () => {
    // Stage 2: lobbies of 3, so 4 teams make 2 lobbies: seeds 1 4 | 2 3.
    const ev = await event({
      stages: [{ format: "ffa", format_options: { lobby_size: 3 }, advance: { top: 4 } }, {
        format: "ffa",
        format_options: { lobby_size: 3 },
      }],
    }, 6);
    await playFirstStage(ev);
    const path = `/tournaments/${ev.id}/stages/2`;
    const pick = ["F", "D", "A", "B"].map(ev.team);
    expectInvalidAdvancing(await ev.call("PATCH", path, { body: { status: "ongoing", advancing: pick.slice(0, 3) } }));
    expectInvalidAdvancing(await ev.call("PATCH", path, { body: { status: "ongoing", advancing: [pick[0], pick[0], pick[1], pick[2]] } }));
    expectStatus(await ev.call("PATCH", path, { body: { status: "ongoing", advancing: pick } }), 200);
    const lobbies = lobbiesOf((await results(ev, "?stage=2")).matches, 1);
    const seeds = lobbies.map((l) => Object.fromEntries(l.opponents.map((o) => [ev.label(o.team_id), o.seed])));
    expect(seeds).toEqual([{ F: 1, B: 4 }, { D: 2, A: 3 }]);
  });
});

function expectInvalidAdvancing(res: Awaited<ReturnType<Event["call"]>>) {
  expect(res.status, res.text).toBe(400);
  expect((res.body.error.details ?? []).map((d: { field: string }) => d.field).some((f: string) => f.startsWith("advancing")), res.text)
    .toBe(true);
}

describe("three stages: ffa → ffa → single elimination", () => {
  it("chains lobbies into a final lobby into a final; overall standings block by block, backwards", async () => {
    const ev = await event({
      stages: [
        { format: "ffa", format_options: { lobby_size: 3 }, advance: { per_lobby: 2 } },
        { format: "ffa", advance: { top: 2 } },
        se,
      ],
    }, 6);
    await playFirstStage(ev);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const [lobby] = (await results(ev, "?stage=2")).matches;
    // A 10 + 1, C 6, B 5, E 4: A and C go on, seeded 1 and 2.
    await game(ev, lobby, 1, "A:1 C B E");
    const s3 = await stage(ev, 3);
    expect(qualifierRows(ev, s3.qualifiers)).toEqual([["A", 1, null, 1], ["C", 2, null, 2]]);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}/stages/3`, { body: { status: "ongoing" } }), 200);
    const [final] = (await results(ev, "?stage=3")).matches as unknown as Match[];
    expect([final.team1_seed, final.team2_seed]).toEqual([1, 2]);
    await score(ev, [final], "C", "A", 1, 0);
    expectStatus(await ev.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    // The final: C 1, A 2; stage 2 did not advance B, E (its order): 3, 4; stage 1 did not
    // advance D, F (its order): 5, 6.
    const overall = (await results(ev)).standings.map((s: { team_id: string; position: number }) => [ev.label(s.team_id), s.position]);
    expect(overall).toEqual([["C", 1], ["A", 2], ["B", 3], ["E", 4], ["D", 5], ["F", 6]]);
  });
});
