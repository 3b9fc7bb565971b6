// Stages (contract section 12), properties with fast-check: random events (a round robin of 1-16
// groups sending per_group 1-4 and best_next on to any format, sometimes a third stage after
// it), random results (scores and forfeits), every match reported until the last stage and the
// tournament complete. Checked against tests/support/stages-oracle.ts, written from the contract:
// each stage's standings, exactly the right qualifiers by tier with their seeds, 409 stage_tie
// naming the tied teams (then `advancing`, chosen here, seeds the next stage in its order), the
// next stage's first draw (standard seeding, snake groups, swiss round 1), the same-group
// separation in every elimination stage after groups, stage k's matches locked once k + 1
// starts, and the overall standings ranking every team once, block by block.
//
// The tournament is created over HTTP (the `stages` body goes through the function's
// validation); everything after runs as SQL through the operations api.call runs
// (app.update_tournament, app.report_match, app.tournament_results, app.get_stage,
// app.list_stages, app.update_stage), in one transaction per event as tournament_api_owner with
// the account bound, rolled back at the end: hundreds of reports per event stay fast.
import fc from "fast-check";
import type pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { asOwnerRole, type Call, caller, createTeams, expectStatus, sql, type Tenant, tenant, tournamentBody } from "../support/helpers.ts";
import {
  firstRoundSlots,
  type Format,
  mulberry32,
  overallStandings,
  type Place,
  placesOf,
  qualifiersOf,
  separable,
  separationViolations,
  snakeGroup,
  type StageMatch,
  standardSlots,
  uuidsIn,
} from "../support/stages-oracle.ts";

let pool: string[] = [];
beforeAll(async () => {
  pool = await createTeams(64, `StgP${Date.now().toString(36)}`);
});

// deno-lint-ignore no-explicit-any
type Outcome = { ok: true; data: any } | { ok: false; code: string; message: string; details: unknown };

/** The operations, called as api.call calls them (path ids as strings, the parsed body and query). */
function operations(c: pg.PoolClient, tournamentId: string) {
  let n = 0;
  const run = async (fn: string, args: Record<string, unknown>): Promise<Outcome> => {
    const sp = `s${++n}`;
    await c.query(`savepoint ${sp}`);
    try {
      const { rows } = await c.query(`select app.${fn}($1::jsonb) as r`, [JSON.stringify({ tournament_id: tournamentId, ...args })]);
      await c.query(`release savepoint ${sp}`);
      return { ok: true, data: rows[0].r };
    } catch (err) {
      await c.query(`rollback to savepoint ${sp}`);
      const e = err as { hint?: string; message: string; detail?: string };
      let details: unknown = e.detail;
      try {
        details = e.detail ? JSON.parse(e.detail) : null;
      } catch { /* not JSON */ }
      return { ok: false, code: e.hint ?? "?", message: e.message, details };
    }
  };
  const ok = async (fn: string, args: Record<string, unknown>) => {
    const r = await run(fn, args);
    if (!r.ok) throw new Error(`${fn} ${JSON.stringify(args)} failed: ${r.code} ${r.message} ${JSON.stringify(r.details)}`);
    return r.data;
  };
  return {
    run,
    ok,
    // PATCH /tournaments/{id} names its path id `id`; the routes below it `tournament_id`.
    setStatus: (status: string) => run("update_tournament", { id: tournamentId, body: { status } }),
    results: (stage?: number) => ok("tournament_results", { query: stage === undefined ? {} : { stage } }),
    stages: () => ok("list_stages", {}),
    stage: (k: number) => ok("get_stage", { number: String(k) }),
    startStage: (k: number, advancing?: string[]) =>
      run("update_stage", { number: String(k), body: advancing ? { status: "ongoing", advancing } : { status: "ongoing" } }),
    report: (m: StageMatch, body: Record<string, unknown>) => run("report_match", { match_id: m.id, body }),
  };
}
type Ops = ReturnType<typeof operations>;

// ============================================================================
// the events
// ============================================================================
interface StageDef {
  format: Format;
  format_options: Record<string, unknown>;
  advance?: Record<string, number>;
}

const FORMATS: Format[] = ["single_elimination", "double_elimination", "round_robin", "swiss"];

