// Sign-up and registration states (contract section 17): a sign-up token creates the team, its
// players and the registration in one transaction, under section 4's checks and section 16's
// lineup rules; approval and the waitlist; the oldest waitlisted registration takes every slot
// that frees, exact under concurrency; the participant's own lineup, check-in and withdrawal.
import { describe, expect, it } from "vitest";
import { createTeams, expectError, expectStatus, request, sql, tenant, tournamentBody } from "../support/helpers.ts";

type Tenant = Awaited<ReturnType<typeof tenant>>;

async function tournamentWithSignup(t: Tenant, fields: Record<string, unknown> = {}, maxUses: number | null = null) {
  const tour = (await t.request("POST", "/tournaments", { body: tournamentBody(fields) })).body.data;
  const minted = await t.request("POST", `/tournaments/${tour.id}/signup-tokens`, { body: { max_uses: maxUses } });
  expectStatus(minted, 201);
  return { tour, signup: minted.body.data.token as string, signupId: minted.body.data.id as string };
}

const signUp = (token: string, name: string, lineup?: unknown[], headers?: Record<string, string>) =>
  request("POST", "/participant/registrations", {
    key: token,
    body: { team: { name, tag: name.slice(0, 4) }, ...(lineup ? { lineup } : {}) },
    headers,
  });

const states = async (t: Tenant, tid: string) =>
  (await t.request("GET", `/tournaments/${tid}/registrations`)).body.data.map((r: { teams: { name: string }; state: string }) =>
    `${r.teams.name}:${r.state}`
  );

