// The contract's constants are defined once (functions/api/contract.ts) for the API; where SQL
// needs the same values it has them too, and these tests fail when the two drift apart.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS, EVENT_TYPES, FORMATS, PAGE_SIZE, PARTICIPANT_SCOPES, RATE_LIMIT, SCOPES } from "../../functions/api/contract.ts";
import { routes } from "../../functions/api/routes.ts";
import { expectError, expectStatus, sql, tenant } from "../support/helpers.ts";

const MIGRATIONS = path.join(import.meta.dirname, "..", "..", "supabase", "migrations");
const migrations = fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith(".sql"))
  .map((f) => fs.readFileSync(path.join(MIGRATIONS, f), "utf8")).join("\n");

/** Codes that only the self-service RPC raises (SQL callers, not HTTP): documented in the README. */
const RPC_HINTS = ["not_a_member", "invalid_name", "invalid_scopes", "invalid_expiry", "key_not_found"];

describe("one source of truth", () => {
  it("SQL's scopes (app.scopes() and app.participant_scopes(), behind the app.scope type) are the API's scopes", async () => {
    const [row] = await sql<{ scopes: string[]; participant: string[] }>(
      "select app.scopes() as scopes, app.participant_scopes() as participant",
    );
    expect(row.scopes).toEqual([...SCOPES]);
    expect(row.participant).toEqual([...PARTICIPANT_SCOPES]);
    expect(new Set(routes.filter((r) => !r.participant).map((r) => r.scope).filter((s) => s !== null))).toEqual(new Set(SCOPES));
    expect(new Set(routes.filter((r) => r.participant).map((r) => r.scope).filter((s) => s !== null)))
      .toEqual(new Set(PARTICIPANT_SCOPES));
  });

  it("SQL's formats (app.formats(), behind the tournaments' check) are the API's formats", async () => {
    const [row] = await sql<{ formats: string[] }>("select app.formats() as formats");
    expect(row.formats).toEqual([...FORMATS]);
  });

  it("SQL's webhook event types (app.webhook_event_types()) are the API's, and the document describes each", async () => {
    const [row] = await sql<{ types: string[] }>("select app.webhook_event_types() as types");
    expect(row.types).toEqual([...EVENT_TYPES]);
    const { openApiDocument } = await import("../../functions/api/openapi/document.ts");
    expect(Object.keys(openApiDocument().webhooks as object).sort()).toEqual([...EVENT_TYPES, "webhook.test"].sort());
  });

  it("every error code SQL raises for the API is one of the contract's codes", () => {
    const raised = new Set([...migrations.matchAll(/raise_error\(\s*'(\w+)'/g), ...migrations.matchAll(/hint\s*=\s*'(\w+)'/g)]
      .map((m) => m[1]));
    expect(raised.size).toBeGreaterThan(5);
    const unknown = [...raised].filter((c) => !(c in ERROR_STATUS) && !RPC_HINTS.includes(c));
    expect(unknown).toEqual([]);
  });

  it("the page size and the rate limit answer as contract.ts says", async () => {
    const t = await tenant();
    const max = await t.request("GET", `/tournaments?limit=${PAGE_SIZE.max}`);
    expectStatus(max, 200);
    expect(max.headers.get("ratelimit-limit")).toBe(String(RATE_LIMIT.limit));
    expect(max.headers.get("ratelimit-policy")).toBe(`"default";q=${RATE_LIMIT.limit};w=${RATE_LIMIT.window}`);
    expectError(await t.request("GET", `/tournaments?limit=${PAGE_SIZE.max + 1}`), 400, "validation_error", ["limit"]);
    const byDefault = await t.request("GET", "/tournaments");
    expect(byDefault.body.pagination.limit).toBe(PAGE_SIZE.default);
    const [ring] = await sql<{ slots: number }>(
      `select cardinality(slots) as slots from app.rate_limits where api_key_id = $1`,
      [t.keyId],
    );
    expect(ring.slots).toBe(RATE_LIMIT.limit);
  });
});