// A new fast-check seed every run (printed); STAGES_PROPS_SEED=<n> replays one.
const SEED = process.env.STAGES_PROPS_SEED && process.env.STAGES_PROPS_SEED !== "random"
  ? Number(process.env.STAGES_PROPS_SEED)
  : Math.floor(Math.random() * 2 ** 31);
console.log(`stages-properties: fast-check seed ${SEED} (STAGES_PROPS_SEED=<n> replays)`);

/** Options for a stage of `format` with `k` teams, from a random number: always playable. */
function optionsFor(format: Format, k: number, r: number): Record<string, unknown> {
  switch (format) {
    case "single_elimination":
      return { third_place_match: r % 2 === 0 };
    case "double_elimination":
      return { grand_final: r % 2 === 0 ? "reset" : "single" };
    case "swiss":
      return { rounds: 1 + (r % Math.min(k - 1, 4)) };
    case "round_robin": {
      // At most 6 teams a group (the event stays fast), at least 2.
      const lo = Math.ceil(k / 6);
      const hi = Math.floor(k / 2);
      return { groups: lo + (r % (hi - lo + 1)), points: { win: 3, loss: 0 } };
    }
  }
}

/** Group sizes of `k` teams dealt by snake into `g` groups. */
function groupSizes(k: number, g: number): number[] {
  const sizes = Array(g).fill(0);
  for (let s = 1; s <= k; s++) sizes[snakeGroup(s, g) - 1]++;
  return sizes;
}

/** `{per_group, best_next}` after a round robin of `k` teams in `g` groups, with K ≥ 2 and within what it can give. */
function roundRobinAdvance(k: number, g: number, perGroup: number, bestNext: number) {
  const sizes = groupSizes(k, g);
  const min = Math.min(...sizes);
  const n = Math.min(perGroup, min);
  const avail = sizes.filter((s) => s > n).length;
  let m = bestNext % (avail + 1);
  if (n * g + m < 2) m = 1; // one group of 2+ sending 1: take its 2nd too
  return { per_group: n, best_next: m, count: n * g + m };
}

const eventArb = fc.record({
  groups: fc.integer({ min: 1, max: 16 }),
  size: fc.integer({ min: 2, max: 5 }),
  extra: fc.nat({ max: 15 }),
  perGroup: fc.integer({ min: 1, max: 4 }),
  bestNext: fc.nat({ max: 16 }),
  next: fc.constantFrom(...FORMATS),
  nextOption: fc.nat({ max: 1000 }),
  third: fc.option(fc.record({ format: fc.constantFrom(...FORMATS), cut: fc.nat({ max: 1000 }), option: fc.nat({ max: 1000 }) }), {
    nil: null,
  }),
  seed: fc.integer(),
});
type EventArb = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

/** Turns the random numbers into a valid event: its team count and stages. */
function eventOf(e: EventArb, withThird = true): { n: number; stages: StageDef[] } {
  const g = e.groups;
  const size = Math.max(2, Math.min(e.size, Math.floor(48 / g)));
  const n = g * size + (e.extra % g);
  const adv1 = roundRobinAdvance(n, g, e.perGroup, e.bestNext);
  const stages: StageDef[] = [
    {
      format: "round_robin",
      format_options: { groups: g, points: { win: 3, loss: 0 } },
      advance: { per_group: adv1.per_group, best_next: adv1.best_next },
    },
    { format: e.next, format_options: optionsFor(e.next, adv1.count, e.nextOption) },
  ];
  if (withThird && e.third) {
    const k2 = adv1.count;
    let k3: number;
    if (e.next === "round_robin") {
      const g2 = stages[1].format_options.groups as number;
      const a = roundRobinAdvance(k2, g2, 1 + (e.third.cut % 2), e.third.option);
      stages[1].advance = { per_group: a.per_group, best_next: a.best_next };
      k3 = a.count;
    } else {
      k3 = 2 + (e.third.cut % (Math.min(k2, 12) - 1));
      stages[1].advance = { top: k3 };
    }
    stages.push({ format: e.third.format, format_options: optionsFor(e.third.format, k3, e.third.option) });
  }
  return { n, stages };
}

// ============================================================================
// playing and checking
// ============================================================================
const isElimination = (f: Format) => f === "single_elimination" || f === "double_elimination";

