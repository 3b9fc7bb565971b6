// Same-group separation (contract section 12; supabase/schemas/15_seeding.sql), called in SQL:
// - each function of the flow on small inputs worked out by hand;
// - an exhaustive oracle on small events (K <= 8: every permutation of the seeds, in
//   lexicographic order): the rule holds whenever any permutation keeps it, and the seeds are
//   exactly the lexicographically smallest that keep it;
// - a fixed corpus (the 11-group event of issue 32, the tier orders that beat the old search,
//   1,024 qualifiers), and a property over new random events every run (groups 2-512, per_group
//   1-8, best_next, 2-1,024 qualifiers): a permutation, the rule, and the tier order untouched
//   when it already keeps the rule (group winners on seeds 1..G: counted, see problems()).
// SEPARATION_SEED=<n> replays a run of the property; SEPARATION_EVENTS=<n> sets its size.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sql } from "../support/helpers.ts";
import { mulberry32, pow2, separationViolations, standardSlots } from "../support/stages-oracle.ts";

const SEED = process.env.SEPARATION_SEED ? Number(process.env.SEPARATION_SEED) : Math.floor(Math.random() * 2 ** 31);
const EVENTS = Number(process.env.SEPARATION_EVENTS ?? 300);
console.log(`separation: fast-check seed ${SEED}, ${EVENTS} events (SEPARATION_SEED=<n> replays, SEPARATION_EVENTS=<n>)`);

async function separatedSeeds(groups: number[]): Promise<number[]> {
  const [{ seeds }] = await sql<{ seeds: number[] }>("select app.separated_seeds($1::int[]) as seeds", [groups]);
  return seeds;
}

/** The bracket's slots (group per slot, null for a bye) when qualifier i (group groups[i]) gets seeds[i]. */
function slotsOf(_groups: number[], seeds: number[]): (string | null)[] {
  const bySeed: string[] = [];
  seeds.forEach((seed, i) => (bySeed[seed - 1] = `q${i}`));
  return standardSlots(bySeed);
}

/** What breaks the rule, from tests/support/stages-oracle.ts: sections only, or sections and round 1. */
function broken(groups: number[], seeds: number[], withRoundOne = false): string[] {
  const groupOf = new Map(groups.map((g, i) => [`q${i}`, g]));
  const all = separationViolations(slotsOf(groups, seeds), groupOf);
  return withRoundOne ? all : all.filter((p) => p.includes("share a section"));
}

/** Every permutation of 1..k, in lexicographic order. */
function* permutations(k: number): Generator<number[]> {
  const used = Array(k + 1).fill(false);
  const current: number[] = [];
  function* extend(): Generator<number[]> {
    if (current.length === k) {
      yield [...current];
      return;
    }
    for (let s = 1; s <= k; s++) {
      if (used[s]) continue;
      used[s] = true;
      current.push(s);
      yield* extend();
      current.pop();
      used[s] = false;
    }
  }
  yield* extend();
}

/** A round robin's qualifiers in tier order: g groups, each tier's groups in a random order, then best_next of them. */
function tierOrder(g: number, perGroup: number, bestNext: number, random: () => number): number[] {
  const shuffled = () => Array.from({ length: g }, (_, i) => i + 1).map((x) => [random(), x]).sort((a, b) => a[0] - b[0]).map(([, x]) => x);
  const groups: number[] = [];
  for (let t = 0; t < perGroup; t++) groups.push(...shuffled());
  groups.push(...shuffled().slice(0, bestNext));
  return groups;
}

/** Whether the group winners (each group's first qualifier) hold seeds 1..G. */
function winnersFirst(groups: number[], seeds: number[]): boolean {
  const g = new Set(groups).size;
  const winners = groups.map((x, i) => (groups.indexOf(x) === i ? seeds[i] : 0)).filter((s) => s > 0).sort((a, b) => a - b);
  return winners.join() === Array.from({ length: g }, (_, i) => i + 1).join();
}

/**
 * The checks every placement must pass; returns what failed. Group winners on seeds 1..G is not
 * one of them: the lexicographically smallest placement misses it on some events where it is
 * possible (e.g. [1, 2, 3, 3, 1]: see the report of issue 32); it is counted instead.
 */
function problems(groups: number[], seeds: number[]): string[] {
  const out: string[] = [];
  const k = groups.length;
  if ([...seeds].sort((a, b) => a - b).join() !== Array.from({ length: k }, (_, i) => i + 1).join()) out.push("not a permutation of 1..K");
  out.push(...broken(groups, seeds, true));
  const identity = groups.map((_, i) => i + 1);
  if (broken(groups, identity, true).length === 0 && seeds.join() !== identity.join()) out.push("moved a tier order that keeps the rule");
  return out;
}

