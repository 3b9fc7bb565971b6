// The reference page in a real browser: Debian's Chromium, headless, driven by playwright-core.
// Needs /usr/bin/chromium (`apt-get install chromium`; .ci/run installs it).
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser } from "playwright-core";
import { routes } from "../functions/api/routes.ts";
import { apiUrl } from "./helpers.ts";

const CHROMIUM = "/usr/bin/chromium";
let browser: Browser;

beforeAll(async () => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run this test`);
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(() => browser?.close());

describe("the API reference page", () => {
  it("renders every endpoint from the served document, loading nothing from outside", async () => {
    const page = await browser.newPage();
    const outside: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(new URL(apiUrl()).origin)) outside.push(r.url());
    });
    await page.goto(`${apiUrl()}/docs`);
    await page.waitForSelector(".opblock", { timeout: 20_000 });
    await expect.poll(() => page.locator(".opblock").count(), { timeout: 10_000 }).toBe(routes.length);

    const rendered = await page.locator(".opblock").evaluateAll((blocks) => blocks.map((b) => {
      const method = b.querySelector(".opblock-summary-method")?.textContent?.trim();
      const path = b.querySelector(".opblock-summary-path")?.getAttribute("data-path");
      return `${method} ${path}`;
    }));
    expect(rendered.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
    expect(await page.locator(".title").first().textContent()).toContain("Tournament API");
    expect(outside).toEqual([]);
    await page.close();
  });
});
