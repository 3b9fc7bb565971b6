import { describe, expect, it } from "vitest";
import { createTournament, expectStatus, tenant } from "./helpers.ts";

describe("smoke", () => {
  it("creates and reads a tournament", async () => {
    const t = await tenant();
    const created = await createTournament(t);
    const res = await t.request("GET", `/tournaments/${created.id}`);
    expectStatus(res, 200);
    expect(res.body.data.id).toBe(created.id);
  });
});