describe("separation: each function on hand-worked inputs", () => {
  // Bracket of 4 (seed_order 1, 4, 2, 3): seeds 1, 2, 3 at slots 0, 2, 3; seed 4 (a bye) at slot 1.
  it("app.separation_layout: the bracket, its tree depths, each group's sections", async () => {
    const [row] = await sql("select (app.separation_layout(array[1, 2, 1, 2])).*");
    expect(row).toEqual({
      bracket_size: 4,
      bracket_depth: 2,
      slot_of_seed: [0, 2, 3, 1],
      node_depth: [0, 1, 1, 2, 2, 2, 2],
      group_depth: [1, 1],
      entry_start: [0, 2],
      depth_groups: [1, 2],
      depth_start: [1, 1, 3, 3],
    });
    const [three] = await sql("select (app.separation_layout(array[3, 1, 3, 3, 3, 3])).*");
    // group 1: one qualifier (one section, the root); group 2 none; group 3: five (8 sections of 1 slot)
    expect(three).toMatchObject({
      bracket_size: 8,
      group_depth: [0, 0, 3],
      entry_start: [0, 1, 2],
      depth_groups: [1, 3],
      depth_start: [1, 2, 2, 2, 3],
    });
  });

  it("app.separation_empty_flow: real slots open, byes closed, open slots counted up the tree", async () => {
    const [row] = await sql("select (app.separation_empty_flow(app.separation_layout(array[1, 1, 2]), 3)).*");
    expect(row).toEqual({
      entries: [0, 0, 0],
      down: [0, 0, 0, 0, 0, 0, 0],
      leaves: [0, 2, 0, 0],
      free_below: [3, 1, 2, 1, 0, 1, 1],
      entered_below: [0, 0, 0, 0, 0, 0, 0],
    });
  });

  it("app.separation_path and app.separation_augment: group 1 into its left half, down to slot 0", async () => {
    const [{ path }] = await sql(
      "select app.separation_path(app.separation_layout(array[1, 1, 2]), app.separation_empty_flow(app.separation_layout(array[1, 1, 2]), 3), 1, 0) as path",
    );
    expect(path).toEqual([1, 2 + 2]); // group 1, then tree node 2 (node ids after the 2 groups)
    const [flow] = await sql(`select (app.separation_augment(l, app.separation_empty_flow(l, 3), array[1, 4])).*
      from app.separation_layout(array[1, 1, 2]) l`);
    expect(flow).toEqual({
      entries: [1, 0, 0],
      down: [0, 0, 0, 1, 0, 0, 0],
      leaves: [1, 2, 0, 0],
      free_below: [2, 0, 2, 0, 0, 1, 1],
      entered_below: [1, 1, 0, 0, 0, 0, 0],
    });
  });

  it("app.separation_max_flow and app.separation_fix: group 2 on seed 1 leaves group 1 no left half", async () => {
    // The full flow: group 1 at slots 0 and 2 (one per half), group 2 at slot 3.
    const [full] = await sql("select (app.separation_max_flow(app.separation_layout(array[1, 1, 2]), array[1, 1, 2])).*");
    expect(full).toEqual({
      entries: [1, 1, 1],
      down: [0, 0, 1, 1, 0, 1, 1],
      leaves: [1, 2, 1, 1],
      free_below: [0, 0, 0, 0, 0, 0, 0],
      entered_below: [3, 1, 1, 0, 0, 0, 0],
    });
    // Group 2 on slot 0: group 1's qualifier there is taken off (group 1 short), group 2's section
    // (the root) closed and its qualifier's slot freed (slot 2, by the flow's decomposition).
    const [fixed] = await sql(`select (f.flow).*, f.short, f.extra
      from app.separation_layout(array[1, 1, 2]) l,
           app.separation_fix(l, app.separation_max_flow(l, array[1, 1, 2]), 2, 0) f`);
    expect(fixed).toEqual({
      entries: [0, 1, 2],
      down: [0, 0, 0, 0, 0, 0, 1],
      leaves: [2, 2, 0, 1],
      free_below: [1, 0, 1, 0, 0, 1, 0],
      entered_below: [1, 0, 1, 0, 0, 0, 0],
      short: 1,
      extra: 0,
    });
    // Group 1 cannot get back into the left half (slot 1 is a bye): no augmenting path.
    const [{ path }] = await sql(`select app.separation_path(l, (f.flow), f.short, f.extra) as path
      from app.separation_layout(array[1, 1, 2]) l, app.separation_fix(l, app.separation_max_flow(l, array[1, 1, 2]), 2, 0) f`);
    expect(path).toBeNull();
  });

  it.each([
    // groups of qualifiers in tier order -> seeds, worked out by hand (bracket of 4: seed slots 1:0 4:1 2:2 3:3;
    // of 8: 1:0 8:1 4:2 5:3 2:4 7:5 3:6 6:7)
    { groups: [1, 2, 1, 2], seeds: [1, 2, 3, 4] }, // the tier order keeps the rule: untouched
    { groups: [1, 1, 2], seeds: [1, 2, 3] },
    // group 2's one team cannot take seed 1: group 1 needs the left half, whose other slot is a bye
    { groups: [2, 1, 1], seeds: [2, 1, 3] },
    // groups 1-3 send 2 each into 8: each needs one per half (left holds seeds 1, 4, 5)
    { groups: [1, 2, 3, 1, 2, 3], seeds: [1, 2, 3, 6, 4, 5] },
    // 2 groups of 4 into 8: one per quarter (quarters: 1|8, 4|5, 2|7, 3|6)
    { groups: [1, 2, 1, 2, 1, 2, 1, 2], seeds: [1, 2, 3, 4, 5, 6, 7, 8] },
    // group 1 on 1 and 4 holds quarters 0 and 1: its 3rd takes 6 (quarter 3), not 5 (quarter 1)
    { groups: [1, 2, 2, 1, 1, 2, 2, 1], seeds: [1, 2, 3, 4, 6, 5, 8, 7] },
    // 4 groups of 2, one per half (left: 1, 8, 4, 5): each runner-up takes the smallest seed of
    // the other half
    { groups: [1, 2, 3, 4, 1, 2, 3, 4], seeds: [1, 2, 3, 4, 6, 5, 8, 7] },
    { groups: [1, 1, 2, 2, 3, 3, 4, 4], seeds: [1, 2, 3, 4, 5, 6, 7, 8] },
    { groups: [1, 3, 1, 2, 2, 3], seeds: [1, 2, 3, 4, 6, 5] },
  ])("app.separated_seeds($groups) = $seeds", async ({ groups, seeds }) => {
    expect(await separatedSeeds(groups)).toEqual(seeds);
  });
});