describe("sign-up", () => {
  it("creates the team (the tournament's account's), its players and roster, the registration with its lineup, and a working token", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { team_size: 2, substitutes_max: 1 });
    const res = await signUp(signup, "Aurora", [
      { handle: "frost", country: "SE", external_id: "discord:1", role: "player", captain: true },
      { handle: "blaze", role: "player" },
      { handle: "echo", role: "substitute" },
    ]);
    expectStatus(res, 201);
    expect(res.headers.get("location")).toMatch(/\/api\/v1\/participant$/);
    const { registration, token } = res.body.data;
    expect(registration.state).toBe("accepted");
    expect(registration.lineup.map((e: { handle: string; role: string; captain: boolean }) => [e.handle, e.role, e.captain]))
      .toEqual([["frost", "player", true], ["blaze", "player", false], ["echo", "substitute", false]]);
    expect(token).toMatchObject({ kind: "registration", registration_id: registration.id, tournament_id: tour.id });
    expect(token.scopes).toEqual(["participant:check_in", "participant:lineup", "participant:report", "participant:withdraw"]);

    const team = await t.request("GET", `/teams/${registration.team_id}`);
    expect(team.body.data).toMatchObject({ name: "Aurora", owned: true });
    const roster = await t.request("GET", `/teams/${registration.team_id}/players`);
    expect(roster.body.data.map((m: { handle: string }) => m.handle)).toEqual(["frost", "blaze", "echo"]);
    const players = await t.request("GET", "/players?external_id=discord:1");
    expect(players.body.data.map((p: { id: string }) => p.id)).toEqual([registration.lineup[0].player_id]);

    const me = await request("GET", "/participant", { key: token.token });
    expectStatus(me, 200);
    expect(me.body.data.registration).toEqual(registration);
    expect(me.body.data.tournament.id).toBe(tour.id);
    expect(me.body.data.token).toEqual({ id: token.id, name: token.name, scopes: token.scopes, expires_at: null });
  });

  it("an external_id the account knows is that player, its handle updated (its open lineups follow)", async () => {
    const t = await tenant();
    const known = await t.request("POST", "/players", { body: { handle: "old-name", external_id: "site:42", country: "NO" } });
    expectStatus(known, 201);
    const { signup } = await tournamentWithSignup(t);
    const res = await signUp(signup, "Borealis", [{ handle: "new-name", external_id: "site:42", role: "player" }]);
    expectStatus(res, 201);
    expect(res.body.data.registration.lineup[0]).toMatchObject({ player_id: known.body.data.id, handle: "new-name", country: "NO" });
    const player = await t.request("GET", `/players/${known.body.data.id}`);
    expect(player.body.data).toMatchObject({ handle: "new-name", external_id: "site:42" });
  });

  it("refuses a lineup past the caps (400 naming the entry) and one player twice in a tournament (409), leaving nothing behind", async () => {
    const t = await tenant();
    const { tour, signup, signupId } = await tournamentWithSignup(t, { team_size: 1 });
    const teamsBefore = (await sql<{ n: number }>("select count(*)::int as n from app.teams where account_id = $1", [t.accountId]))[0].n;
    expectError(
      await signUp(signup, "Capped", [{ handle: "a", role: "player" }, { handle: "b", role: "player" }]),
      400,
      "validation_error",
      ["lineup[1]"],
    );
    expectError(
      await signUp(signup, "Twice", [{ handle: "a", external_id: "x", role: "player" }, { handle: "b", external_id: "x", role: "coach" }]),
      400,
      "validation_error",
      ["lineup[1].external_id"],
    );
    expectStatus(await signUp(signup, "First", [{ handle: "ace", external_id: "ace", role: "player" }]), 201);
    const taken = await signUp(signup, "Second", [{ handle: "ace", external_id: "ace", role: "player" }]);
    expectError(taken, 409, "player_already_registered");
    const teamsAfter = (await sql<{ n: number }>("select count(*)::int as n from app.teams where account_id = $1", [t.accountId]))[0].n;
    expect(teamsAfter).toBe(teamsBefore + 1);
    expect(await states(t, tour.id)).toEqual(["First:accepted"]);
    const list = (await t.request("GET", `/tournaments/${tour.id}/tokens`)).body.data;
    expect(list.find((k: { id: string }) => k.id === signupId).uses).toBe(1); // failed sign-ups gave their use back
  });

  it("a sign-up token past max_uses is 409 token_exhausted; a closed tournament is 409 registration_closed", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, {}, 2);
    expectStatus(await signUp(signup, "One"), 201);
    expectStatus(await signUp(signup, "Two"), 201);
    expectError(await signUp(signup, "Three"), 409, "token_exhausted");
    const other = await tournamentWithSignup(t, { registration_closes: new Date(Date.now() + 1200).toISOString() });
    await new Promise((r) => setTimeout(r, 1300));
    expectError(await signUp(other.signup, "Late"), 409, "registration_closed");
    expect(await states(t, tour.id)).toEqual(["One:accepted", "Two:accepted"]);
  });

  it("replays a sign-up with its Idempotency-Key: the same registration, and a fresh token since no secret is kept", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t);
    const headers = { "idempotency-key": "signup-1" };
    const first = await signUp(signup, "Retry", undefined, headers);
    const again = await signUp(signup, "Retry", undefined, headers);
    expectStatus(first, 201);
    expectStatus(again, 201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.registration).toEqual(first.body.data.registration);
    expect(again.body.data.token.token).not.toBe(first.body.data.token.token);
    expectStatus(await request("GET", "/participant", { key: again.body.data.token.token }), 200);
    expectStatus(await request("GET", "/participant", { key: first.body.data.token.token }), 200);
    expect(await states(t, tour.id)).toEqual(["Retry:accepted"]);
    const kept = await sql<{ result: string }>("select result::text from app.idempotency_keys where idempotency_key = 'signup-1'");
    expect(kept[0].result).not.toContain(first.body.data.token.token);
  });
});

