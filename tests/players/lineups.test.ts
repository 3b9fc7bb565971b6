// Players, rosters and lineups (contract section 16) through the real function: rosters copied
// into lineups, the caps, one player one team per tournament (and its race), required lineups at
// check-in and start, games' lineups, frozen team names, and privacy across accounts.
import { describe, expect, it } from "vitest";
import { caller, createTeams, expectError, expectStatus, sql, tenant, tournamentBody } from "../support/helpers.ts";
import type { Call } from "../support/helpers.ts";

async function player(call: Call, handle: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call("POST", "/players", { body: { handle, ...extra } });
  expectStatus(res, 201);
  return res.body.data.id;
}

async function team(call: Call, name: string): Promise<string> {
  const res = await call("POST", "/teams", { body: { name, tag: name.slice(0, 3).toUpperCase() } });
  expectStatus(res, 201);
  return res.body.data.id;
}

async function tournament(call: Call, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await call("POST", "/tournaments", { body: tournamentBody({ team_size: 2, max_teams: 8, ...fields }) });
  expectStatus(res, 201);
  return res.body.data.id;
}

describe("players", () => {
  it("creates, reads, lists, updates and deletes a player of the account only", async () => {
    const a = caller(await tenant());
    const b = caller(await tenant());
    const created = await a("POST", "/players", {
      body: { handle: "  frost ", name: "Erik Lind", country: "SE", external_id: "u-1", game_accounts: { steam: "765" } },
    });
    expectStatus(created, 201);
    const p = created.body.data;
    expect(created.headers.get("location")).toMatch(new RegExp(`/players/${p.id}$`));
    expect(p).toMatchObject({ handle: "frost", name: "Erik Lind", country: "SE", external_id: "u-1", game_accounts: { steam: "765" } });
    expect(Object.keys(p).sort()).toEqual(
      ["country", "created_at", "external_id", "game_accounts", "handle", "id", "name", "updated_at"],
    );
    expectError(await b("GET", `/players/${p.id}`), 404, "not_found");
    expect((await b("GET", "/players")).body.data).toEqual([]);
    expectError(await a("POST", "/players", { body: { handle: "other", external_id: "u-1" } }), 409, "external_id_taken");
    expectStatus(await b("POST", "/players", { body: { handle: "other", external_id: "u-1" } }), 201);
    const listed = await a("GET", "/players?search=ERIK");
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([p.id]);
    expect((await a("GET", "/players?external_id=u-1")).body.data).toHaveLength(1);
    const patched = await a("PATCH", `/players/${p.id}`, { body: { country: null, game_accounts: {} } });
    expectStatus(patched, 200);
    expect(patched.body.data).toMatchObject({ country: null, game_accounts: {} });
    expectError(await a("POST", "/players", { body: { handle: "x", country: "XX" } }), 400, "validation_error", ["country"]);
    expectError(await a("POST", "/players", { body: { handle: "x", game_accounts: { myspace: "1" } } }), 400, "validation_error");
    expectStatus(await a("DELETE", `/players/${p.id}`), 200);
    expectError(await a("GET", `/players/${p.id}`), 404, "not_found");
  });
});