describe("separation: exhaustive oracle on small events", () => {
  it(
    "keeps the rule whenever any permutation can, and gives exactly the lexicographically smallest permutation that keeps it",
    async () => {
      const random = mulberry32(SEED);
      let events = 0;
      let moved = 0;
      const cases: number[][] = [];
      // every tier order of every shape with 2-6 qualifiers from 2-3 groups, then random ones up to 8
      for (let k = 2; k <= 6; k++) {
        for (let code = 0; code < 3 ** k; code++) {
          const groups = Array.from({ length: k }, (_, i) => 1 + (Math.floor(code / 3 ** i) % 3));
          const present = [...new Set(groups)].sort();
          if (present.length < 2 || present.some((g, i) => g !== i + 1)) continue;
          cases.push(groups);
        }
      }
      for (let n = 0; n < 150; n++) {
        const k = 7 + Math.floor(random() * 2);
        const g = 2 + Math.floor(random() * 4);
        cases.push(Array.from({ length: k }, (_, i) => (i < g ? i + 1 : 1 + Math.floor(random() * g))));
      }
      for (const groups of cases) {
        let best: number[] | null = null;
        let anyWithRoundOne = false;
        for (const p of permutations(groups.length)) {
          if (broken(groups, p).length > 0) continue;
          best ??= p;
          if (broken(groups, p, true).length === 0) {
            anyWithRoundOne = true;
            break;
          }
        }
        const seeds = await separatedSeeds(groups);
        events++;
        if (seeds.some((s, i) => s !== i + 1)) moved++;
        expect(best, `${JSON.stringify(groups)}: no permutation keeps the sections`).not.toBeNull();
        expect(seeds, `${JSON.stringify(groups)}`).toEqual(best);
        if (anyWithRoundOne) expect(broken(groups, seeds, true), JSON.stringify(groups)).toEqual([]);
      }
      console.log(`separation oracle: ${events} events (K <= 8), ${moved} with seeds moved from the tier order`);
      expect(moved).toBeGreaterThan(50);
    },
    120_000,
  );
});