describe("states: approval and waitlist", () => {
  it("with approval, sign-ups are pending; the organiser accepts into free slots (else 409 tournament_full) or refuses", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { max_teams: 2, approval: true });
    const made = [];
    for (const name of ["P1", "P2", "P3"]) made.push((await signUp(signup, name)).body.data.registration);
    expect(made.map((r) => r.state)).toEqual(["pending", "pending", "pending"]);
    const [team] = await createTeams(1, "Organiser");
    const direct = await t.request("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: team } });
    expect(direct.body.data.state).toBe("accepted"); // the organiser's own are accepted
    const patch = (id: string, state: string) => t.request("PATCH", `/tournaments/${tour.id}/registrations/${id}`, { body: { state } });
    expectStatus(await patch(made[0].id, "accepted"), 200);
    expectError(await patch(made[1].id, "accepted"), 409, "tournament_full");
    expectStatus(await patch(made[2].id, "refused"), 200);
    const pending = await t.request("GET", `/tournaments/${tour.id}/registrations?state=pending`);
    expect(pending.body.data.map((r: { id: string }) => r.id)).toEqual([made[1].id]);
    expectError(await t.request("GET", `/tournaments/${tour.id}/registrations?state=lost`), 400, "validation_error", ["state"]);
    expectError(await patch(made[1].id, "waitlisted"), 400, "validation_error", ["state"]);
    // only accepted registrations take part at the start
    expectStatus(await t.request("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    const results = await t.request("GET", `/tournaments/${tour.id}/results`);
    const playing = results.body.data.matches.flatMap((m: { team1_id: string; team2_id: string }) => [m.team1_id, m.team2_id]);
    expect(new Set(playing)).toEqual(new Set([team, made[0].team_id]));
    expectError(await patch(made[1].id, "accepted"), 409, "tournament_locked");
  });

  it("N parallel sign-ups for the last slots: exactly as many accepted as slots, the rest waitlisted in registration order", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { max_teams: 5, waitlist: true });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => signUp(signup, `Rush ${String(i).padStart(2, "0")}`)));
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(201));
    const list = (await t.request("GET", `/tournaments/${tour.id}/registrations`)).body.data as { state: string }[];
    expect(list.map((r) => r.state)).toEqual([...Array(5).fill("accepted"), ...Array(11).fill("waitlisted")]);
  });

  // A sign-up writes its team and players before the tournament's lock (issue 39), one naming a
  // player by external_id after it: neither order may deadlock (a 503) against the organiser's
  // lineup PUT and player PATCH, which take the tournament first, nor let a player into two lineups.
  it("sign-ups by handle and by external_id racing a lineup PUT and a player PATCH: no 5xx, slots exact, one lineup a player", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { max_teams: 6, waitlist: true, team_size: 2 });
    const held = (await t.request("POST", "/players", { body: { handle: "held", external_id: "race:held" } })).body.data;
    const mate = (await t.request("POST", "/players", { body: { handle: "mate" } })).body.data;
    const [teamId] = await createTeams(1, "Race");
    const reg = await t.request("POST", `/tournaments/${tour.id}/registrations`, { body: { team_id: teamId } });
    expectStatus(reg, 201);
    const lineup = (captain: string) => ({
      players: [held, mate].map((p) => ({ player_id: p.id, role: "player", captain: p.id === captain })),
    });
    const path = `/tournaments/${tour.id}/registrations/${reg.body.data.id}/lineup`;
    expectStatus(await t.request("PUT", path, { body: lineup(held.id) }), 200);

    const plain = Array.from({ length: 8 }, (_, i) => signUp(signup, `Plain ${i}`, [{ handle: `p${i}`, role: "player" }]));
    const taken = Array.from(
      { length: 3 },
      (_, i) => signUp(signup, `Taken ${i}`, [{ handle: `h${i}`, external_id: "race:held", role: "player" }]),
    );
    const fresh = Array.from(
      { length: 2 },
      (_, i) => signUp(signup, `Fresh ${i}`, [{ handle: `f${i}`, external_id: "race:fresh", role: "player" }]),
    );
    const organiser = [
      ...[mate.id, held.id, mate.id].map((c) => t.request("PUT", path, { body: lineup(c) })),
      ...["held-2", "held-3"].map((handle) => t.request("PATCH", `/players/${held.id}`, { body: { handle } })),
    ];
    const [p, k, f, o] = await Promise.all([plain, taken, fresh, organiser].map((xs) => Promise.all(xs)));
    expect(p.map((a) => a.status)).toEqual(Array(8).fill(201));
    for (const a of k) expectError(a, 409, "player_already_registered");
    expect(f.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(o.map((a) => a.status)).toEqual(Array(5).fill(200));

    const list = (await t.request("GET", `/tournaments/${tour.id}/registrations`)).body.data as {
      state: string;
      lineup: { player_id: string }[];
    }[];
    expect(list.map((r) => r.state)).toEqual([...Array(6).fill("accepted"), ...Array(4).fill("waitlisted")]);
    const players = list.flatMap((r) => r.lineup.map((e) => e.player_id));
    expect(new Set(players).size).toBe(players.length);
    expect(list[0].lineup.map((e) => e.player_id)).toEqual([held.id, mate.id]);
  });

  it("every freed slot goes to the oldest waitlisted registration, at once and under concurrency", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { max_teams: 3, waitlist: true });
    const regs: { registration: { id: string; team_id: string }; token: { token: string } }[] = [];
    for (let i = 0; i < 9; i++) regs.push((await signUp(signup, `W${i}`)).body.data);
    const state = () => states(t, tour.id);
    expect(await state()).toEqual(["W0:accepted", "W1:accepted", "W2:accepted", ...[3, 4, 5, 6, 7, 8].map((i) => `W${i}:waitlisted`)]);
    // two withdrawals at once (a participant's and the organiser's): W3 and W4 take the slots
    const [a, b] = await Promise.all([
      request("DELETE", "/participant/registration", { key: regs[0].token.token }),
      t.request("DELETE", `/tournaments/${tour.id}/registrations/${regs[1].registration.id}`),
    ]);
    expectStatus(a, 200);
    expectStatus(b, 200);
    expect(await state()).toEqual(["W2:accepted", "W3:accepted", "W4:accepted", ...[5, 6, 7, 8].map((i) => `W${i}:waitlisted`)]);
    // a refusal, and a waitlisted team refused (which frees nothing)
    await t.request("PATCH", `/tournaments/${tour.id}/registrations/${regs[2].registration.id}`, { body: { state: "refused" } });
    await t.request("PATCH", `/tournaments/${tour.id}/registrations/${regs[6].registration.id}`, { body: { state: "refused" } });
    expect(await state()).toEqual([
      "W2:refused",
      "W3:accepted",
      "W4:accepted",
      "W5:accepted",
      "W6:refused",
      "W7:waitlisted",
      "W8:waitlisted",
    ]);
    // max_teams raised by two; then the team of W3 deleted by its owner (the tournament's account)
    expectStatus(await t.request("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 4 } }), 200);
    expectStatus(await t.request("DELETE", `/teams/${regs[3].registration.team_id}`), 200);
    expect(await state()).toEqual(["W2:refused", "W4:accepted", "W5:accepted", "W6:refused", "W7:accepted", "W8:accepted"]);
    expectError(await t.request("PATCH", `/tournaments/${tour.id}`, { body: { max_teams: 3 } }), 409, "tournament_full");
  });
});