/** A random result for a match: a forfeit now and then, else scores with a winner. */
function randomResult(random: () => number): Record<string, unknown> {
  if (random() < 0.06) return { forfeit: random() < 0.5 ? "team1" : "team2" };
  const loser = Math.floor(random() * 4);
  const winner = loser + 1 + Math.floor(random() * 3);
  return random() < 0.5 ? { team1_score: winner, team2_score: loser } : { team1_score: loser, team2_score: winner };
}

/** Reports every ready match of stage k until none is left; returns the stage's matches. */
async function playStage(api: Ops, k: number, random: () => number): Promise<StageMatch[]> {
  for (;;) {
    const { matches } = await api.results(k);
    const ready = (matches as StageMatch[]).filter((m) => m.status === "ready");
    if (ready.length === 0) return matches;
    for (const m of ready) {
      const r = await api.report(m, randomResult(random));
      if (!r.ok) throw new Error(`report ${m.id} failed: ${r.code} ${r.message}`);
    }
  }
}

/** What the checks learned, summed over one property's runs (printed: evidence the cases were reached). */
const fresh = () => ({
  runs: 0,
  ties: 0,
  byHand: 0,
  separated: 0,
  moved: 0,
  winnersElsewhere: 0,
  movedSeeds: 0,
  movedSlots: 0,
  stages3: 0,
  formats: new Map<string, number>(),
  /** Separation rule breaks, when collected instead of failing at once (see the first property). */
  broken: null as string[] | null,
});
let seen = fresh();

/**
 * Checks the first draw of stage k + 1 (its seeds and placement) against the plan; returns the
 * seeds in order (team per seed).
 */
function checkDraw(
  next: StageDef,
  prev: StageDef,
  matches: StageMatch[],
  order: string[] | null,
  plan: ReturnType<typeof qualifiersOf>,
  prevPlaces: Place[],
  label: string,
): string[] {
  const seeds = new Map<string, number>();
  for (const m of matches) {
    if (m.team1_id) seeds.set(m.team1_id, m.team1_seed!);
    if (m.team2_id) seeds.set(m.team2_id, m.team2_seed!);
  }
  const bySeed = [...seeds].sort((a, b) => a[1] - b[1]).map(([team]) => team);
  const flat = plan.blocks.flat().map((q) => q.team);
  expect([...seeds.values()].sort((a, b) => a - b), label).toEqual(bySeed.map((_, i) => i + 1));
  const prevGroups = prev.format === "round_robin" ? prev.format_options.groups as number : 1;
  const grouped = prevGroups >= 2 && isElimination(next.format);

  if (order) {
    // advancing by hand: exactly that order.
    expect(bySeed, label).toEqual(order);
  } else {
    expect(new Set(bySeed), label).toEqual(new Set(flat));
    if (!grouped) {
      // By tier (blocks); inside a block of teams sharing a place the order is not the contract's.
      let at = 0;
      for (const block of plan.blocks) {
        expect(new Set(bySeed.slice(at, at + block.length)), `${label}: seeds ${at + 1}..${at + block.length}`)
          .toEqual(new Set(block.map((q) => q.team)));
        at += block.length;
      }
    } else {
      seen.separated++;
      const groupOf = new Map(prevPlaces.map((p) => [p.team, p.group!]));
      // Group winners take seeds 1..G: counted, not asserted. The seeds are the lexicographically
      // smallest (in tier order) that keep the section rule (15_seeding.sql), which on a few
      // events puts a winner past seed G where another placement would not (issue 32's report).
      if (!bySeed.slice(0, prevGroups).every((x) => flat.slice(0, prevGroups).includes(x))) seen.winnersElsewhere++;
      const slots = firstRoundSlots(matches);
      let broken = separationViolations(slots, groupOf);
      // The rule binds where some draw satisfies it (a search says so, or cannot tell).
      if (broken.length > 0 && separable(bySeed.map((x) => groupOf.get(x)!), slots.length) === false) broken = [];
      const where = `${label}: slots by seed ${JSON.stringify(slots.map((s) => s && bySeed.indexOf(s) + 1))}, by group ${
        JSON.stringify(slots.map((s) => s && groupOf.get(s)))
      }, seeds ${bySeed.every((x, i) => x === flat[i]) ? "in tier order" : "moved from the tier order"}`;
      if (seen.broken && broken.length > 0) {
        seen.broken.push(`${where}: ${broken.join("; ")}`);
        return bySeed;
      }
      expect(broken, where).toEqual([]);
      const pure = standardSlots(flat);
      if (separationViolations(pure, groupOf).length === 0) {
        // The tier order and the standard seeding already keep groups apart: nothing moves.
        expect(bySeed, label).toEqual(flat);
        expect(slots, label).toEqual(pure);
      } else {
        // Something must move. The contract can be read two ways (see the report): the seeds stay
        // the tier order and the bracket places them off the standard seeding, or the seeds move
        // ("within that rule the tier order decides") and the bracket is the standard seeding of them.
        seen.moved++;
        const seedsStay = bySeed.every((team, i) => team === flat[i]);
        const standardOfSeeds = JSON.stringify(slots) === JSON.stringify(standardSlots(bySeed));
        if (seedsStay) seen.movedSlots++;
        if (standardOfSeeds) seen.movedSeeds++;
        expect(seedsStay || standardOfSeeds, `${label}: seeds ${JSON.stringify(bySeed.map((t) => flat.indexOf(t) + 1))}`).toBe(true);
      }
    }
  }

  // The draw by format, from the seeds.
  const k = bySeed.length;
  if (isElimination(next.format) && !grouped) {
    expect(firstRoundSlots(matches), label).toEqual(standardSlots(bySeed));
  }
  if (next.format === "round_robin") {
    const g = next.format_options.groups as number;
    for (const m of matches) {
      expect(m.group, label).toBe(snakeGroup(m.team1_seed!, g));
      expect(m.group, label).toBe(snakeGroup(m.team2_seed!, g));
    }
  }
  if (next.format === "swiss") {
    const half = Math.floor(k / 2);
    const round1 = matches.filter((m) => m.round === 1);
    const pairs = round1.filter((m) => m.status !== "bye").map((m) => [m.team1_seed!, m.team2_seed!].sort((a, b) => a - b).join("v"))
      .sort();
    expect(pairs, label).toEqual(Array.from({ length: half }, (_, i) => `${i + 1}v${i + 1 + half}`).sort());
    if (k % 2 === 1) expect(round1.filter((m) => m.status === "bye").map((m) => m.team1_seed), label).toEqual([k]);
  }
  return bySeed;
}

