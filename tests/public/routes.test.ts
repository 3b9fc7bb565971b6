// The public view (contract section 15) at the HTTP level: visibility, the public routes by slug
// (404 for private and unknown alike, with or without another account's key), what they leave
// out, Cache-Control / ETag / 304 / CORS, the pictures' types, the per-address limit (exact
// under concurrency), the keyed picture routes, and the public stream.
import { createHash, randomUUID } from "node:crypto";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { PICTURES_DRAWN_BY } from "../../functions/api/pictures.ts";
import {
  apiUrl,
  asFunctionRole,
  type Call,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  request,
  sql,
  startedTournament,
  tenant,
  tournamentBody,
} from "../support/helpers.ts";

/** A client address of its own for each use: the public routes count per address. */
const newAddress = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}-${randomUUID().slice(0, 8)}`;

function pub(path: string, address: string, headers: Record<string, string> = {}) {
  return request("GET", `/public${path}`, { headers: { "x-forwarded-for": address, ...headers } });
}

async function publicTournament(format: Record<string, unknown>, teams = 4) {
  const started = await startedTournament({ ...format, visibility: "public" }, await createTeams(teams, "Pub"));
  return { ...started, slug: started.tournament.slug as string };
}

/** Every key anywhere in a JSON value. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, out));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  }
  return out;
}

/** Width and height from a PNG's IHDR, after checking its signature and decoding its pixel data. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  expect(bytes.subarray(12, 16).toString("latin1")).toBe("IHDR");
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const idat: Buffer[] = [];
  for (let at = 8; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    if (bytes.subarray(at + 4, at + 8).toString("latin1") === "IDAT") idat.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  expect(raw.length).toBe(height * (1 + width * 4)); // RGBA, a filter byte per row
  return { width, height };
}

async function fetchRaw(path: string, address: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${apiUrl()}${path}`, { headers: { "x-forwarded-for": address, ...headers } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("visibility", () => {
  it("is private by default, public on create, and may change by PATCH in every status", async () => {
    const t = await tenant();
    const created = await t.request("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    expect(created.body.data.visibility).toBe("private");
    const open = await t.request("POST", "/tournaments", { body: tournamentBody({ visibility: "public" }) });
    expect(open.body.data.visibility).toBe("public");
    expectError(await t.request("POST", "/tournaments", { body: tournamentBody({ visibility: "secret" }) }), 400, "validation_error", [
      "visibility",
    ]);

    const { call, id } = await startedTournament({}, await createTeams(2, "Vis"));
    const made = await call("PATCH", `/tournaments/${id}`, { body: { visibility: "public" } });
    expectStatus(made, 200);
    expect(made.body.data.visibility).toBe("public");
    const [final] = (await call("GET", `/tournaments/${id}/results`)).body.data.matches as Match[];
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${final.id}`, { body: { team1_score: 1, team2_score: 0 } }), 200);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { status: "completed" } }), 200);
    const hidden = await call("PATCH", `/tournaments/${id}`, { body: { visibility: "private" } });
    expectStatus(hidden, 200);
    expect(hidden.body.data.visibility).toBe("private");
    expect(hidden.body.data.version).toBeGreaterThan(made.body.data.version);
  });
});

describe("the public view by slug", () => {
  it("shows a public tournament as the keyed routes do, without payment or account data", async () => {
    const { call, id, slug } = await publicTournament({ format: "round_robin", format_options: { groups: 2 }, entry_fee: 5 }, 6);
    const address = newAddress();
    const res = await pub(`/tournaments/${slug}`, address);
    expectStatus(res, 200);
    const view = res.body.data;
    expect(Object.keys(view).sort()).toEqual(["matches", "registrations", "stages", "standings", "tournament"]);
    const keyed = (await call("GET", `/tournaments/${id}`)).body.data;
    expect(view.tournament).toEqual(keyed);
    const results = (await call("GET", `/tournaments/${id}/results`)).body.data;
    expect(view.matches).toEqual(results.matches);
    expect(view.standings).toEqual(results.standings);
    const stage = (await call("GET", `/tournaments/${id}/stages/1`)).body.data;
    expect(view.stages).toHaveLength(1);
    expect(view.stages[0].standings).toEqual(stage.standings);
    const registrations = (await call("GET", `/tournaments/${id}/registrations`)).body.data;
    expect(view.registrations).toEqual(registrations.map(({ payment_status: _, ...r }: Record<string, unknown>) => r));
    const keys = keysOf(view);
    for (const secret of ["payment_status", "account_id", "key_id", "api_key_id", "secret"]) expect(keys.has(secret)).toBe(false);
  });

  it("is 404 for a private tournament and an unknown slug alike, with or without another account's key", async () => {
    const { t, call, id, slug } = await publicTournament({});
    const address = newAddress();
    const unknown = await pub(`/tournaments/no-such-slug-x1y2z3`, address);
    expectError(unknown, 404, "not_found");
    expectStatus(await pub(`/tournaments/${slug}`, address), 200);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { visibility: "private" } }), 200);
    const other = await tenant();
    const suffixes = ["", "/bracket.svg", "/bracket.png", "/page", "/stream"];
    for (const suffix of suffixes) {
      for (const headers of [{}, { authorization: `Bearer ${other.key}` }] as Record<string, string>[]) {
        const res = await pub(`/tournaments/${slug}${suffix}`, address, headers);
        expectError(res, 404, "not_found");
        expect(res.body.error).toEqual(unknown.body.error);
      }
    }
    // The owner's own key does not open the public routes either: they show public tournaments only.
    expectError(await pub(`/tournaments/${slug}`, address, { authorization: `Bearer ${t.key}` }), 404, "not_found");
  });

  it("shows nothing of an account whose API access the operator turned off", async () => {
    const { t, slug } = await publicTournament({});
    const address = newAddress();
    expectStatus(await pub(`/tournaments/${slug}`, address), 200);
    await sql("select admin.set_api_access($1, false)", [t.accountId]);
    expectError(await pub(`/tournaments/${slug}`, address), 404, "not_found");
    expectError(await pub(`/tournaments/${slug}/bracket.svg`, address), 404, "not_found");
    await sql("select admin.set_api_access($1, true)", [t.accountId]);
    expectStatus(await pub(`/tournaments/${slug}`, address), 200);
  });

  it("answers Cache-Control public, the version as ETag, 304 on a match, and any origin", async () => {
    const { call, id, slug } = await publicTournament({});
    const address = newAddress();
    for (const suffix of ["", "/bracket.svg", "/bracket.png", "/page"]) {
      const first = await fetchRaw(`/public/tournaments/${slug}${suffix}`, address);
      expect(first.res.status).toBe(200);
      expect(first.res.headers.get("cache-control")).toBe("public, max-age=5");
      expect(first.res.headers.get("access-control-allow-origin")).toBe("*");
      const version = (await call("GET", `/tournaments/${id}`)).body.data.version;
      expect(first.res.headers.get("etag")).toBe(`"${version}"`);
      const again = await fetchRaw(`/public/tournaments/${slug}${suffix}`, address, { "if-none-match": `"${version}"` });
      expect(again.res.status).toBe(304);
      expect(again.bytes.length).toBe(0);
      expect(again.res.headers.get("etag")).toBe(`"${version}"`);
      const stale = await fetchRaw(`/public/tournaments/${slug}${suffix}`, address, { "if-none-match": `"${version - 1}"` });
      expect(stale.res.status).toBe(200);
    }
  });

  it("draws SVG (both themes) and PNG, with 400 naming what names nothing", async () => {
    const { slug } = await publicTournament({ format: "double_elimination" }, 6);
    const address = newAddress();
    const light = await fetchRaw(`/public/tournaments/${slug}/bracket.svg`, address);
    expect(light.res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    const svg = light.bytes.toString("utf8");
    expect(svg).toMatch(/^<svg[\s>]/);
    for (const tag of ["T1", "T2", "T3", "T4", "T5", "T6"]) expect(svg).toContain(`>${tag}<`);
    for (const forbidden of ["<script", "foreignObject", "<image", "href", "url("]) expect(svg).not.toContain(forbidden);
    const dark = (await fetchRaw(`/public/tournaments/${slug}/bracket.svg?theme=dark`, address)).bytes.toString("utf8");
    expect(dark).not.toBe(svg);
    const png = await fetchRaw(`/public/tournaments/${slug}/bracket.png`, address);
    expect(png.res.headers.get("content-type")).toBe("image/png");
    const size = pngSize(png.bytes);
    expect(Math.max(size.width, size.height)).toBeLessThanOrEqual(4096);
    expect(size.width).toBeGreaterThan(100);
    expectError(await pub(`/tournaments/${slug}/bracket.svg?stage=3`, address), 400, "validation_error", ["stage"]);
    expectError(await pub(`/tournaments/${slug}/bracket.svg?theme=pink`, address), 400, "validation_error", ["theme"]);
    expectError(await pub(`/tournaments/${slug}/bracket.svg?round=x`, address), 400, "validation_error", ["round"]);
  });

  it("serves the page with Open Graph tags pointing at the PNG, and viewer.html", async () => {
    const { slug, tournament } = await publicTournament({ name: "Open <Graph> Cup" });
    const address = newAddress();
    const page = await fetchRaw(`/public/tournaments/${slug}/page`, address);
    expect(page.res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = page.bytes.toString("utf8");
    expect(html).toContain(`property="og:image" content="${apiUrl()}/public/tournaments/${slug}/bracket.png"`);
    expect(html).toContain("Open &lt;Graph&gt; Cup");
    expect(html).not.toContain("Open <Graph> Cup");
    expect(tournament.name).toBe("Open <Graph> Cup");
    // No request to any host but the API: every absolute URL in the page is the API's (XML
    // namespace names, which nothing fetches, aside).
    const origin = new URL(apiUrl()).origin;
    for (const m of html.matchAll(/https?:\/\/[^\s"'<>)]+/g)) {
      if (!m[0].startsWith("http://www.w3.org/")) expect(m[0].startsWith(origin), m[0]).toBe(true);
    }
    const viewer = await fetchRaw(`/public/viewer.html`, address);
    expect(viewer.res.status).toBe(200);
    expect(viewer.res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(viewer.bytes.toString("utf8")).toContain("<html");
  });
});

describe("the pictures an instance sends again", () => {
  it("sends the same picture while the version stands, and a new one after any change, public and keyed", async () => {
    const { t, call, id, slug } = await publicTournament({}, 4);
    const address = newAddress();
    const routes = [`/public/tournaments/${slug}/bracket.svg?theme=dark`, `/tournaments/${id}/bracket.svg?theme=dark`];
    const get = (path: string) => fetchRaw(path, address, path.startsWith("/public") ? {} : { authorization: `Bearer ${t.key}` });
    for (const path of routes) {
      const [a, b] = [await get(path), await get(path)];
      expect(b.bytes.equals(a.bytes), path).toBe(true);
      expect(b.res.headers.get("etag")).toBe(a.res.headers.get("etag"));
    }
    const [m] = (await call("GET", `/tournaments/${id}/results`)).body.data.matches as Match[];
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 17, team2_score: 4 } }), 200);
    for (const path of routes) {
      const after = await get(path);
      const svg = after.bytes.toString("utf8");
      expect(svg, path).toMatch(/>17</);
      expect(after.res.headers.get("etag"), path).toBe(`"${(await call("GET", `/tournaments/${id}`)).body.data.version}"`);
      // The client's own If-None-Match still answers 304, cached picture or not.
      const again = await fetchRaw(path, address, {
        "if-none-match": after.res.headers.get("etag")!,
        ...(path.startsWith("/public") ? {} : { authorization: `Bearer ${t.key}` }),
      });
      expect(again.res.status, path).toBe(304);
    }
  });

  // The instance keeps the JSON view by version (issue 39: a final's open pages all ask it after
  // each event); Postgres still answers the version, so nothing stale is ever sent.
  it("sends the same JSON view while the version stands, each change at once, and 404 once private", async () => {
    const { call, id, slug } = await publicTournament({}, 4);
    const address = newAddress();
    const view = async () => {
      const res = await pub(`/tournaments/${slug}`, address);
      expectStatus(res, 200);
      return { data: res.body.data, etag: res.headers.get("etag") };
    };
    const [a, b] = [await view(), await view()];
    expect(b).toEqual(a);
    const [m] = (await call("GET", `/tournaments/${id}/results`)).body.data.matches as Match[];
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 17, team2_score: 4 } }), 200);
    const after = await view();
    const version = (await call("GET", `/tournaments/${id}`)).body.data.version;
    expect(after.etag).toBe(`"${version}"`);
    expect(after.data.tournament.version).toBe(version);
    expect(after.data.matches.find((x: Match) => x.id === m.id)).toMatchObject({ team1_score: 17, team2_score: 4, status: "completed" });
    expect((await pub(`/tournaments/${slug}`, address, { "if-none-match": after.etag! })).status).toBe(304);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { visibility: "private" } }), 200);
    expectError(await pub(`/tournaments/${slug}`, address), 404, "not_found");
  });

  it("draws one PNG for many parallel requests, all the same bytes; HEAD answers without a body", async () => {
    const { slug } = await publicTournament({ format: "double_elimination" }, 8);
    const answers = await Promise.all(Array.from({ length: 8 }, () => fetchRaw(`/public/tournaments/${slug}/bracket.png`, newAddress())));
    for (const a of answers) {
      expect(a.res.status).toBe(200);
      expect(a.bytes.equals(answers[0].bytes)).toBe(true);
    }
    pngSize(answers[0].bytes);
    const head = await fetch(`${apiUrl()}/public/tournaments/${slug}/bracket.png`, {
      method: "HEAD",
      headers: { "x-forwarded-for": newAddress() },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/png");
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});

describe("PNGs drawn one at a time per instance", () => {
  it("answers 10 different PNGs asked at once, each the picture drawn alone", async () => {
    const { t, id, slug } = await publicTournament({ format: "double_elimination" }, 8);
    const queries = ["1", "2", "3", "1-2", "2-3"].flatMap((round) => ["light", "dark"].map((theme) => `?theme=${theme}&round=${round}`));
    const together = await Promise.all(queries.map((q) => fetchRaw(`/public/tournaments/${slug}/bracket.png${q}`, newAddress())));
    // The keyed route draws the same pictures under other names in the instance's cache: drawn
    // again, one after another.
    for (const [i, q] of queries.entries()) {
      const { res, bytes } = together[i];
      expect(res.status, `${q}: ${bytes.toString("utf8", 0, 200)}`).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/png");
      pngSize(bytes);
      const alone = await fetchRaw(`/tournaments/${id}/bracket.png${q}`, newAddress(), { authorization: `Bearer ${t.key}` });
      expect(alone.res.status).toBe(200);
      expect(bytes.equals(alone.bytes), q).toBe(true);
      expect(res.headers.get("x-bracket-clipped"), q).toBe(alone.res.headers.get("x-bracket-clipped"));
    }
    expect(new Set(together.map((a) => a.bytes.toString("base64"))).size, "ten different pictures").toBe(10);
  });
});

describe("the PNGs kept for every instance", () => {
  const kept = (id: string) =>
    sql<{ key: string; version: string; png: Buffer; clipped: string | null }>(
      "select key, version, png, clipped from app.pictures where tournament_id = $1 order by key",
      [id],
    );

  it("keeps a whole stage's PNG once drawn, at the version it shows, and sends it where this instance never drew it", async () => {
    const { id, slug } = await publicTournament({ format: "double_elimination" }, 8);
    const light = await fetchRaw(`/public/tournaments/${slug}/bracket.png`, newAddress());
    expect(light.res.status).toBe(200);
    const version = light.res.headers.get("etag")!.replaceAll('"', "");
    const rows = await kept(id);
    expect(rows.map((r) => [r.key, r.version])).toEqual([["png||light", version]]);
    expect(rows[0].png.equals(light.bytes)).toBe(true);
    // The light picture kept under the dark one's name, with a note: sent as kept, not drawn.
    await sql(
      `insert into app.pictures (tournament_id, key, version, png, clipped, drawn_by)
               values ($1, 'png||dark', $2, $3, 'Kept note', $4)`,
      [id, version, light.bytes, PICTURES_DRAWN_BY],
    );
    const dark = await fetchRaw(`/public/tournaments/${slug}/bracket.png?theme=dark`, newAddress());
    expect(dark.res.status).toBe(200);
    expect(dark.res.headers.get("content-type")).toBe("image/png");
    expect(dark.res.headers.get("etag")).toBe(`"${version}"`);
    expect(dark.res.headers.get("x-bracket-clipped")).toBe("Kept%20note");
    expect(dark.bytes.equals(light.bytes)).toBe(true);
    // What another renderer drew is not sent: the view comes instead, to draw the picture from.
    const ask = (drawnBy: string) =>
      asFunctionRole(null, async (c) =>
        (await c.query(
          "select result::text as r from api.public_call($1, 'picture', $2, null)",
          [createHash("sha256").update(newAddress()).digest(), { slug, key: "png||dark", drawn_by: drawnBy }],
        )).rows[0].r as string);
    expect(JSON.parse(await ask(PICTURES_DRAWN_BY))).toEqual({ kept: light.bytes.toString("base64"), clipped: "Kept note" });
    expect(Object.keys(JSON.parse(await ask("an older renderer")))).toEqual([
      "tournament",
      "stages",
      "registrations",
      "matches",
      "standings",
    ]);
  });

  it("draws again when the kept PNG shows an older version, and keeps the new one in its place", async () => {
    const { call, id, slug } = await publicTournament({}, 4);
    const before = await fetchRaw(`/public/tournaments/${slug}/bracket.png?stage=1`, newAddress());
    const [m] = (await call("GET", `/tournaments/${id}/results`)).body.data.matches as Match[];
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 17, team2_score: 4 } }), 200);
    const after = await fetchRaw(`/public/tournaments/${slug}/bracket.png?stage=1`, newAddress());
    expect(after.res.status).toBe(200);
    expect(after.bytes.equals(before.bytes), "the score is drawn").toBe(false);
    const rows = await kept(id);
    expect(rows.map((r) => [r.key, `"${r.version}"`])).toEqual([["png|1|light", after.res.headers.get("etag")]]);
    expect(rows[0].png.equals(after.bytes)).toBe(true);
  });

  it("keeps nothing for ?round= or ?group=, SVGs or the keyed routes, and nothing drawn at a version gone", async () => {
    const { t, id, slug } = await publicTournament({ format: "double_elimination" }, 8);
    for (const path of [`/public/tournaments/${slug}/bracket.png?round=1-2`, `/public/tournaments/${slug}/bracket.svg`]) {
      expect((await fetchRaw(path, newAddress())).res.status, path).toBe(200);
    }
    const keyed = await fetchRaw(`/tournaments/${id}/bracket.png`, newAddress(), { authorization: `Bearer ${t.key}` });
    expect(keyed.res.status).toBe(200);
    expect(await kept(id)).toEqual([]);
    const version = Number(keyed.res.headers.get("etag")!.replaceAll('"', ""));
    const keep = (v: number, key = "png||light") =>
      asFunctionRole(
        null,
        async (c) =>
          (await c.query("select api.keep_picture($1, $2, $3, $4, null, 'bench') as kept", [slug, key, v, keyed.bytes])).rows[0].kept,
      );
    // As the function's role (each call rolled back).
    expect(await keep(version - 1), "an older version").toBe(false);
    await expect(keep(version, "png||light|1-2"), "not a whole stage's name").rejects.toThrow(/pictures_key_check/);
    expect(await keep(version), "the current version").toBe(true);
  });
});

describe("the per-address limit", () => {
  it("allows exactly 300 requests a minute per address under concurrency, 429 beyond, other addresses unaffected", async () => {
    const address = newAddress();
    const answers = await Promise.all(Array.from({ length: 330 }, () => pub(`/tournaments/no-such-slug-abc123`, address)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(300);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    const limited = answers.find((a) => a.status === 429)!;
    expectError(limited, 429, "rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get("ratelimit-limit")).toBe("300");
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expectError(await pub(`/tournaments/no-such-slug-abc123`, newAddress()), 404, "not_found");
    // A key does not lift it: the public routes never count per key.
    const t = await tenant();
    expectError(await pub(`/tournaments/no-such-slug-abc123`, address, { authorization: `Bearer ${t.key}` }), 429, "rate_limited");
  });

  it("frees a slot when the oldest request leaves the window, and stores no address", async () => {
    const address = newAddress();
    const hash = createHash("sha256").update(`address:${address}`).digest();
    // 300 requests: the oldest 61 s ago (outside the window), the others 1 s ago.
    await sql(
      `insert into app.address_limits (address_hash, next_slot, slots, last_at)
       values ($1, 1, array[clock_timestamp() - interval '61 seconds']
                      || array_fill(clock_timestamp() - interval '1 second', array[299]), clock_timestamp())`,
      [hash],
    );
    const first = await pub(`/tournaments/no-such-slug-abc123`, address);
    expectError(first, 404, "not_found");
    expect(first.headers.get("ratelimit-remaining")).toBe("0");
    expectError(await pub(`/tournaments/no-such-slug-abc123`, address), 429, "rate_limited");
    const stored = await sql<{ n: number }>(
      `select count(*)::int as n from app.address_limits where position(convert_to($1, 'UTF8') in address_hash) > 0`,
      [address],
    );
    expect(stored[0].n).toBe(0);
  });
});

describe("the keyed pictures", () => {
  it("draw any of the account's tournaments, private too, with read:results", async () => {
    const { t, id } = await startedTournament({}, await createTeams(4, "Key"));
    const svg = await fetch(`${apiUrl()}/tournaments/${id}/bracket.svg`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(svg.status).toBe(200);
    expect(svg.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8");
    expect(svg.headers.get("etag")).toMatch(/^"[0-9]+"$/);
    expect(await svg.text()).toContain(">T1<");
    const png = await fetch(`${apiUrl()}/tournaments/${id}/bracket.png`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(png.status).toBe(200);
    pngSize(Buffer.from(await png.arrayBuffer()));
    const narrow = (await t.newKey(["read:tournaments"])).key;
    expectError(await request("GET", `/tournaments/${id}/bracket.svg`, { key: narrow }), 403, "insufficient_scope");
    const other = await tenant();
    expectError(await other.request("GET", `/tournaments/${id}/bracket.svg`), 404, "not_found");
    expectError(await t.request("GET", `/tournaments/${id}/bracket.svg?stage=2`), 400, "validation_error", ["stage"]);
  });
});

describe("the public stream", () => {
  it("sends the results, then each change, and ends with deleted when the tournament is made private", async () => {
    const { call, id, slug } = await publicTournament({}, 4);
    const res = await fetch(`${apiUrl()}/public/tournaments/${slug}/stream`, { headers: { "x-forwarded-for": newAddress() } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const next = async (pattern: RegExp) => {
      const deadline = Date.now() + 5000;
      while (!pattern.test(text)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in ${text.slice(0, 300)}`);
        const { value, done } = await reader.read();
        if (done) break;
        text += value;
      }
      return text;
    };
    await next(/event: results\ndata: .*\n\n/);
    const first = JSON.parse(/data: (.*)\n/.exec(text)![1]);
    const [m] = first.matches as Match[];
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 2, team2_score: 0 } }), 200);
    await next(/event: results[\s\S]*event: results\ndata: .*\n\n/);
    const events = [...text.matchAll(/id: (\d+)\nevent: results\ndata: (.*)\n/g)];
    const delta = JSON.parse(events[1][2]);
    expect(delta.matches.map((x: Match) => x.id)).toContain(m.id);
    expectStatus(await call("PATCH", `/tournaments/${id}`, { body: { visibility: "private" } }), 200);
    await next(/event: deleted\ndata: \{"id":"[^"]+"\}\n\n/);
    expect(text).toContain(`event: deleted\ndata: {"id":"${id}"}`);
    await reader.cancel();
  });
});

describe("the count of the static files that need no key", () => {
  it("counts the OpenAPI document and the reference page per address", async () => {
    const address = newAddress();
    const call: Call = (method, path, options = {}) =>
      request(method, path, { ...options, headers: { "x-forwarded-for": address, ...options.headers } });
    const doc = await call("GET", "/openapi.json");
    expectStatus(doc, 200);
    expect(doc.headers.get("ratelimit-limit")).toBe("300");
    const before = Number(doc.headers.get("ratelimit-remaining"));
    const page = await call("GET", "/docs");
    expect(Number(page.headers.get("ratelimit-remaining"))).toBe(before - 1);
  });
});
