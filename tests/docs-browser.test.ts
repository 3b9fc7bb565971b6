// The reference page in a real browser: the headless Chromium that the npm package
// @sparticuz/chromium ships, driven by playwright-core. Nothing to install beyond `npm install`:
// the package's own shared libraries (NSS, NSPR, expat, built for Amazon Linux 2023) are
// unpacked beside it and put first on LD_LIBRARY_PATH, so a machine without them runs it too.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser } from "playwright-core";
import sparticuz from "@sparticuz/chromium";
import { routes } from "../functions/api/routes.ts";
import { eventPayloads } from "../functions/api/resources/webhooks.ts";
import { apiUrl } from "./helpers.ts";

let browser: Browser;

/** Unpacks the package's al2023.tar.br (its libraries) once; returns the lib folder. */
function bundledLibraries(): string {
  const dir = path.join(os.tmpdir(), "sparticuz-al2023");
  const lib = path.join(dir, "lib");
  if (!fs.existsSync(path.join(lib, "libnss3.so"))) {
    // The package's entry is build/cjs/index.cjs; its archives are in bin/.
    const pkg = path.resolve(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..", "..");
    fs.mkdirSync(dir, { recursive: true });
    const tar = path.join(dir, `al2023-${process.pid}.tar`);
    fs.writeFileSync(tar, zlib.brotliDecompressSync(fs.readFileSync(path.join(pkg, "bin", "al2023.tar.br"))));
    execFileSync("tar", ["-xf", tar, "-C", dir]);
    fs.rmSync(tar);
  }
  return lib;
}

beforeAll(async () => {
  const lib = bundledLibraries();
  browser = await chromium.launch({
    executablePath: await sparticuz.executablePath(),
    env: { ...process.env, LD_LIBRARY_PATH: [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":") },
    // The package's own flags (headless shell, no sandbox, …), plus no background networking:
    // this machine reaches no outside host.
    args: [...sparticuz.args, "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
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
    // The paths' operations, and the document's top-level webhooks (OpenAPI 3.1): one POST per event type.
    const expected = [...routes.map((r) => `${r.method} ${r.path}`), ...eventPayloads.map((e) => `POST ${e.type}`)];
    await expect.poll(() => page.locator(".opblock").count(), { timeout: 10_000 }).toBe(expected.length);

    const rendered = await page.locator(".opblock").evaluateAll((blocks) => blocks.map((b) => {
      const method = b.querySelector(".opblock-summary-method")?.textContent?.trim();
      const path = b.querySelector(".opblock-summary-path")?.getAttribute("data-path")
        ?? b.querySelector(".opblock-summary-path")?.textContent?.trim();
      return `${method} ${path}`;
    }));
    expect(rendered.sort()).toEqual(expected.sort());
    expect(await page.locator(".title").first().textContent()).toContain("Tournament API");
    expect(outside).toEqual([]);
    await page.close();
  });
});
