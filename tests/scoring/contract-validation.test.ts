// The options of contract section 19, from the contract alone: draws, points {win, draw, loss,
// forfeit_loss} (integers −10…100, forfeit_loss defaulting to loss, section 10's {win, loss}
// still accepted), tie_breakers (1–8 distinct criteria of eight), every default shown by GET, an
// even best_of only with draws, draws refused on the elimination formats (tournament and stage),
// and the options locked once the tournament is ongoing.
import { describe, expect, it } from "vitest";
import { type Call, caller, expectError, expectStatus, tenant, tournamentBody } from "../support/helpers.ts";
import { league, results } from "./contract-support.ts";

const CRITERIA = ["head_to_head", "wins", "score_difference", "score_for", "buchholz", "median_buchholz", "sonneborn_berger", "forfeits"];

async function create(call: Call, format: string, format_options?: unknown) {
  return call("POST", "/tournaments", { body: tournamentBody(format_options === undefined ? { format } : { format, format_options }) });
}

async function created(call: Call, format: string, format_options?: unknown) {
  const res = await create(call, format, format_options);
  expectStatus(res, 201);
  const got = await call("GET", `/tournaments/${res.body.data.id}`);
  expectStatus(got, 200);
  expect(got.body.data.format_options, "GET shows what the POST answered").toEqual(res.body.data.format_options);
  return got.body.data.format_options;
}

describe("defaults", () => {
  it("fills in round robin's: no draws, 3/1/0 with forfeit_loss = loss, head_to_head, score_difference, score_for", async () => {
    const call = caller(await tenant());
    const want = {
      groups: 1,
      best_of: 1,
      draws: false,
      points: { win: 3, draw: 1, loss: 0, forfeit_loss: 0 },
      tie_breakers: ["head_to_head", "score_difference", "score_for"],
    };
    expect(await created(call, "round_robin")).toEqual(want);
    expect(await created(call, "round_robin", { draws: true })).toEqual({ ...want, draws: true });
  });

  it("fills in swiss's: 1/0/0 without draws, 3/1/0 with them, buchholz", async () => {
    const call = caller(await tenant());
    const base = { rounds: null, best_of: 1, tie_breakers: ["buchholz"] };
    expect(await created(call, "swiss")).toEqual({ ...base, draws: false, points: { win: 1, draw: 0, loss: 0, forfeit_loss: 0 } });
    expect(await created(call, "swiss", { draws: true })).toEqual({
      ...base,
      draws: true,
      points: { win: 3, draw: 1, loss: 0, forfeit_loss: 0 },
    });
  });

  it("accepts section 10's {win, loss} (draw 1, forfeit_loss = loss) and defaults forfeit_loss to loss", async () => {
    const call = caller(await tenant());
    expect((await created(call, "round_robin", { points: { win: 2, loss: 1 } })).points).toEqual({
      win: 2,
      draw: 1,
      loss: 1,
      forfeit_loss: 1,
    });
    expect((await created(call, "round_robin", { points: { win: 3, draw: 2, loss: -2 } })).points).toEqual({
      win: 3,
      draw: 2,
      loss: -2,
      forfeit_loss: -2,
    });
    expect((await created(call, "swiss", { draws: true, points: { win: 2, draw: 1, loss: 0, forfeit_loss: -1 } })).points).toEqual({
      win: 2,
      draw: 1,
      loss: 0,
      forfeit_loss: -1,
    });
  });

  it("shows a stage's options filled in too", async () => {
    const call = caller(await tenant());
    const res = await call("POST", "/tournaments", {
      body: tournamentBody({
        stages: [
          { format: "round_robin", format_options: { draws: true, best_of: 4, tie_breakers: ["wins"] }, advance: { per_group: 2 } },
          { format: "swiss", format_options: { rounds: 1 } },
        ],
      }),
    });
    expectStatus(res, 201);
    const stages = await call("GET", `/tournaments/${res.body.data.id}/stages`);
    expectStatus(stages, 200);
    expect(stages.body.data.map((s: { format_options: unknown }) => s.format_options)).toEqual([
      { groups: 1, best_of: 4, draws: true, points: { win: 3, draw: 1, loss: 0, forfeit_loss: 0 }, tie_breakers: ["wins"] },
      { rounds: 1, best_of: 1, draws: false, points: { win: 1, draw: 0, loss: 0, forfeit_loss: 0 }, tie_breakers: ["buchholz"] },
    ]);
    expect(res.body.data.format_options, "the tournament's options read as its first stage's").toEqual(stages.body.data[0].format_options);
  });
});

