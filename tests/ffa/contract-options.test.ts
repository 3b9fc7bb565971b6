// Free-for-all options (contract section 20, with 12 and 19), from the contract alone: defaults as
// GET shows them, each option's bounds (400 naming the field), the options that do not apply
// (best_of, draws: true, points), advance after an ffa stage, and the start's check of K.
import { describe, expect, it } from "vitest";
import { caller, createTeams, expectError, expectStatus, sql, tenant, tournamentBody } from "../support/helpers.ts";
import { expectInvalid, FFA_DEFAULTS } from "./contract-support.ts";

describe("ffa format_options", () => {
  it("GET shows every default when none is given, for the tournament and its stage", async () => {
    const call = caller(await tenant());
    const res = await call("POST", "/tournaments", { body: tournamentBody({ format: "ffa" }) });
    expectStatus(res, 201);
    expect(res.body.data.format).toBe("ffa");
    expect(res.body.data.format_options, res.text).toEqual(FFA_DEFAULTS);
    const got = await call("GET", `/tournaments/${res.body.data.id}`);
    expect(got.body.data.format_options, got.text).toEqual(FFA_DEFAULTS);
    const stages = await call("GET", `/tournaments/${res.body.data.id}/stages`);
    expectStatus(stages, 200);
    expect(stages.body.data[0].format, stages.text).toBe("ffa");
    expect(stages.body.data[0].format_options, stages.text).toEqual(FFA_DEFAULTS);
  });

  it("keeps every option given, fills the rest, and a PATCH in registration changes them", async () => {
    const call = caller(await tenant());
    const given = {
      lobby_size: 3,
      games: 20,
      rounds: 20,
      draw: "standings",
      placement_points: { "1": 1000, "2-3": 0, "4-100": 7 },
      kill_points: 100,
      tie_breakers: ["last_game", "best_placement", "kills", "first_places"],
    };
    const res = await call("POST", "/tournaments", { body: tournamentBody({ format: "ffa", format_options: given }) });
    expectStatus(res, 201);
    expect(res.body.data.format_options, res.text).toEqual(given);
    const partial = await call("POST", "/tournaments", {
      body: tournamentBody({ format: "ffa", format_options: { lobby_size: 100, kill_points: 0 } }),
    });
    expectStatus(partial, 201);
    expect(partial.body.data.format_options, partial.text).toEqual({ ...FFA_DEFAULTS, lobby_size: 100, kill_points: 0 });
    const patched = await call("PATCH", `/tournaments/${partial.body.data.id}`, { body: { format_options: { games: 3, draw: "seed" } } });
    expectStatus(patched, 200);
    expect(patched.body.data.format_options.games, patched.text).toBe(3);
  });

  it("switching a tournament's format to ffa by PATCH gives ffa's defaults, and back", async () => {
    const call = caller(await tenant());
    const res = await call("POST", "/tournaments", { body: tournamentBody({ format_options: { third_place_match: true } }) });
    expectStatus(res, 201);
    const path = `/tournaments/${res.body.data.id}`;
    const toFfa = await call("PATCH", path, { body: { format: "ffa" } });
    expectStatus(toFfa, 200);
    expect({ format: toFfa.body.data.format, format_options: toFfa.body.data.format_options }, toFfa.text).toEqual({
      format: "ffa",
      format_options: FFA_DEFAULTS,
    });
    const withOptions = await call("PATCH", path, { body: { format: "ffa", format_options: { lobby_size: 4 } } });
    expectStatus(withOptions, 200);
    expect(withOptions.body.data.format_options, withOptions.text).toEqual({ ...FFA_DEFAULTS, lobby_size: 4 });
    const back = await call("PATCH", path, { body: { format: "swiss" } });
    expectStatus(back, 200);
    expect(back.body.data.format_options.lobby_size, back.text).toBeUndefined();
  });

  it("refuses each option out of bounds with 400 naming it", async () => {
    const call = caller(await tenant());
    const cases: [Record<string, unknown>, string][] = [
      [{ lobby_size: 2 }, "format_options.lobby_size"],
      [{ lobby_size: 101 }, "format_options.lobby_size"],
      [{ lobby_size: 4.5 }, "format_options.lobby_size"],
      [{ lobby_size: "20" }, "format_options.lobby_size"],
      [{ games: 0 }, "format_options.games"],
      [{ games: 21 }, "format_options.games"],
      [{ rounds: 0 }, "format_options.rounds"],
      [{ rounds: 21 }, "format_options.rounds"],
      [{ draw: "random" }, "format_options.draw"],
      [{ draw: null }, "format_options.draw"],
      [{ placement_points: { "0": 5 } }, "format_options.placement_points"],
      [{ placement_points: { "1": 1001 } }, "format_options.placement_points"],
      [{ placement_points: { "1": -1 } }, "format_options.placement_points"],
      [{ placement_points: { "1": 2.5 } }, "format_options.placement_points"],
      [{ placement_points: { "first": 5 } }, "format_options.placement_points"],
      [{ placement_points: { "3-2": 5 } }, "format_options.placement_points"],
      [{ placement_points: { "1-3": 5, "3-4": 2 } }, "format_options.placement_points"],
      [{ placement_points: { "2": 5, "1-4": 2 } }, "format_options.placement_points"],
      [{ placement_points: [10, 6] }, "format_options.placement_points"],
      [{ kill_points: -1 }, "format_options.kill_points"],
      [{ kill_points: 101 }, "format_options.kill_points"],
      [{ kill_points: 0.5 }, "format_options.kill_points"],
      [{ tie_breakers: ["wins"] }, "format_options.tie_breakers"],
      [{ tie_breakers: ["buchholz"] }, "format_options.tie_breakers"],
      [{ tie_breakers: ["kills", "kills"] }, "format_options.tie_breakers"],
      [{ tie_breakers: [] }, "format_options.tie_breakers"],
      [{ bogus: 1 }, "format_options"],
    ];
    for (const [options, field] of cases) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ format: "ffa", format_options: options }) });
      expectInvalid(res, [field], JSON.stringify(options));
    }
  });

  it("refuses best_of, final_best_of, draws: true and points (they do not apply to lobbies)", async () => {
    const call = caller(await tenant());
    const cases: [Record<string, unknown>, string][] = [
      [{ best_of: 3 }, "format_options.best_of"],
      [{ best_of: 1 }, "format_options.best_of"],
      [{ final_best_of: 1 }, "format_options"],
      [{ draws: true }, "format_options.draws"],
      [{ points: { win: 3, loss: 0 } }, "format_options.points"],
      [{ groups: 2 }, "format_options"],
    ];
    for (const [options, field] of cases) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ format: "ffa", format_options: options }) });
      expectInvalid(res, [field], JSON.stringify(options));
    }
    // The same for an ffa stage.
    const staged = await call("POST", "/tournaments", {
      body: tournamentBody({ stages: [{ format: "ffa", format_options: { best_of: 3 } }] }),
    });
    expectInvalid(staged, ["stages[0].format_options"], "stage best_of");
  });

  it("takes advance {top} or {per_lobby} after an ffa stage and refuses other shapes", async () => {
    const call = caller(await tenant());
    const se = { format: "single_elimination" };
    for (const advance of [{ top: 4 }, { per_lobby: 2 }]) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ stages: [{ format: "ffa", advance }, se] }) });
      expectStatus(res, 201);
      const stages = await call("GET", `/tournaments/${res.body.data.id}/stages`);
      expect(stages.body.data[0].advance, stages.text).toEqual(advance);
    }
    for (const advance of [{ per_group: 2 }, { top: 1 }, { per_lobby: 0 }, { top: 4, per_lobby: 2 }, {}]) {
      const res = await call("POST", "/tournaments", { body: tournamentBody({ stages: [{ format: "ffa", advance }, se] }) });
      expectInvalid(res, ["stages[0].advance"], JSON.stringify(advance));
    }
    // per_lobby belongs to ffa: after swiss it is refused.
    const swiss = await call("POST", "/tournaments", {
      body: tournamentBody({ stages: [{ format: "swiss", advance: { per_lobby: 2 } }, se] }),
    });
    expectInvalid(swiss, ["stages[0].advance"], "per_lobby after swiss");
    // K must leave the next stage playable (section 12): 3 teams cannot play 3 swiss rounds, nor
    // make 2 round robin groups of 2.
    const swiss3 = await call("POST", "/tournaments", {
      body: tournamentBody({ stages: [{ format: "ffa", advance: { top: 3 } }, { format: "swiss", format_options: { rounds: 3 } }] }),
    });
    expectInvalid(swiss3, ["stages[0].advance", "stages[1].format_options"], "top 3 into 3 swiss rounds");
    const groups = await call("POST", "/tournaments", {
      body: tournamentBody({ stages: [{ format: "ffa", advance: { top: 3 } }, { format: "round_robin", format_options: { groups: 2 } }] }),
    });
    expectInvalid(groups, ["stages[0].advance", "stages[1].format_options"], "top 3 into 2 groups");
    // The last stage takes no advance.
    const last = await call("POST", "/tournaments", { body: tournamentBody({ stages: [{ format: "ffa", advance: { top: 2 } }] }) });
    expectInvalid(last, ["stages[0].advance"], "advance on the last stage");
  });

  it("refuses the start with 409 invalid_status_transition when {top: n} exceeds the teams an ffa stage has", async () => {
    const t = await tenant();
    const call = caller(t);
    const teams = await createTeams(5, `Ffo${crypto.randomUUID().slice(0, 6)}`);
    const res = await call("POST", "/tournaments", {
      body: tournamentBody({ max_teams: 8, stages: [{ format: "ffa", advance: { top: 6 } }, { format: "single_elimination" }] }),
    });
    expectStatus(res, 201);
    const id = res.body.data.id;
    await sql(
      `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
       select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
      [id, t.accountId, teams],
    );
    expectError(await call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 409, "invalid_status_transition");
    const after = await call("GET", `/tournaments/${id}`);
    expect(after.body.data.status).toBe("registration");
  });

  it("refuses the start when {per_lobby: n} asks more than a lobby holds (409 invalid_status_transition)", async () => {
    // 6 teams in lobbies of 3 cannot give 4 per lobby.
    const t = await tenant();
    const call = caller(t);
    const teams = await createTeams(6, `Ffp${crypto.randomUUID().slice(0, 6)}`);
    const res = await call("POST", "/tournaments", {
      body: tournamentBody({
        max_teams: 8,
        stages: [{ format: "ffa", format_options: { lobby_size: 3 }, advance: { per_lobby: 4 } }, { format: "single_elimination" }],
      }),
    });
    expectStatus(res, 201);
    const id = res.body.data.id;
    await sql(
      `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
       select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
      [id, t.accountId, teams],
    );
    expectError(await call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 409, "invalid_status_transition");
    expect((await call("GET", `/tournaments/${id}`)).body.data.status).toBe("registration");
  });

  it("locks format_options once the tournament is ongoing", async () => {
    const t = await tenant();
    const call = caller(t);
    const teams = await createTeams(3, `Ffl${crypto.randomUUID().slice(0, 6)}`);
    const res = await call("POST", "/tournaments", { body: tournamentBody({ format: "ffa", max_teams: 4 }) });
    expectStatus(res, 201);
    const id = res.body.data.id;
    for (const team_id of teams) expectStatus(await call("POST", `/tournaments/${id}/registrations`, { body: { team_id } }), 201);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 200);
    expectError(await call("PATCH", `/tournaments/${id}`, { body: { format_options: { games: 2 } } }), 409, "tournament_locked");
  });
});