describe("separation: fixed corpus", () => {
  it.each([
    // issue 32: 11 groups, 4 per group and the 3 best fifths (47) into 64; the old search left
    // group 11's four at slots 3, 17, 52, 55 (two in one quarter)
    { name: "11 groups of 4 + 3 best fifths, groups in order", groups: tierOrder(11, 4, 0, () => 0).concat([2, 5, 9]) },
    { name: "11 groups of 4 + 3 best fifths, shuffled tiers", groups: tierOrder(11, 4, 3, mulberry32(32)) },
    // the tier orders the old search once gave up on (10 groups of 4 and a best fifth into 64)
    {
      name: "10 groups of 4 + 1 (a)",
      groups: [
        8,
        9,
        2,
        3,
        6,
        5,
        1,
        7,
        10,
        4,
        2,
        5,
        1,
        7,
        10,
        4,
        9,
        8,
        6,
        3,
        1,
        3,
        10,
        8,
        9,
        2,
        7,
        5,
        4,
        6,
        3,
        4,
        8,
        5,
        6,
        10,
        2,
        7,
        9,
        1,
        2,
      ],
    },
    {
      name: "10 groups of 4 + 1 (b)",
      groups: [
        3,
        4,
        5,
        9,
        2,
        6,
        8,
        1,
        7,
        10,
        7,
        3,
        2,
        9,
        6,
        1,
        10,
        4,
        8,
        5,
        9,
        2,
        6,
        5,
        10,
        3,
        8,
        1,
        7,
        4,
        4,
        1,
        6,
        8,
        5,
        2,
        9,
        7,
        3,
        10,
        2,
      ],
    },
    { name: "16 groups of 3 + 0", groups: tierOrder(16, 3, 0, () => 0) },
    { name: "256 groups of 4 (1,024)", groups: tierOrder(256, 4, 0, () => 0) },
    { name: "16 groups of 64 (1,024)", groups: tierOrder(16, 64, 0, () => 0) },
    { name: "512 groups of 2 (1,024)", groups: tierOrder(512, 2, 0, () => 0) },
    { name: "341 groups of 3 + 1 (1,024), shuffled tiers", groups: tierOrder(341, 3, 1, mulberry32(1024)) },
  ])("$name: a permutation keeping the rule, winners on 1..G", async ({ name, groups }) => {
    const started = performance.now();
    const seeds = await separatedSeeds(groups);
    const ms = performance.now() - started;
    if (groups.length >= 1024) console.log(`separation: ${name}: ${ms.toFixed(0)} ms`);
    expect(problems(groups, seeds), name).toEqual([]);
    expect(winnersFirst(groups, seeds), name).toBe(true);
  }, 30_000);

  it("issue 32's event: group 11's four qualifiers one per quarter of the 64", async () => {
    const groups = tierOrder(11, 4, 0, () => 0).concat([2, 5, 9]);
    const seeds = await separatedSeeds(groups);
    const slots = slotsOf(groups, seeds);
    const quarters = slots.flatMap((q, i) => (q !== null && groups[Number(q.slice(1))] === 11 ? [Math.floor(i / 16)] : []));
    expect(quarters.sort()).toEqual([0, 1, 2, 3]);
    expect(pow2(groups.length)).toBe(64);
  });
});

describe("separation: property", () => {
  it(
    `random events (groups 2-512, per_group 1-8, best_next; 2-1,024 qualifiers): a permutation keeping the rule, the tier order kept when it keeps the rule`,
    async () => {
      const started = performance.now();
      let qualifiers = 0;
      let moved = 0;
      let winnersElsewhere = 0;
      const event = fc.record({
        log: fc.double({ min: 1, max: 10, noNaN: true }),
        perGroup: fc.integer({ min: 1, max: 8 }),
        share: fc.double({ min: 0, max: 1, noNaN: true }),
        order: fc.integer(),
      }).map(({ log, perGroup, share, order }) => {
        // about 2^log qualifiers: g groups of perGroup, and best_next of them (fewer than g)
        const target = Math.max(2, Math.min(1024, Math.round(2 ** log)));
        const per = Math.min(perGroup, Math.max(1, Math.floor(target / 2)));
        const g = Math.max(2, Math.min(512, Math.floor(target / per)));
        const best = Math.min(g - 1, 1024 - g * per, Math.floor(share * g));
        return tierOrder(g, Math.min(per, Math.floor(1024 / g)), Math.max(0, best), mulberry32(order));
      });
      await fc.assert(
        fc.asyncProperty(event, async (groups) => {
          const seeds = await separatedSeeds(groups);
          qualifiers += groups.length;
          if (seeds.some((s, i) => s !== i + 1)) moved++;
          if (!winnersFirst(groups, seeds)) winnersElsewhere++;
          const found = problems(groups, seeds);
          if (found.length > 0) throw new Error(`${JSON.stringify(groups)} -> ${JSON.stringify(seeds)}: ${found.join("; ")}`);
        }),
        { numRuns: EVENTS, seed: SEED, endOnFailure: true },
      );
      console.log(
        `separation property: ${EVENTS} events, ${qualifiers} qualifiers, ${moved} with seeds moved, ` +
          `${winnersElsewhere} with a group winner past seed G, ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s (seed ${SEED})`,
      );
      expect(moved).toBeGreaterThan(0);
    },
    3_600_000,
  );
});