describe("points", () => {
  it("accepts every field at −10 and at 100", async () => {
    const call = caller(await tenant());
    for (const points of [{ win: 100, draw: -10, loss: -10, forfeit_loss: 100 }, { win: -10, draw: 100, loss: 100, forfeit_loss: -10 }]) {
      expect((await created(call, "round_robin", { draws: true, points })).points).toEqual(points);
      expect((await created(call, "swiss", { points })).points).toEqual(points);
    }
  });

  it("returns 400 naming the field for each point value out of bounds or not an integer, and for an unknown one", async () => {
    const call = caller(await tenant());
    for (const field of ["win", "draw", "loss", "forfeit_loss"]) {
      for (const value of [101, -11, 1.5, "1", null]) {
        const points = { win: 3, draw: 1, loss: 0, forfeit_loss: 0, [field]: value };
        for (const format of ["round_robin", "swiss"]) {
          expectError(await create(call, format, { points }), 400, "validation_error", [`format_options.points.${field}`]);
        }
      }
    }
    expectError(await create(call, "round_robin", { points: { win: 3, draw: 1, loss: 0, bonus: 1 } }), 400, "validation_error", [
      "format_options.points.bonus",
    ]);
  });
});

describe("tie_breakers", () => {
  it("accepts every criterion alone and all eight in any order, shown as given", async () => {
    const call = caller(await tenant());
    for (const c of CRITERIA) expect((await created(call, "round_robin", { tie_breakers: [c] })).tie_breakers).toEqual([c]);
    const reversed = [...CRITERIA].reverse();
    expect((await created(call, "round_robin", { tie_breakers: reversed })).tie_breakers).toEqual(reversed);
    expect((await created(call, "swiss", { tie_breakers: CRITERIA })).tie_breakers).toEqual(CRITERIA);
  });

  it("returns 400 for none, nine, a duplicate, an unknown criterion, the seed, points, or not a list", async () => {
    const call = caller(await tenant());
    const bad: unknown[] = [
      [],
      [...CRITERIA, "wins"],
      ["wins", "wins"],
      ["head_to_head", "score_for", "head_to_head"],
      ["goals"],
      ["seed"],
      ["points"],
      ["Wins"],
      "wins",
      [1],
      null,
    ];
    for (const tie_breakers of bad) {
      for (const format of ["round_robin", "swiss"]) {
        const res = await create(call, format, { tie_breakers });
        expectError(res, 400, "validation_error");
        const fields = (res.body.error.details ?? []).map((d: { field: string }) => d.field);
        expect(fields.some((f: string) => f.startsWith("format_options.tie_breakers")), `${JSON.stringify(tie_breakers)}: ${res.text}`)
          .toBe(true);
      }
    }
  });
});