describe("rosters and lineups", () => {
  it("copies the roster into a new registration's lineup within the caps, and enforces one team per tournament", async () => {
    const a = caller(await tenant());
    const [p1, p2, p3, p4, c1] = await Promise.all(["p1", "p2", "p3", "p4", "c1"].map((h) => player(a, h)));
    const teamA = await team(a, "Alpha");
    const teamB = await team(a, "Bravo");
    for (
      const [id, role, captain] of [[p1, "player", false], [p2, "player", true], [p3, "player", false], [p4, "substitute", false], [
        c1,
        "coach",
        false,
      ]] as const
    ) {
      expectStatus(await a("PUT", `/teams/${teamA}/players/${id}`, { body: { role, captain } }), 200);
    }
    const roster = await a("GET", `/teams/${teamA}/players`);
    expect(roster.body.data.map((m: { handle: string; captain: boolean }) => [m.handle, m.captain])).toEqual(
      [["p1", false], ["p2", true], ["p3", false], ["p4", false], ["c1", false]],
    );
    const tid = await tournament(a, { team_size: 2, substitutes_max: 0 });
    const reg = await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teamA } });
    expectStatus(reg, 201);
    expect(reg.body.data.lineup.map((e: { handle: string; role: string }) => `${e.handle}:${e.role}`)).toEqual(
      ["p1:player", "p2:player", "c1:coach"],
    );
    // Bravo's roster shares p1: registering it is refused, naming the player and the other registration.
    expectStatus(await a("PUT", `/teams/${teamB}/players/${p1}`, { body: { role: "player" } }), 200);
    const clash = await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teamB } });
    expectError(clash, 409, "player_already_registered");
    expect(clash.body.error.details[0]).toMatchObject({ player_id: p1, registration_id: reg.body.data.id });
    // The coach may coach both.
    expectStatus(await a("DELETE", `/teams/${teamB}/players/${p1}`), 200);
    expectStatus(await a("PUT", `/teams/${teamB}/players/${c1}`, { body: { role: "coach" } }), 200);
    const regB = await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teamB } });
    expectStatus(regB, 201);
    const path = `/tournaments/${tid}/registrations/${regB.body.data.id}/lineup`;
    expectError(
      await a("PUT", path, {
        body: { players: [{ player_id: p3, role: "player" }, { player_id: p4, role: "player" }, { player_id: p2, role: "player" }] },
      }),
      400,
      "validation_error",
      ["players[2]"],
    );
    const taken = await a("PUT", path, { body: { players: [{ player_id: p2, role: "player" }] } });
    expectError(taken, 409, "player_already_registered", ["players[0].player_id"]);
    const put = await a("PUT", path, {
      body: { players: [{ player_id: p3, role: "player", captain: true }, { player_id: c1, role: "coach" }] },
    });
    expectStatus(put, 200);
    expect(put.body.data.lineup).toEqual([
      { player_id: p3, handle: "p3", country: null, role: "player", captain: true },
      { player_id: c1, handle: "c1", country: null, role: "coach", captain: false },
    ]);
  });

  it("lets exactly one of many lineups racing for one player have them", async () => {
    const a = caller(await tenant());
    const star = await player(a, "star");
    const tid = await tournament(a, { team_size: 1 });
    const teams = await createTeams(8, "Race");
    const regs: string[] = [];
    for (const teamId of teams) {
      const r = await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: teamId } });
      expectStatus(r, 201);
      regs.push(r.body.data.id);
    }
    const results = await Promise.all(
      regs.map((r) =>
        a("PUT", `/tournaments/${tid}/registrations/${r}/lineup`, { body: { players: [{ player_id: star, role: "player" }] } })
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(7).fill(409)]);
    const rows = await sql(`select count(*)::int as n from app.lineup_entries where player_id = $1`, [star]);
    expect(rows[0].n).toBe(1);
  });

  it("needs full lineups to check in and to start when lineups are required, naming every short registration", async () => {
    const a = caller(await tenant());
    const tid = await tournament(a, { team_size: 2, lineups: "required" });
    const [t1, t2, t3] = await Promise.all(["One", "Two", "Three"].map((n) => team(a, n)));
    const ps = await Promise.all(["a", "b", "c", "d", "e", "f"].map((h) => player(a, h)));
    const regs: string[] = [];
    for (const t of [t1, t2, t3]) {
      const r = await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: t } });
      expectStatus(r, 201);
      regs.push(r.body.data.id);
    }
    await a("PUT", `/tournaments/${tid}/registrations/${regs[0]}/lineup`, {
      body: { players: [{ player_id: ps[0], role: "player" }, { player_id: ps[1], role: "player" }] },
    });
    await a("PUT", `/tournaments/${tid}/registrations/${regs[1]}/lineup`, { body: { players: [{ player_id: ps[2], role: "player" }] } });
    const start = await a("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing" } });
    expectError(start, 409, "lineup_incomplete");
    expect(start.body.error.details.map((d: { registration_id: string; players: number }) => [d.registration_id, d.players])).toEqual(
      [[regs[1], 1], [regs[2], 0]],
    );
    expect((await a("GET", `/tournaments/${tid}`)).body.data.status).toBe("registration");
    await a("PUT", `/tournaments/${tid}/registrations/${regs[1]}/lineup`, {
      body: { players: [{ player_id: ps[2], role: "player" }, { player_id: ps[3], role: "player" }] },
    });
    await a("PUT", `/tournaments/${tid}/registrations/${regs[2]}/lineup`, {
      body: { players: [{ player_id: ps[4], role: "player" }, { player_id: ps[5], role: "player" }] },
    });
    expectStatus(await a("PATCH", `/tournaments/${tid}`, { body: { status: "ongoing" } }), 200);
    expectError(
      await a("PUT", `/tournaments/${tid}/registrations/${regs[0]}/lineup`, { body: { players: [] } }),
      409,
      "tournament_locked",
    );
    expectError(await a("DELETE", `/players/${ps[0]}`), 409, "player_in_use");
  });

  it("refuses check-in with a short lineup", async () => {
    const a = caller(await tenant());
    const tid = await tournament(a, { team_size: 1, lineups: "required", check_in_opens: new Date(Date.now() + 86_400_000).toISOString() });
    await sql(`update app.tournaments set check_in_opens = now() - interval '1 minute' where id = $1`, [tid]); // check-in open now
    const [t1] = await createTeams(1, "Check");
    const r = await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: t1 } });
    expectError(
      await a("PATCH", `/tournaments/${tid}/registrations/${r.body.data.id}`, { body: { checked_in: true } }),
      409,
      "lineup_incomplete",
    );
    const p = await player(a, "solo");
    await a("PUT", `/tournaments/${tid}/registrations/${r.body.data.id}/lineup`, { body: { players: [{ player_id: p, role: "player" }] } });
    expectStatus(await a("PATCH", `/tournaments/${tid}/registrations/${r.body.data.id}`, { body: { checked_in: true } }), 200);
  });

  it("freezes a team's name at the start and raises only open tournaments' versions on a rename", async () => {
    const a = caller(await tenant());
    const mine = await team(a, "Original");
    const [other] = await createTeams(1, "Other");
    const started = await tournament(a);
    const open = await tournament(a);
    for (const tid of [started, open]) {
      expectStatus(await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: mine } }), 201);
      expectStatus(await a("POST", `/tournaments/${tid}/registrations`, { body: { team_id: other } }), 201);
    }
    expectStatus(await a("PATCH", `/tournaments/${started}`, { body: { status: "ongoing" } }), 200);
    const before = await Promise.all([started, open].map(async (t) => (await a("GET", `/tournaments/${t}`)).body.data.version));
    expectStatus(await a("PATCH", `/teams/${mine}`, { body: { name: "Renamed", tag: "NEW" } }), 200);
    const after = await Promise.all([started, open].map(async (t) => (await a("GET", `/tournaments/${t}`)).body.data.version));
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBeGreaterThan(before[1]);
    const names = async (t: string) =>
      (await a("GET", `/tournaments/${t}/registrations`)).body.data.map((r: { teams: { name: string; tag: string } }) =>
        `${r.teams.name}/${r.teams.tag}`
      );
    expect(await names(started)).toContain("Original/ORI");
    expect(await names(open)).toContain("Renamed/NEW");
    const results = await a("GET", `/tournaments/${started}/results`);
    expect(JSON.stringify(results.body.data)).not.toContain("Renamed");
  });
});