describe("the participant's own registration", () => {
  it("lineup by player_id (of the lineup or roster only) or by handle; check-in; withdrawal", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { team_size: 2, check_in_opens: new Date(Date.now() + 60_000).toISOString() });
    const made = (await signUp(signup, "Lineup", [{ handle: "one", role: "player" }])).body.data;
    const key = made.token.token;
    const stranger = (await t.request("POST", "/players", { body: { handle: "stranger" } })).body.data;
    expectError(
      await request("PUT", "/participant/lineup", { key, body: { players: [{ player_id: stranger.id, role: "player" }] } }),
      400,
      "validation_error",
      ["players[0].player_id"],
    );
    const put = await request("PUT", "/participant/lineup", {
      key,
      body: {
        players: [{ player_id: made.registration.lineup[0].player_id, role: "player" }, { handle: "two", role: "player", captain: true }],
      },
    });
    expectStatus(put, 200);
    expect(put.body.data.lineup.map((e: { handle: string; captain: boolean }) => [e.handle, e.captain])).toEqual([
      ["one", false],
      ["two", true],
    ]);
    expectError(await request("PATCH", "/participant/registration", { key, body: { checked_in: true } }), 409, "check_in_closed");
    expectError(await request("PATCH", "/participant/registration", { key, body: { seed: 1 } }), 400, "validation_error");
    expectStatus(await request("DELETE", "/participant/registration", { key }), 200);
    expect(await states(t, tour.id)).toEqual([]);
    expectError(await request("GET", "/participant", { key }), 401, "unauthorized");
  });

  it("two tokens of one registration checking in and withdrawing at once: no 5xx, and a consistent end", async () => {
    for (let round = 0; round < 8; round++) {
      const t = await tenant();
      const { tour, signup } = await tournamentWithSignup(t);
      const made = (await signUp(signup, `Race ${round}`)).body.data;
      const second = (await t.request("POST", `/tournaments/${tour.id}/registrations/${made.registration.id}/tokens`, { body: {} }))
        .body.data.token;
      const [checkIn, withdraw] = await Promise.all([
        request("PATCH", "/participant/registration", { key: made.token.token, body: { checked_in: true } }),
        request("DELETE", "/participant/registration", { key: second }),
      ]);
      expectStatus(withdraw, 200);
      expect([200, 401, 404]).toContain(checkIn.status);
      expect(await states(t, tour.id)).toEqual([]);
    }
  });

  it("a sign-up token revoked while its sign-ups (with Idempotency-Keys) run: each is 201 or 401, never 5xx, and uses match", async () => {
    const t = await tenant();
    const { tour, signup, signupId } = await tournamentWithSignup(t, { max_teams: 32 });
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => signUp(signup, `Revoked ${i}`, undefined, { "idempotency-key": `r-${i}` })),
      t.request("DELETE", `/tournaments/${tour.id}/tokens/${signupId}`),
      ...Array.from({ length: 8 }, (_, i) => signUp(signup, `Revoked ${i + 8}`, undefined, { "idempotency-key": `r-${i + 8}` })),
    ]);
    const statuses = answers.map((a) => a.status);
    expect(statuses[8]).toBe(200);
    for (const s of [...statuses.slice(0, 8), ...statuses.slice(9)]) expect([201, 401]).toContain(s);
    const created = statuses.filter((s) => s === 201).length;
    expect((await states(t, tour.id)).length).toBe(created);
  });

  it("GET /participant/matches: the registration's matches once started, [] for a sign-up token", async () => {
    const t = await tenant();
    const { tour, signup } = await tournamentWithSignup(t, { max_teams: 4 });
    const made = [];
    for (const n of ["M1", "M2", "M3", "M4"]) made.push((await signUp(signup, n)).body.data);
    expect((await request("GET", "/participant/matches", { key: made[0].token.token })).body.data).toEqual([]);
    expectStatus(await t.request("PATCH", `/tournaments/${tour.id}`, { body: { status: "ongoing" } }), 200);
    const mine = await request("GET", "/participant/matches", { key: made[0].token.token });
    expectStatus(mine, 200);
    expect(mine.headers.get("etag")).toMatch(/^"\d+"$/);
    const all = (await t.request("GET", `/tournaments/${tour.id}/results`)).body.data.matches;
    const team = made[0].registration.team_id;
    expect(mine.body.data).toEqual(all.filter((m: { team1_id: string; team2_id: string }) => m.team1_id === team || m.team2_id === team));
    expect(mine.body.data.length).toBeGreaterThan(0);
    expect((await request("GET", "/participant/matches", { key: signup })).body.data).toEqual([]);
  });
});