/** Plays one event to the end in one transaction, checking every stage. */
async function playEvent(t: Tenant, call: Call, e: EventArb, options: { playLast: boolean } = { playLast: true }) {
  const event = eventOf(e, options.playLast);
  const random = mulberry32(e.seed);
  const created = await call("POST", "/tournaments", { body: tournamentBody({ max_teams: Math.max(event.n, 2), stages: event.stages }) });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  const teams = pool.slice(0, event.n);
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
    [id, t.accountId, teams],
  );
  const label = JSON.stringify(event.stages.map((s) => [s.format, s.format_options, s.advance ?? null])) + ` n=${event.n}`;

  await asOwnerRole(t.accountId, async (c) => {
    const api = operations(c, id);
    const start = await api.setStatus("ongoing");
    expect(start.ok, `${label}: ${JSON.stringify(start)}`).toBe(true);
    const done: { format: Format; places: Place[] }[] = [];
    let advanced: string[] = teams;
    for (let k = 1; k <= event.stages.length; k++) {
      const def = event.stages[k - 1];
      const first = await api.results(k);
      expect(first.tournament.stage, label).toBe(k);
      // Stage k holds exactly the teams sent on, every match marked with its stage.
      const inStage = new Set((first.matches as StageMatch[]).flatMap((m) => [m.team1_id, m.team2_id]).filter((x) => x !== null));
      expect(inStage, label).toEqual(new Set(advanced));
      expect((first.matches as StageMatch[]).every((m) => m.stage === k), label).toBe(true);
      seen.formats.set(def.format, (seen.formats.get(def.format) ?? 0) + 1);

      const last = k === event.stages.length;
      if (last && !options.playLast) break;
      const matches = await playStage(api, k, random);
      const detail = await api.stage(k);
      expect(detail.status, `${label}: stage ${k}`).toBe("completed");
      // The stage's own standings, as sections 5 and 10 rank them.
      const places = placesOf(def.format, matches, def.format_options);
      expect(places.map((p) => p.team).sort(), label).toEqual([...advanced].sort());
      const own = (await api.results(k)).standings as { team_id: string; position: number }[];
      expect(new Map(own.map((s) => [s.team_id, s.position])), `${label}: stage ${k} standings`)
        .toEqual(new Map(places.map((p) => [p.team, p.position])));
      done.push({ format: def.format, places });
      if (last) break;

      // Not complete before the last stage is.
      const early = await api.setStatus("completed");
      expect(early.ok ? "ok" : early.code, label).toBe("invalid_status_transition");

      // The qualifiers by the oracle, and as GET /stages/{k+1} shows them.
      const plan = qualifiersOf(def.format, places, def.advance!);
      const next = event.stages[k];
      const qs = (await api.stage(k + 1)).qualifiers as {
        team_id: string;
        seed: number;
        from_group: number | null;
        from_position: number;
        tied: boolean;
      }[];
      expect(qs.map((q) => q.seed), label).toEqual(qs.map((_, i) => i + 1));
      const info = new Map(
        plan.blocks.flat().concat(
          plan.tie
            ? places.filter((p) => plan.tie!.tied.includes(p.team))
              .map((p) => ({ team: p.team, from_group: null, from_position: p.position }))
            : [],
        ).map((q) => [q.team, q]),
      );
      const groups = def.format === "round_robin" ? def.format_options.groups as number : 0;
      for (const q of qs) {
        const want = info.get(q.team_id);
        expect(want, `${label}: ${q.team_id} is not a qualifier`).toBeDefined();
        expect(q.from_position, label).toBe(want!.from_position);
        if (groups !== 1) expect(q.from_group, label).toBe(want!.from_group);
      }
      const singles = new Set(plan.blocks.filter((b) => b.length === 1).map((b) => b[0].team));
      for (const q of qs) if (singles.has(q.team_id)) expect(q.tied, label).toBe(false);

      let order: string[] | null = null;
      if (plan.tie) {
        seen.ties++;
        const sure = plan.tie.sure.flat().map((q) => q.team);
        expect(qs.slice(0, sure.length).map((q) => q.team_id).sort(), label).toEqual([...sure].sort());
        for (const q of qs.slice(sure.length)) {
          expect(plan.tie.tied, label).toContain(q.team_id);
          expect(q.tied, label).toBe(true);
        }
        const refused = await api.startStage(k + 1);
        expect(refused.ok ? "ok" : refused.code, label).toBe("stage_tie");
        if (!refused.ok) expect(uuidsIn(refused.details), label).toEqual(new Set(plan.tie.tied));
        // By hand: the sure ones (a shared place in stage order by seed), then `open` of the tied, at random.
        const seedOf = new Map(places.map((p) => [p.team, p.seed]));
        const shuffled = [...plan.tie.tied].map((x) => [random(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
        order = [
          ...plan.tie.sure.flatMap((b) => b.map((q) => q.team).sort((a, b) => seedOf.get(a)! - seedOf.get(b)!)),
          ...shuffled.slice(0, plan.tie.open),
        ];
        const wrong = await api.startStage(k + 1, order.slice(1));
        expect(wrong.ok ? "ok" : wrong.code, label).toBe("validation_error");
      }
      if (!order && random() < 0.15) {
        // Now and then the organiser decides by hand without a tie: any K distinct teams of the
        // stage, in any order, become seeds 1..K in that order.
        seen.byHand++;
        const count = plan.blocks.flat().length;
        order = places.map((p) => [random(), p.team] as const).sort((a, b) => a[0] - b[0]).slice(0, count).map(([, x]) => x);
      }
      const started = await api.startStage(k + 1, order ?? undefined);
      expect(started.ok, `${label}: ${JSON.stringify(started)}`).toBe(true);
      const nextMatches = (await api.results(k + 1)).matches as StageMatch[];
      const bySeed = checkDraw(next, def, nextMatches, order, plan, places, `${label}: stage ${k + 1}`);
      // Without advancing, the seeds are the ones the preview showed.
      if (!order) expect(bySeed, label).toEqual(qs.map((q) => q.team_id));
      advanced = bySeed;
      // Stage k is locked now.
      const played = matches.find((m) => m.status === "completed")!;
      const relock = await api.report(
        played,
        played.forfeit ? { forfeit: played.forfeit } : {
          team1_score: played.team1_score,
          team2_score: played.team2_score,
        },
      );
      expect(relock.ok ? "ok" : relock.code, label).toBe("match_locked");
    }
    if (!options.playLast) return;
    if (event.stages.length === 3) seen.stages3++;

    const end = await api.setStatus("completed");
    expect(end.ok, `${label}: ${JSON.stringify(end)}`).toBe(true);
    const stages = await api.stages();
    expect(stages.map((s: { status: string }) => s.status), label).toEqual(event.stages.map(() => "completed"));
    expect(stages.map((s: { team_count: number }) => s.team_count), label).toEqual(done.map((d) => d.places.length));
    // Overall: every team once, block by block.
    const overall = (await api.results()).standings as { team_id: string; position: number }[];
    expect(overall, label).toHaveLength(teams.length);
    const ps = overall.map((s) => s.position);
    expect(ps, label).toEqual([...ps].sort((a, b) => a - b));
    expect(new Map(overall.map((s) => [s.team_id, s.position])), `${label}: overall`).toEqual(overallStandings(done));
  });
  seen.runs++;
}

describe("stages: properties", () => {
  it(
    "property: random events (groups 1-16, per_group 1-4, best_next, any format after, sometimes a third stage) always complete, with the contract's qualifiers, seeds, draws and standings",
    async () => {
      const t = await tenant();
      const call = caller(t);
      const started = performance.now();
      // The separation rule has its own property below; here its breaks are collected and
      // asserted once at the end, so that one break does not hide what the other runs would show.
      seen = fresh();
      seen.broken = [];
      await fc.assert(fc.asyncProperty(eventArb, (e) => playEvent(t, call, e)), {
        numRuns: 50,
        seed: SEED,
        examples: [
          // 16 groups of 3 into a double elimination; a third stage after a single elimination (a tie at the cut).
          [{ groups: 16, size: 3, extra: 0, perGroup: 2, bestNext: 0, next: "double_elimination", nextOption: 0, third: null, seed: 1 }],
          [{
            groups: 2,
            size: 4,
            extra: 0,
            perGroup: 2,
            bestNext: 0,
            next: "single_elimination",
            nextOption: 1,
            third: { format: "round_robin", cut: 1, option: 0 },
            seed: 7,
          }],
          [{
            groups: 6,
            size: 4,
            extra: 0,
            perGroup: 2,
            bestNext: 4,
            next: "single_elimination",
            nextOption: 1,
            third: { format: "swiss", cut: 3, option: 2 },
            seed: 3,
          }],
          [{ groups: 1, size: 5, extra: 0, perGroup: 1, bestNext: 0, next: "swiss", nextOption: 0, third: null, seed: 5 }],
        ],
      });
      console.log(
        `stages property: ${seen.runs} events in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
          `${seen.ties} ties at the cut, ${seen.byHand} starts with advancing chosen at random, ${seen.separated} elimination stages after groups (${seen.moved} needing a move: ` +
          `${seen.movedSeeds} by moving seeds, ${seen.movedSlots} by moving slots, ${seen.winnersElsewhere} with a winner past seed G), ${seen.stages3} with 3 stages; ` +
          `formats ${JSON.stringify(Object.fromEntries(seen.formats))}`,
      );
      expect(seen.runs).toBeGreaterThanOrEqual(50);
      expect(seen.ties).toBeGreaterThan(0);
      expect(seen.moved).toBeGreaterThan(0);
      expect(seen.broken, "separation rule broken").toEqual([]);
    },
    240_000,
  );

  it("property: after groups, every elimination stage keeps a group's qualifiers in separate sections and apart in round 1", async () => {
    const t = await tenant();
    const call = caller(t);
    seen = fresh();
    await fc.assert(
      fc.asyncProperty(
        eventArb.map((e) => ({
          ...e,
          groups: Math.max(2, e.groups),
          next: e.seed % 2 === 0 ? "single_elimination" as const : "double_elimination" as const,
        })),
        (e) => playEvent(t, call, e, { playLast: false }),
      ),
      // Shrinking replays whole events: bounded so that a failure reports within the file's budget.
      { numRuns: 25, seed: SEED, interruptAfterTimeLimit: 20_000, markInterruptAsFailure: false },
    );
    expect(seen.separated).toBeGreaterThanOrEqual(10);
  }, 120_000);
});