describe("draws and best_of", () => {
  it("takes an even best_of (2, 4, 6, 8) only with draws", async () => {
    const call = caller(await tenant());
    for (const format of ["round_robin", "swiss"]) {
      for (const best_of of [2, 4, 6, 8]) {
        expectError(await create(call, format, { best_of }), 400, "validation_error", ["format_options.best_of"]);
        expectError(await create(call, format, { draws: false, best_of }), 400, "validation_error", ["format_options.best_of"]);
        expect((await created(call, format, { draws: true, best_of })).best_of).toBe(best_of);
      }
      for (const best_of of [0, 10, 11, 2.5]) {
        expectError(await create(call, format, { draws: true, best_of }), 400, "validation_error", ["format_options.best_of"]);
      }
      expect((await created(call, format, { draws: true, best_of: 3 })).best_of).toBe(3);
    }
  });

  it("returns 400 for draws that is not a boolean", async () => {
    const call = caller(await tenant());
    for (const draws of ["true", 1, null]) {
      expectError(await create(call, "round_robin", { draws }), 400, "validation_error", ["format_options.draws"]);
    }
  });

  it("refuses draws: true on the elimination formats, for the tournament and for a stage", async () => {
    const call = caller(await tenant());
    for (const format of ["single_elimination", "double_elimination"]) {
      expectError(await create(call, format, { draws: true }), 400, "validation_error", ["format_options.draws"]);
      expectError(await create(call, format, { points: { win: 3, loss: 0 } }), 400, "validation_error", ["format_options.points"]);
      expectError(await create(call, format, { tie_breakers: ["wins"] }), 400, "validation_error", ["format_options.tie_breakers"]);
      const staged = await call("POST", "/tournaments", {
        body: tournamentBody({
          stages: [{ format: "round_robin", format_options: { draws: true }, advance: { per_group: 2 } }, {
            format,
            format_options: { draws: true },
          }],
        }),
      });
      expectError(staged, 400, "validation_error", ["stages[1].format_options.draws"]);
    }
  });

  it("lets a match of a league with draws take an even best_of, and refuses it without draws", async () => {
    const withDraws = await league({ format: "round_robin", format_options: { draws: true } }, 2);
    const m = (await results(withDraws)).matches[0];
    const ok = await withDraws.call("PATCH", `/tournaments/${withDraws.id}/matches/${m.id}`, { body: { best_of: 2 } });
    expectStatus(ok, 200);
    expect(ok.body.data.best_of).toBe(2);
    const without = await league({ format: "round_robin" }, 2);
    const n = (await results(without)).matches[0];
    expectError(
      await without.call("PATCH", `/tournaments/${without.id}/matches/${n.id}`, { body: { best_of: 2 } }),
      400,
      "validation_error",
      [
        "best_of",
      ],
    );
  });
});

describe("defaults after a PATCH", () => {
  it("gives a swiss that takes draws in registration the points of a swiss with draws (3/1/0)", async () => {
    const call = caller(await tenant());
    const res = await create(call, "swiss");
    expectStatus(res, 201);
    expect(res.body.data.format_options.points).toEqual({ win: 1, draw: 0, loss: 0, forfeit_loss: 0 });
    const patched = await call("PATCH", `/tournaments/${res.body.data.id}`, { body: { format_options: { draws: true } } });
    expectStatus(patched, 200);
    expect(patched.body.data.format_options).toMatchObject({ draws: true, points: { win: 3, draw: 1, loss: 0, forfeit_loss: 0 } });
  });
});

describe("locking", () => {
  it("changes draws, points and tie_breakers in registration and refuses them once ongoing (409 tournament_locked)", async () => {
    const call = caller(await tenant());
    const res = await create(call, "round_robin");
    expectStatus(res, 201);
    const id = res.body.data.id;
    const options = { groups: 1, best_of: 2, draws: true, points: { win: 2, draw: 1, loss: 0 }, tie_breakers: ["wins", "head_to_head"] };
    const patched = await call("PATCH", `/tournaments/${id}`, { body: { format_options: options } });
    expectStatus(patched, 200);
    expect(patched.body.data.format_options).toEqual({ ...options, points: { win: 2, draw: 1, loss: 0, forfeit_loss: 0 } });

    const lg = await league({ format: "round_robin" }, 2);
    expectError(
      await lg.call("PATCH", `/tournaments/${lg.id}`, { body: { format_options: { draws: true } } }),
      409,
      "tournament_locked",
    );
  });
});
