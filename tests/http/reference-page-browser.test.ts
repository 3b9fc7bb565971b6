// The reference page in a real browser (tests/support/browser.ts: the headless Chromium that the npm
// package @sparticuz/chromium ships, driven by playwright-core).
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser } from "playwright-core";
import { launchChromium } from "../support/browser.ts";
import { routes } from "../../functions/api/routes.ts";
import { eventPayloads } from "../../functions/api/resources/webhooks.ts";
import { apiUrl, createTeams, expectStatus, type Match, startedTournament } from "../support/helpers.ts";

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
}, 120_000);
afterAll(() => browser?.close());

describe("the API reference page", () => {
  it("renders every endpoint and every webhook event from the served document, loading nothing from outside", async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(new URL(apiUrl()).origin)) outside.push(r.url());
    });
    await page.goto(`${apiUrl()}/docs`);
    await page.waitForSelector(".opblock", { timeout: 20_000 });
    // The paths' operations (the keyed routes and the public view's six, which need no key), and
    // the document's top-level webhooks (OpenAPI 3.1): one POST per event type.
    const publicOps = ["", "/bracket.svg", "/bracket.png", "/page", "/stream"].map((s) => `GET /public/tournaments/{slug}${s}`);
    const expected = [
      ...routes.map((r) => `${r.method} ${r.path}`),
      ...publicOps,
      "GET /public/viewer.html",
      ...eventPayloads.map((e) => `POST ${e.type}`),
    ];
    await expect.poll(() => page.locator(".opblock").count(), { timeout: 10_000 }).toBe(expected.length);

    const rendered = await page.locator(".opblock").evaluateAll((blocks) =>
      blocks.map((b) => {
        const method = b.querySelector(".opblock-summary-method")?.textContent?.trim();
        const path = b.querySelector(".opblock-summary-path")?.getAttribute("data-path") ??
          b.querySelector(".opblock-summary-path")?.textContent?.trim();
        return `${method} ${path}`;
      })
    );
    expect(rendered.sort()).toEqual(expected.sort());
    expect(await page.locator(".title").first().textContent()).toContain("Tournament API");
    expect(outside).toEqual([]);
    // (Left open: closing a page can end the headless shell's one process; the browser closes at the end.)
  });
});

describe("the live stream in a browser", () => {
  it("follows a tournament with the README's fetch example, from another origin (CORS preflight)", async () => {
    // The README's own code, run as it is written: only BASE, KEY, ID and render are supplied.
    const readme = fs.readFileSync(path.join(process.cwd(), "README.md"), "utf8");
    const example = /## Watch it live[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)![1];
    const { t, call, id } = await startedTournament({}, await createTeams(4, "Browser"));
    const page = await browser.newPage();
    await page.setContent("<title>an overlay</title>"); // origin "null": every request is cross-origin
    await page.evaluate(([code, base, key, tid]) => {
      const w = window as unknown as { seen: { version: number; matches: number }[] };
      w.seen = [];
      const render = (r: { tournament: { version: number }; matches: unknown[] }) =>
        w.seen.push({ version: r.tournament.version, matches: r.matches.length });
      new Function("BASE", "KEY", "ID", "render", `return (async () => {\n${code}\n})()`)(base, key, tid, render);
    }, [example, apiUrl(), t.key, id]);
    const seen = () => page.evaluate(() => (window as unknown as { seen: { version: number; matches: number }[] }).seen);
    await expect.poll(seen, { timeout: 10_000 }).toHaveLength(1);
    const first = (await seen())[0];
    expect(first.matches).toBe(3); // the whole bracket of four teams

    const results = (await call("GET", `/tournaments/${id}/results`)).body.data;
    const ready = (results.matches as Match[]).filter((m) => m.status === "ready");
    for (const m of ready) {
      expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 2, team2_score: 1 } }), 200);
      await new Promise((r) => setTimeout(r, 400)); // past the poll: one event each
    }
    const version = (await call("GET", `/tournaments/${id}`)).body.data.version;
    await expect.poll(async () => (await seen()).at(-1)?.version, { timeout: 5000 }).toBe(version);
    const all = await seen();
    expect(all.map((e) => e.version)).toEqual([first.version, first.version + 1, first.version + 2]);
    expect(all.slice(1).map((e) => e.matches)).toEqual([2, 2]); // each semi-final and the final it fed
    await page.close();
  });
});
