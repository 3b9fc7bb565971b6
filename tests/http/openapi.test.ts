// deno-lint-ignore-file no-explicit-any -- the OpenAPI document is walked as plain JSON
// The OpenAPI 3.1 document: generated from the zod schemas, kept in the repo, valid, complete,
// and served without a key together with the reference page.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { Validator } from "@seriousme/openapi-schema-validator";
import { openApiDocument } from "../../functions/api/openapi/document.ts";
import { routes } from "../../functions/api/routes.ts";
import { DeleteResult } from "../../functions/api/resources/models/common.ts";
import { Tournament } from "../../functions/api/resources/models/tournaments.ts";
import { Registration } from "../../functions/api/resources/models/registrations.ts";
import { Match, Results } from "../../functions/api/resources/models/matches.ts";
import { apiUrl, expectStatus, request } from "../support/helpers.ts";

const doc = openApiDocument() as any;
const committed = JSON.parse(fs.readFileSync(new URL("../../openapi.json", import.meta.url), "utf8"));

describe("the OpenAPI document", () => {
  it("matches the committed openapi.json (run `npm run openapi` after changing a schema)", () => {
    expect(committed).toEqual(doc);
  });

  it("passes the OpenAPI 3.1 schema validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("documents every route with its scope, parameters, body and responses", () => {
    for (const route of routes) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.path}`).toBeTruthy();
      expect(op.security).toEqual([{ [route.participant ? "participantToken" : "apiKey"]: route.scope ? [route.scope] : [] }]);
      expect(op["x-required-scope"]).toBe(route.scope ?? undefined);
      expect(op.description).toContain(route.scope ?? (route.participant ? "Any valid participant token" : "Any valid key"));
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect(op.parameters?.filter((p: any) => p.in === "path").map((p: any) => p.name) ?? []).toEqual(pathParams);
      expect(Boolean(op.requestBody)).toBe(Boolean(route.body));
      const statuses = Object.keys(op.responses).sort();
      const post = route.method === "POST";
      // Section 14: reads of one tournament answer 304 to If-None-Match, its writes 412 to If-Match.
      const conditional = !route.stream && !post && /^\/tournaments\/\{(id|tournament_id)\}/.test(route.path);
      const expected = [
        route.location ? "201" : route.accepted ? "202" : "200",
        "400",
        "401",
        "403",
        "404",
        "429",
        "500",
        "503",
        ...(route.conflicts || post ? ["409"] : []),
        ...(route.body ? ["413", "415"] : []),
        ...(post ? ["422"] : []),
        ...(conditional ? [route.method === "GET" ? "304" : "412"] : []),
      ].sort();
      expect(statuses, `${route.method} ${route.path}`).toEqual(expected);
      for (const code of [...(route.conflicts ?? []), ...(post ? ["idempotency_conflict"] : [])]) {
        expect(op.responses["409"].description).toContain(code);
      }
      const condition = op.parameters?.find((p: any) => p.in === "header" && /^If-/.test(p.name))?.name;
      expect(condition, `${route.method} ${route.path}`).toBe(
        conditional ? (route.method === "GET" ? "If-None-Match" : "If-Match") : undefined,
      );
      expect(Boolean(op.responses["200"]?.headers?.ETag)).toBe(conditional);
      if (route.stream) expect(Object.keys(op.responses["200"].content)).toEqual(["text/event-stream"]);
      const idempotencyHeader = op.parameters?.find((p: any) => p.in === "header" && p.name === "Idempotency-Key");
      expect(Boolean(idempotencyHeader), `${route.method} ${route.path}`).toBe(post);
    }
    // Besides the keyed routes: the public view's six (contract section 15), which need no key.
    const publicPaths = Object.keys(doc.paths).filter((p) => p.startsWith("/public/")).sort();
    expect(publicPaths).toEqual([
      "/public/tournaments/{slug}",
      "/public/tournaments/{slug}/bracket.png",
      "/public/tournaments/{slug}/bracket.svg",
      "/public/tournaments/{slug}/page",
      "/public/tournaments/{slug}/stream",
      "/public/viewer.html",
    ]);
    for (const p of publicPaths) {
      expect(doc.paths[p].get.security, p).toEqual([]);
      expect(Object.keys(doc.paths[p].get.responses), p).toContain("429");
    }
    expect(Object.values(doc.paths).flatMap((p: any) => Object.keys(p)).length).toBe(routes.length + publicPaths.length);
  });

  it("documents the list's query parameters with their bounds", () => {
    const params = doc.paths["/tournaments"].get.parameters;
    const byName = Object.fromEntries(params.map((p: any) => [p.name, p]));
    expect(byName.limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
    expect(byName.page.schema).toMatchObject({ type: "integer", minimum: 1 });
    expect(byName.status.schema.enum).toEqual(["registration", "ongoing", "completed"]);
  });

  it("declares the bearer API key scheme, and the participant token's", () => {
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.participantToken).toMatchObject({
      type: "http",
      scheme: "bearer",
      bearerFormat: expect.stringMatching(/^tpt_/),
    });
  });

  it("has examples that satisfy the schemas they illustrate", () => {
    for (const route of routes) {
      if (route.body) {
        expect(route.bodyExample, `${route.method} ${route.path} needs a body example`).toBeTruthy();
        expect(route.body.safeParse(route.bodyExample).success, `${route.method} ${route.path}`).toBe(true);
      }
    }
    for (
      const [name, schema] of Object.entries({
        Tournament,
        Registration,
        Match,
        Results,
        DeleteResult,
      })
    ) {
      const example = (schema.meta() as { example?: unknown }).example;
      expect(schema.safeParse(example).success, name).toBe(true);
    }
  });
});

describe("serving the document and the reference page", () => {
  it("serves GET /openapi.json without a key", async () => {
    const res = await request("GET", "/openapi.json");
    expectStatus(res, 200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument({ serverUrl: apiUrl() }))));
  });

  it("serves the reference page and its renderer from the function, with no CDN", async () => {
    const page = await request("GET", "/docs");
    expectStatus(page, 200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.text).toContain('src="docs/swagger-ui-bundle.js"');
    expect(page.text).not.toMatch(/https?:\/\//);
    const bundle = await request("GET", "/docs/swagger-ui-bundle.js");
    expectStatus(bundle, 200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(bundle.text).toBe(fs.readFileSync(new URL("../../node_modules/swagger-ui-dist/swagger-ui-bundle.js", import.meta.url), "utf8"));
    expectStatus(await request("GET", "/docs/swagger-ui.css"), 200);
    expectStatus(await request("GET", "/docs/other.js"), 404);
  });

  it("answers 405 with Allow for another method on the document", async () => {
    const res = await request("POST", "/openapi.json", { body: {} });
    expectStatus(res, 405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
});
