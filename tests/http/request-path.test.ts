// Request-path defects found by trying the API as a user would: names that are not docs assets,
// HEAD, a client that leaves mid-body, the reference page at /docs/, and the OpenAPI servers.
import fs from "node:fs";
import net from "node:net";
import { describe, expect, inject, it } from "vitest";
import { openApiDocument } from "../../functions/api/openapi/document.ts";
import { routes } from "../../functions/api/routes.ts";
import { apiUrl, createTeams, createTournament, expectError, expectStatus, request, tenant } from "../support/helpers.ts";

describe("the reference page's assets", () => {
  const names = [
    "constructor",
    "__proto__",
    "toString",
    "hasOwnProperty",
    "valueOf",
    "isPrototypeOf",
    "__defineGetter__",
    "propertyIsEnumerable",
    "toLocaleString",
    "other.js",
    "swagger-ui.css.map",
  ];
  it.each(names)("answers 404 not_found for /docs/%s, a name that is not an asset", async (name) => {
    const res = await request("GET", `/docs/${name}`);
    expectError(res, 404, "not_found");
  });

  it("serves the page at /docs/ as at /docs, with URLs that resolve from there", async () => {
    for (const path of ["/docs", "/docs/"]) {
      const page = await request("GET", path);
      expectStatus(page, 200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const base = `${apiUrl()}${path}`;
      const urls = [...page.text.matchAll(/(?:src|href)="([^"]+)"|url: "([^"]+)"/g)].map((m) => m[1] ?? m[2]);
      expect(urls).toHaveLength(3);
      for (const u of urls) {
        const res = await fetch(new URL(u, base));
        expect(res.status, `${u} from ${path}`).toBe(200);
        await res.arrayBuffer();
      }
    }
  });
});

describe("the served OpenAPI document", () => {
  it("names the server it is served from first, and is otherwise the committed document", async () => {
    const res = await request("GET", "/openapi.json");
    expectStatus(res, 200);
    expect(res.body.servers[0].url).toBe(apiUrl());
    expect(res.body).toEqual(JSON.parse(JSON.stringify(openApiDocument({ serverUrl: apiUrl() }))));
    const local = openApiDocument() as { servers: { url: string }[] };
    expect(local.servers[0].url).toBe("http://127.0.0.1:54321/functions/v1/api/v1");
  });
});

describe("HEAD", () => {
  it("answers every GET route like GET, without a body", async () => {
    const t = await tenant();
    const tournament = await createTournament(t);
    const [team] = await createTeams(1, "Head");
    const reg = await t.request("POST", `/tournaments/${tournament.id}/registrations`, { body: { team_id: team } });
    expectStatus(reg, 201);
    const ids: Record<string, string> = { id: tournament.id, registration_id: reg.body.data.id };
    // (The live stream's GET lasts; its HEAD is below.)
    // (The participant routes' GETs are a token's: tests/participants.)
    const gets = routes.filter((r) => r.method === "GET" && !r.stream && !r.participant);
    expect(gets.length).toBeGreaterThan(3);
    for (const route of gets) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name) => ids[name]);
      const get = await t.request("GET", path);
      const head = await t.request("HEAD", path);
      expect(head.status, path).toBe(get.status);
      expect(head.text, path).toBe("");
      for (const h of ["content-type", "cache-control", "ratelimit-limit", "ratelimit-policy"]) {
        expect(head.headers.get(h), `${h} on HEAD ${path}`).toBe(get.headers.get(h));
      }
      expect(Number(head.headers.get("ratelimit-remaining"))).toBe(Number(get.headers.get("ratelimit-remaining")) - 1);
    }
    // The live stream: HEAD answers its headers at once (and leaves no stream open).
    const live = await t.request("HEAD", `/tournaments/${tournament.id}/stream`);
    expect([live.status, live.text, live.headers.get("content-type")]).toEqual([200, "", "text/event-stream"]);
    // Errors too: an unknown id is 404 as with GET; no key is 401.
    const missing = await t.request("HEAD", `/tournaments/${crypto.randomUUID()}`);
    expect([missing.status, missing.text]).toEqual([404, ""]);
    const anonymous = await request("HEAD", "/tournaments");
    expect([anonymous.status, anonymous.text, anonymous.headers.get("www-authenticate")])
      .toEqual([401, "", 'Bearer realm="api"']);
    for (const path of ["/openapi.json", "/docs", "/docs/swagger-ui.css"]) {
      const head = await request("HEAD", path);
      expect([head.status, head.text], path).toEqual([200, ""]);
    }
  });
});

describe("a client that disconnects mid-body", () => {
  it("is logged as 499 client disconnected (not an error), and the request does not count", async () => {
    const t = await tenant();
    const before = await t.request("GET", "/tournaments");
    expectStatus(before, 200);
    const url = new URL(apiUrl());
    const marker = `disconnect-${crypto.randomUUID()}`;
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${url.pathname}/tournaments HTTP/1.1\r\nHost: ${url.host}\r\n` +
            `Authorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n` +
            `X-Marker: ${marker}\r\n\r\n{"name": "half a body`,
        );
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
      socket.on("error", reject);
    });
    // The function notices the closed connection while reading the body.
    let lines: { msg: string; status: number; level: string; error_code?: string; method: string }[] = [];
    await expect.poll(() => {
      lines = fs.readFileSync(inject("logFile"), "utf8").split("\n").filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l)).filter((l) => l.msg === "client disconnected");
      return lines.length;
    }, { timeout: 5000 }).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatchObject({ level: "info", status: 499, method: "POST" });
    expect(lines.at(-1)!.error_code).toBeUndefined();
    const after = await t.request("GET", "/tournaments");
    expect(Number(after.headers.get("ratelimit-remaining"))).toBe(Number(before.headers.get("ratelimit-remaining")) - 1);
    expect(after.body.pagination.total).toBe(0);
  });
});
