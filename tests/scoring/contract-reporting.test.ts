// Participants' reports (contract section 18) of a draw under contract section 19, from the
// contract alone: a confirmed 1–1 report applies exactly as the organiser's PATCH would (a draw
// on a league with draws), a whole best-of-2 series of games reported level is a draw, and equal
// scores are refused without draws as the organiser's would be.
import { describe, expect, it } from "vitest";
import { expectError, expectStatus, type Match, request } from "../support/helpers.ts";
import { expectDrawn, type League, league, results, rrRows } from "./contract-support.ts";

/** Registration tokens of the league's teams (default scopes), by letter. */
async function tokens(lg: League): Promise<Map<string, string>> {
  const regs = await lg.call("GET", `/tournaments/${lg.id}/registrations`);
  expectStatus(regs, 200);
  const out = new Map<string, string>();
  for (const reg of regs.body.data as { id: string; team_id: string }[]) {
    const minted = await lg.call("POST", `/tournaments/${lg.id}/registrations/${reg.id}/tokens`, { body: {} });
    expectStatus(minted, 201);
    out.set(lg.letter(reg.team_id), minted.body.data.token);
  }
  return out;
}

const reportAs = (token: string, m: Match, body: unknown) => request("POST", `/participant/matches/${m.id}/report`, { key: token, body });
const confirmAs = (token: string, m: Match) => request("POST", `/participant/matches/${m.id}/report/confirm`, { key: token });

describe("participants report draws", () => {
  it("applies a confirmed 1–1 as a draw", async () => {
    const lg = await league({ format: "round_robin", format_options: { draws: true }, participant_reporting: "confirm" }, 2);
    const tk = await tokens(lg);
    const m = (await results(lg)).matches[0];
    const reported = await reportAs(tk.get("A")!, m, { team1_score: 1, team2_score: 1 });
    expectStatus(reported, 200);
    expect(reported.body.data).toMatchObject({ status: "ready", draw: false });
    const confirmed = await confirmAs(tk.get("B")!, m);
    expectStatus(confirmed, 200);
    expectDrawn(confirmed.body.data, confirmed.text);
    expect(confirmed.body.data.report.state).toBe("confirmed");
    expect(rrRows(lg, (await results(lg)).standings)).toEqual([["A", 1, 0, 1, 0, 1, null], ["B", 2, 0, 1, 0, 1, "seed"]]);
  });

  it("applies a confirmed best-of-2 series reported 1–1 by games as a draw", async () => {
    const lg = await league({ format: "round_robin", format_options: { draws: true, best_of: 2 }, participant_reporting: "confirm" }, 2);
    const tk = await tokens(lg);
    const m = (await results(lg)).matches[0];
    const games = [{ team1_score: 2, team2_score: 0 }, { team1_score: 0, team2_score: 2 }];
    expectStatus(await reportAs(tk.get("B")!, m, { games }), 200);
    const confirmed = await confirmAs(tk.get("A")!, m);
    expectStatus(confirmed, 200);
    expectDrawn(confirmed.body.data, confirmed.text);
    expect([confirmed.body.data.team1_score, confirmed.body.data.team2_score, confirmed.body.data.games.length]).toEqual([1, 1, 2]);
  });

  it("refuses a participant's equal scores without draws (400), as the organiser's", async () => {
    const lg = await league({ format: "round_robin", participant_reporting: "confirm" }, 2);
    const tk = await tokens(lg);
    const m = (await results(lg)).matches[0];
    expectError(await reportAs(tk.get("A")!, m, { team1_score: 1, team2_score: 1 }), 400, "validation_error");
  });
});
