// The bracket picture (contract section 15): functions/api/render/svg.ts drawn from public views
// that tests/support/render-fixtures.ts builds as the database lays them out, for every format. Checked
// here: well-formed XML with nothing that could load or run anything, every team shown, no two
// match boxes overlapping and all inside the picture, names that fit their row in the real font,
// the size limit and its caption, round and group selection, both themes' contrast, each team's
// lineup as the tooltip of its names (costing no room), a match whose participants' report is open
// (contract section 18) marked as such, without a winner or the reported score, and a drawn match
// (section 19) marked as a draw, neither side the winner, with the standings' draws and points; a
// free-for-all stage's lobbies as leaderboards and its standings (section 20).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderBracket, type RenderOptions } from "../../functions/api/render/svg.ts";
import { BOX_H, BOX_W, META_H, NAME_W } from "../../functions/api/render/match.ts";
import { TEXT_ON, THEMES } from "../../functions/api/render/theme.ts";
import type {
  Format,
  PublicView,
  ViewGame,
  ViewLineupEntry,
  ViewLobbyGame,
  ViewMatch,
  ViewRegistration,
} from "../../functions/api/render/view.ts";
import {
  type BracketOptions,
  buildView,
  double,
  ffa,
  makeTeams,
  registration,
  roundRobin,
  single,
  swiss,
  withReport,
} from "../support/render-fixtures.ts";

// ---------------------------------------------------------------------------------------------
// Reading the SVG back
// ---------------------------------------------------------------------------------------------

const ENTITY: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const unescape = (s: string) => s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ENTITY[e]);

/** Why `xml` is not well-formed XML (one root, balanced tags, quoted attributes, escaped text), or null. */
function xmlProblem(xml: string): string | null {
  // deno-lint-ignore no-control-regex -- control characters must not reach the SVG
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(xml)) return "a character XML does not allow";
  const rawAmp = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const stack: string[] = [];
  let roots = 0;
  while (token.lastIndex < xml.length) {
    const at = token.lastIndex;
    const m = token.exec(xml);
    if (!m) return `not a tag or text at ${at}: ${xml.slice(at, at + 40)}`;
    const [, close, name, attrs, selfClosing, text] = m;
    if (text !== undefined) {
      if (stack.length === 0) return `text outside the root at ${at}`;
      if (rawAmp.test(text)) return `an unescaped & in text at ${at}`;
      continue;
    }
    if (close) {
      if (attrs || selfClosing) return `a closing tag with attributes at ${at}`;
      if (stack.pop() !== name) return `</${name}> closes nothing open at ${at}`;
      continue;
    }
    const names = [...attrs.matchAll(/([\w:.-]+)="([^"]*)"/g)];
    if (new Set(names.map((a) => a[1])).size !== names.length) return `a repeated attribute in <${name}> at ${at}`;
    if (names.some((a) => rawAmp.test(a[2]) || a[2].includes("<"))) return `an unescaped attribute value in <${name}> at ${at}`;
    if (stack.length === 0 && ++roots > 1) return `a second root element at ${at}`;
    if (!selfClosing) stack.push(name);
  }
  return stack.length ? `<${stack[stack.length - 1]}> never closed` : roots === 1 ? null : "no root element";
}

const FORBIDDEN = [/<script/i, /foreignObject/i, /<image/i, /href/i, /url\(/i, /@import/i, /<a[\s>]/i, /\son[a-z]+=/i];

interface Card {
  id: string;
  status: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Every match box: its id, and its box (from the group's translate and the box's size). */
function cards(svg: string): Card[] {
  const re =
    /<g class="match" data-match-id="([^"]+)" data-status="([^"]+)" transform="translate\((-?\d+),(-?\d+)\)"[^>]*><title>[^<]*<\/title><rect class="box" width="(\d+)" height="(\d+)"/g;
  return [...svg.matchAll(re)].map((m) => ({ id: m[1], status: m[2], x: +m[3], y: +m[4], w: +m[5], h: +m[6] }));
}

/** The tables' outlines (standings, cross-tables, team lists). */
function tables(svg: string): Array<{ x: number; y: number; w: number; h: number }> {
  const re = /<g class="(?:standings|cross-table|table|lobby-table)"><rect x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"/g;
  return [...svg.matchAll(re)].map((m) => ({ x: +m[1], y: +m[2], w: +m[3], h: +m[4] }));
}

/** Pairs of rectangles that overlap (touching edges do not). */
function overlaps(rects: Array<{ x: number; y: number; w: number; h: number }>): string[] {
  const sorted = [...rects].sort((a, b) => a.x - b.x);
  const found: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i];
    for (let j = i + 1; j < sorted.length && sorted[j].x < a.x + a.w; j++) {
      const b = sorted[j];
      if (b.y < a.y + a.h && a.y < b.y + b.h) found.push(`${JSON.stringify(a)} × ${JSON.stringify(b)}`);
    }
  }
  return found;
}

/** Team texts: id, tag and name as drawn, and whether bold. */
function teamTexts(svg: string): Array<{ id: string; tag: string; name: string; bold: boolean; muted: boolean }> {
  const re = /<text class="team" data-team-id="([^"]+)"([^>]*)><tspan font-weight="700">([^<]*)<\/tspan>([^<]*)<\/text>/g;
  return [...svg.matchAll(re)].map((m) => ({
    id: m[1],
    tag: unescape(m[3]),
    name: unescape(m[4]).replace(/^ /, ""),
    bold: m[2].includes(`font-weight="700"`),
    muted: /fill="(#59636e|#9198a1)"/.test(m[2]),
  }));
}

/** The team texts wrapped in their lineup's tooltip: the team's id and the `<title>` as text. */
function lineupTitles(svg: string): Array<{ id: string; title: string }> {
  const re = /<g class="lineup"><title>([^<]*)<\/title><text class="team" data-team-id="([^"]+)"[^>]*>(?:(?!<\/text>).)*<\/text><\/g>/g;
  return [...svg.matchAll(re)].map((m) => ({ id: m[2], title: unescape(m[1]) }));
}

/** The picture without its lineup tooltips: each team text as it was before lineups. */
const withoutLineups = (svg: string) =>
  svg.replace(/<g class="lineup"><title>[^<]*<\/title>(<text class="team"(?:(?!<\/text>).)*<\/text>)<\/g>/g, "$1");

/** The tooltip the picture gives a registration's team names: players, substitutes, coaches, each marked. */
function expectedTitle(r: ViewRegistration): string {
  const order = { player: 0, substitute: 1, coach: 2 };
  const role = { player: "", substitute: "Substitute", coach: "Coach" };
  const entries = [...r.lineup].sort((a, b) => order[a.role] - order[b.role]).map((e) => {
    const notes = [e.captain ? "C" : "", role[e.role], e.country ?? ""].filter(Boolean);
    return notes.length ? `${e.handle} (${notes.join(", ")})` : e.handle;
  });
  return `${r.teams.name} — ${entries.join(", ")}`;
}

/** `view` with every lineup emptied. */
const noLineups = (view: PublicView): PublicView => ({ ...view, registrations: view.registrations.map((r) => ({ ...r, lineup: [] })) });

/** One match's group in the SVG. */
function matchSvg(svg: string, id: string): string {
  const start = svg.indexOf(`<g class="match" data-match-id="${id}"`);
  expect(start, `match ${id} drawn`).toBeGreaterThanOrEqual(0);
  const next = svg.indexOf(`<g class="match"`, start + 1);
  return svg.slice(start, next < 0 ? undefined : next);
}

const stageOf = (svg: string) => Number(/data-stage="(\d+)"/.exec(svg)?.[1]);

/** The teams that play in a stage's matches (or, before it starts, every registered team). */
function participants(view: PublicView, stage: number): string[] {
  const ids = new Set<string>();
  for (const m of view.matches) {
    if (m.stage !== stage) continue;
    if (m.team1_id) ids.add(m.team1_id);
    if (m.team2_id) ids.add(m.team2_id);
    for (const o of m.opponents ?? []) ids.add(o.team_id);
  }
  return ids.size ? [...ids] : view.registrations.map((r) => r.team_id);
}

/** Everything every picture must satisfy. */
function checkPicture(view: PublicView, options: RenderOptions): ReturnType<typeof renderBracket> {
  const out = renderBracket(view, options);
  const { svg, width, height } = out;
  expect(xmlProblem(svg), "well-formed").toBeNull();
  for (const bad of FORBIDDEN) expect(svg, String(bad)).not.toMatch(bad);
  const root = /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="(\d+)" height="(\d+)" viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  expect(root, "root element").not.toBeNull();
  expect(root!.slice(1).map(Number)).toEqual([width, height, width, height]);
  expect(svg).toContain(`<rect class="background" width="${width}" height="${height}" fill="${THEMES[options.theme].bg}"/>`);
  expect(Number.isInteger(width) && Number.isInteger(height)).toBe(true);
  if (options.maxSide) expect(Math.max(width, height)).toBeLessThanOrEqual(options.maxSide);

  const boxes = cards(svg);
  for (const c of boxes) {
    expect(c.w).toBe(BOX_W);
    expect(c.h).toBe(BOX_H);
  }
  // A box with its series line above it; tables; none over another, all inside below the header.
  const rects = [...boxes.map((c) => ({ x: c.x, y: c.y - META_H, w: c.w, h: c.h + META_H })), ...tables(svg)];
  expect(overlaps(rects)).toEqual([]);
  for (const r of rects) {
    expect(r.x >= 0 && r.x + r.w <= width && r.y >= 70 && r.y + r.h <= height, `inside: ${JSON.stringify(r)}`).toBe(true);
  }
  expect(new Set(boxes.map((c) => c.id)).size).toBe(boxes.length);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The real font, to check that labels fit
// ---------------------------------------------------------------------------------------------

/** Advance widths (in em) of a TrueType font's characters (cmap format 4). */
function fontWidths(file: string): (ch: string) => number {
  const b = fs.readFileSync(file);
  const tables: Record<string, number> = {};
  for (let i = 0; i < b.readUInt16BE(4); i++) tables[b.toString("latin1", 12 + 16 * i, 16 + 16 * i)] = b.readUInt32BE(20 + 16 * i);
  const upm = b.readUInt16BE(tables.head + 18), metrics = b.readUInt16BE(tables.hhea + 34);
  const cmap = tables.cmap;
  let sub = 0;
  for (let i = 0; i < b.readUInt16BE(cmap + 2); i++) {
    const off = cmap + b.readUInt32BE(cmap + 8 + 8 * i);
    if (b.readUInt16BE(cmap + 4 + 8 * i) === 3 && b.readUInt16BE(cmap + 6 + 8 * i) === 1 && b.readUInt16BE(off) === 4) sub = off;
  }
  const segs = b.readUInt16BE(sub + 6) / 2,
    ends = sub + 14,
    starts = ends + 2 * segs + 2,
    deltas = starts + 2 * segs,
    ranges = deltas + 2 * segs;
  const glyph = (c: number) => {
    for (let s = 0; s < segs; s++) {
      if (b.readUInt16BE(ends + 2 * s) < c) continue;
      const start = b.readUInt16BE(starts + 2 * s);
      if (start > c) return 0;
      const ro = b.readUInt16BE(ranges + 2 * s), delta = b.readInt16BE(deltas + 2 * s);
      if (ro === 0) return (c + delta) & 0xffff;
      const g = b.readUInt16BE(ranges + 2 * s + ro + 2 * (c - start));
      return g ? (g + delta) & 0xffff : 0;
    }
    return 0;
  };
  return (ch) => b.readUInt16BE(tables.hmtx + 4 * Math.min(glyph(ch.codePointAt(0)!), metrics - 1)) / upm;
}

const require = createRequire(import.meta.url);
const interDir = path.dirname(require.resolve("@expo-google-fonts/inter/package.json"));
const regular = fontWidths(path.join(interDir, "400Regular", "Inter_400Regular.ttf"));
const bold = fontWidths(path.join(interDir, "700Bold", "Inter_700Bold.ttf"));
const measure = (text: string, size: number, isBold: boolean) =>
  [...text].reduce((sum, ch) => sum + (isBold ? bold : regular)(ch), 0) * size;

/** The drawn width of a team's row text in Inter: bold tag, then " name" (bold for the winner). */
const rowWidth = (t: { tag: string; name: string; bold: boolean }) =>
  measure(t.tag, 12, true) + (t.name ? measure(` ${t.name}`, 12, t.bold) : 0);

// ---------------------------------------------------------------------------------------------
// Arbitrary events
// ---------------------------------------------------------------------------------------------

const play = fc.record({
  fraction: fc.double({ min: 0, max: 1, noNaN: true }),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  bestOf: fc.constantFrom(1, 1, 3, 5),
  forfeitEvery: fc.constantFrom(0, 0, 4, 7),
  schedule: fc.boolean(),
});
type Play = { fraction: number; seed: number; bestOf: number; forfeitEvery: number; schedule: boolean };
const options = (p: Play, matches: number): BracketOptions => ({
  decide: Math.round(p.fraction * matches),
  seed: p.seed,
  bestOf: p.bestOf,
  finalBestOf: p.bestOf === 1 ? 1 : p.bestOf + 2,
  forfeitEvery: p.forfeitEvery || undefined,
  schedule: p.schedule,
});

const event = fc.oneof(
  fc.tuple(fc.integer({ min: 2, max: 64 }), play, fc.boolean())
    .map(([n, p, third]) => single(n, options(p, n), third)),
  fc.tuple(fc.integer({ min: 2, max: 64 }), play, fc.constantFrom("single" as const, "reset" as const))
    .map(([n, p, gf]) => double(n, options(p, 2 * n), gf)),
  fc.tuple(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 6 }), play)
    .map(([n, g, p]) => roundRobin(n, Math.max(1, Math.min(g, Math.floor(n / 2))), options(p, n * n / 2))),
  fc.tuple(fc.integer({ min: 3, max: 64 }), play).map(([n, p]) => swiss(n, options(p, n * 4))),
  // Draws allowed (section 19): a best of 1 or an even one, every few matches drawn.
  fc.tuple(fc.integer({ min: 2, max: 40 }), fc.constantFrom("round_robin" as const, "swiss" as const), play, fc.constantFrom(1, 2, 4))
    .map(([n, format, p, bestOf]) =>
      buildView({
        teams: Math.max(n, 3),
        stages: [{
          format,
          options: { draws: true, best_of: bestOf, ...(format === "round_robin" ? { groups: Math.max(1, Math.floor(n / 8)) } : {}) },
          play: { ...options(p, n * 4), bestOf, finalBestOf: bestOf, drawEvery: 3 },
        }],
      })
    ),
  // Free-for-all (section 20): lobbies of 3 to 20, 1 to 6 games, 1 to 3 rounds dealt from seeds or standings.
  fc.tuple(
    fc.integer({ min: 3, max: 64 }),
    fc.integer({ min: 3, max: 20 }),
    fc.integer({ min: 1, max: 6 }),
    fc.integer({ min: 1, max: 3 }),
    fc.constantFrom("seed", "standings"),
    play,
  ).map(([n, size, games, rounds, draw, p]) =>
    ffa(n, { lobby_size: size, games, rounds, draw }, {
      decide: Math.round(p.fraction * rounds * games * Math.ceil(n / size)),
      seed: p.seed,
    })
  ),
  fc.tuple(fc.integer({ min: 0, max: 64 }), fc.constantFrom<Format>("single_elimination", "round_robin", "swiss", "ffa"))
    .map(([n, f]) => registration(n, f)),
);

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe("the bracket picture, for any event of 2 to 64 teams", () => {
  it("is well-formed, self-contained, sized as it says, with every team of its stage and no box over another", () => {
    const limits = fc.option(fc.constantFrom(1200, 2000, 4096), { nil: undefined });
    fc.assert(
      fc.property(event, fc.constantFrom("light" as const, "dark" as const), limits, (view, theme, maxSide) => {
        const { svg, clipped } = checkPicture(view, { theme, maxSide });
        if (clipped) {
          expect(svg).toMatch(/<text class="clipped"[^>]*>[^<]+<\/text>/);
          return;
        }
        expect(svg).not.toContain(`class="clipped"`);
        const shown = new Map(teamTexts(svg).map((t) => [t.id, t]));
        const stage = stageOf(svg);
        for (const id of participants(view, stage)) {
          const team = view.registrations.find((r) => r.team_id === id)!.teams;
          expect(shown.get(id)?.tag, `${team.tag} in stage ${stage}`).toBe(team.tag);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("draws every match of an elimination or swiss stage once, byes and TBDs as they are", () => {
    fc.assert(
      fc.property(event, (view) => {
        const { svg } = renderBracket(view, { theme: "light" });
        const stage = view.stages[stageOf(svg) - 1];
        if (stage.status === "pending" || stage.format === "round_robin" || stage.format === "ffa") return;
        const drawn = cards(svg);
        const matches = view.matches.filter((m) => m.stage === stage.number);
        expect(drawn.map((c) => c.id).sort()).toEqual(matches.map((m) => m.id).sort());
        const byes = (svg.match(/<text class="slot"[^>]*>BYE</g) ?? []).length;
        const tbds = (svg.match(/<text class="slot"[^>]*>TBD</g) ?? []).length;
        const empty = (m: ViewMatch) => (m.team1_id ? 0 : 1) + (m.team2_id ? 0 : 1);
        const idleReset = (m: ViewMatch) => m.bracket === "grand_final" && m.status === "bye";
        // Every side without a team says BYE or TBD (an unneeded reset says "Not needed" instead).
        expect(byes + tbds).toBe(matches.filter((m) => !idleReset(m)).reduce((n, m) => n + empty(m), 0));
        // A bye with its team has one BYE; a match still waiting for teams has no BYE.
        for (const m of matches) {
          if (m.status === "pending" && m.bracket !== "losers") {
            expect(matchSvg(svg, m.id)).not.toContain(">BYE<");
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  it("fits every team's tag and name in its row, in the font the PNG is drawn with", () => {
    const names = fc.string({
      unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZWWWMMMmmmw0123456789 &-'.éÅøß"),
      minLength: 1,
      maxLength: 80,
    });
    const tags = fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZWMWM0123456789"), minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(fc.array(fc.tuple(names, tags), { minLength: 4, maxLength: 16 }), fc.integer({ min: 1, max: 99 }), (teams, seed) => {
        const custom = Object.fromEntries(teams.map(([name, tag], i) => [i, { name: name.trim() || "x", tag: tag.trim() || "X" }]));
        const view = buildView({
          teams: makeTeams(teams.length, custom),
          stages: [{ format: "double_elimination", play: { decide: teams.length, seed } }],
        });
        const { svg } = checkPicture(view, { theme: "light" });
        for (const t of teamTexts(svg)) expect(rowWidth(t), `${t.tag} ${t.name}`).toBeLessThanOrEqual(NAME_W);
      }),
      { numRuns: 60 },
    );
  });
});

describe("lineups in the picture", () => {
  it("gives every drawn team name its lineup as a <title> (a tooltip), and nothing else changes: no size, no place", () => {
    fc.assert(
      fc.property(event, fc.constantFrom("light" as const, "dark" as const), (view, theme) => {
        const { svg, width, height } = checkPicture(view, { theme });
        const names = (svg.match(/<text class="team"/g) ?? []).length;
        const titles = lineupTitles(svg);
        expect(titles).toHaveLength(names);
        const registrations = new Map(view.registrations.map((r) => [r.team_id, r]));
        for (const { id, title } of titles) expect(title).toBe(expectedTitle(registrations.get(id)!));
        // Without the tooltips the picture is, byte for byte, the one drawn with no lineups.
        const bare = renderBracket(noLineups(view), { theme });
        expect(bare.svg).not.toContain(`class="lineup"`);
        expect([bare.width, bare.height]).toEqual([width, height]);
        expect(withoutLineups(svg)).toBe(bare.svg);
      }),
      { numRuns: 60 },
    );
  });

  it("escapes handles, marks the captain, substitutes, coaches and countries, and never shows a player's name, external id or game accounts", () => {
    const view = single(4, { decide: 1, seed: 2 });
    // As if a view carried more than its type says: the picture takes the lineup's public fields only.
    const entry = (e: ViewLineupEntry): ViewLineupEntry =>
      ({ ...e, name: "Secret Name", external_id: "secret-id", game_accounts: { steam: "secret-steam" } }) as ViewLineupEntry;
    const r = view.registrations[0];
    r.lineup = [
      entry({ player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d40", handle: "kim", country: null, role: "coach", captain: false }),
      entry({
        player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d41",
        handle: `<script>alert("x")</script>`,
        country: "SE",
        role: "player",
        captain: true,
      }),
      entry({ player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d42", handle: "a&b 'c'", country: null, role: "player", captain: false }),
      entry({ player_id: "5a0d4c1e-8f3b-4d2a-9c6e-1b7f3e9a2d43", handle: "]]><x/>", country: "NO", role: "substitute", captain: false }),
    ];
    view.registrations[1].lineup = [];
    for (const theme of ["light", "dark"] as const) {
      const { svg } = checkPicture(view, { theme });
      expect(svg).not.toMatch(/secret/i);
      expect(svg).not.toContain("<x/>");
      const titles = lineupTitles(svg);
      const first = titles.filter((t) => t.id === r.team_id);
      expect(first.length).toBeGreaterThan(0);
      for (const t of first) {
        expect(t.title).toBe(`${r.teams.name} — <script>alert("x")</script> (C, SE), a&b 'c', ]]><x/> (Substitute, NO), kim (Coach)`);
      }
      expect(svg).toContain(
        `<title>${r.teams.name} — &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; (C, SE), a&amp;b &apos;c&apos;, ]]&gt;&lt;x/&gt; (Substitute, NO), kim (Coach)</title>`,
      );
      // A team without a lineup: its names as before, without a tooltip.
      const second = view.registrations[1].team_id;
      expect(teamTexts(svg).some((t) => t.id === second)).toBe(true);
      expect(titles.some((t) => t.id === second)).toBe(false);
    }
  });
});

describe("the test's own XML check", () => {
  it("rejects what is not well-formed", () => {
    expect(xmlProblem(`<svg><g><text>a</text></g></svg>`)).toBeNull();
    for (
      const bad of [
        `<svg><g></svg>`,
        `<svg>a & b</svg>`,
        `<svg a="1" a="2"/>`,
        `<svg/><svg/>`,
        `<svg><text>x<y</text></svg>`,
        `<svg x=1/>`,
        `<svg>\u0001</svg>`,
        `<svg><g>`,
        `text<svg/>`,
      ]
    ) {
      expect(xmlProblem(bad), bad).not.toBeNull();
    }
  });
});

describe("single elimination", () => {
  it("puts the rounds left to right with their titles, and the third-place match under the final", () => {
    const view = single(8, { decide: 7, seed: 3 }, true);
    const { svg } = checkPicture(view, { theme: "light" });
    for (const title of ["Quarter-finals", "Semi-finals", "Final", "Third place"]) expect(svg).toContain(`>${title}</text>`);
    const at = new Map(cards(svg).map((c) => [c.id, c]));
    const round = (r: number) => view.matches.filter((m) => m.bracket === "winners" && m.round === r).map((m) => at.get(m.id)!);
    expect(new Set(round(1).map((c) => c.x)).size).toBe(1);
    expect(round(1)[0].x).toBeLessThan(round(2)[0].x);
    expect(round(2)[0].x).toBeLessThan(round(3)[0].x);
    const final = round(3)[0], third = at.get(view.matches.find((m) => m.bracket === "third_place")!.id)!;
    expect(third.x).toBe(final.x);
    expect(third.y).toBeGreaterThan(final.y + BOX_H);
    // Each semi-final sits between the two quarter-finals that feed it.
    const [q1, q2] = round(1), s1 = round(2)[0];
    expect(s1.y).toBe(Math.round((q1.y + q2.y) / 2));
    // One connector per match whose next match is drawn (third place and final have none).
    const wires = /<path class="wires" d="([^"]+)"/.exec(svg)![1].match(/M/g)!.length;
    expect(wires).toBe(6);
  });

  it("marks the winner bold with the accent, dims the loser, and shows BYE, TBD, FF, series and times", () => {
    const view = single(6, { decide: 3, seed: 5, bestOf: 3, forfeitEvery: 3, schedule: true });
    const { svg } = checkPicture(view, { theme: "light" });
    for (const m of view.matches.filter((x) => x.status === "completed")) {
      const g = matchSvg(svg, m.id);
      const winner = teamTexts(g).find((t) => t.id === m.winner_id)!;
      const loserId = m.winner_id === m.team1_id ? m.team2_id : m.team1_id;
      expect(g).toMatch(new RegExp(`data-team-id="${m.winner_id}"[^>]*font-weight="700"`));
      expect(g).toMatch(new RegExp(`data-team-id="${loserId}"[^>]*fill="${THEMES.light.muted}"`));
      expect(winner.bold).toBe(true);
      expect(g).toContain(`fill="${THEMES.light.accent}"`);
      expect(g).toContain("Bo3");
      for (const game of m.games as ViewGame[]) expect(g).toContain(`${game.team1_score}–${game.team2_score}`);
      if (m.forfeit) expect(g).toMatch(/>FF</);
      expect(g).not.toContain("UTC");
    }
    expect(view.matches.some((m) => m.forfeit)).toBe(true);
    // 6 teams in 8 slots: seeds 1 and 2 have byes.
    expect((svg.match(/>BYE</g) ?? []).length).toBe(2);
    expect(svg).toContain(">TBD<");
    const upcoming = view.matches.find((m) => m.status === "ready" && m.scheduled_at)!;
    const g = matchSvg(svg, upcoming.id);
    expect(g).toMatch(/>Mar 1 \d\d:00 UTC</);
  });

  it("escapes every name and drops characters XML cannot hold", () => {
    const teams = makeTeams(4, {
      0: { name: `<script>alert("x")</script> & 'friends'`, tag: `<&>"'` },
      1: { name: "Bell\u0007 Tab\tNew\nLine \ud800", tag: "B\u0000L" },
    });
    const view = buildView({ name: `Cup <&> "2027" 'EU'`, teams, stages: [{ format: "single_elimination", play: { decide: 1 } }] });
    for (const theme of ["light", "dark"] as const) {
      const { svg } = checkPicture(view, { theme });
      expect(svg).toContain("&lt;&amp;&gt;&quot;&apos;");
      expect(svg).toContain("&lt;script&gt;alert(&quot;x&quot;)");
      expect(svg).toContain("Cup &lt;&amp;&gt; &quot;2027&quot; &apos;EU&apos;");
      expect(svg).toContain(">BL</tspan>");
      expect(svg).not.toContain("<script");
    }
  });
});

describe("long tags", () => {
  it("shows a tag whole when it fits its row, so that teams sharing a prefix stay apart; a longer one is cut, whole in the match's title", () => {
    const tags = ["NAVIJR-A9Z", "NAVIJR-B9Z", "NAVIJR-C9Z", "NAVIJR-D9Z", "MOUZ-NXT-ACAD"];
    const wide = "WWWWWWWWWWWWWWWWWWWW"; // 20 characters, the most a tag may have: wider than any row
    const teams = makeTeams(
      6,
      Object.fromEntries([...tags, wide].map((tag, i) => [i, { tag, name: `Natus Vincere Junior ${tag.slice(-3)}` }])),
    );
    for (const format of ["single_elimination", "double_elimination", "round_robin", "swiss"] as Format[]) {
      const { svg } = checkPicture(buildView({ teams, stages: [{ format, play: { decide: 3 } }] }), { theme: "light" });
      for (const tag of tags) expect(svg, `${format}: ${tag}`).toContain(`>${tag}</tspan>`);
      expect(svg, format).toMatch(/>W+…<\/tspan>/);
      if (format !== "round_robin") expect(svg, format).toContain(wide);
    }
  });
});

describe("a match whose participants' report is open (contract section 18)", () => {
  const LABEL = { awaiting_confirmation: "Awaiting confirmation", disputed: "Result disputed" } as const;

  /** The view with its first ready matches (with both teams) given an open report each, in `states` order. */
  function reported(view: PublicView, states: (keyof typeof LABEL)[]): { view: PublicView; open: ViewMatch[] } {
    const copy: PublicView = structuredClone(view);
    const ready = copy.matches.filter((m) => m.status === "ready" && m.team1_id && m.team2_id);
    expect(ready.length, "ready matches to report").toBeGreaterThanOrEqual(states.length);
    return { view: copy, open: states.map((state, i) => withReport(ready[i], state)) };
  }

  it("elimination and swiss: a label in the warning colour above the box, no winner, no score, the same boxes in the same places", () => {
    const events = [
      single(8, { decide: 1, seed: 5, bestOf: 3, schedule: true }),
      double(8, { decide: 2, seed: 6, schedule: true }),
      swiss(8, { decide: 1, seed: 7 }),
    ];
    for (const base of events) {
      const { view, open } = reported(base, ["awaiting_confirmation", "disputed"]);
      for (const theme of ["light", "dark"] as const) {
        const t = THEMES[theme];
        const before = checkPicture(base, { theme });
        const after = checkPicture(view, { theme });
        const where = `${view.stages[0].format} ${theme}`;
        expect([after.width, after.height], where).toEqual([before.width, before.height]);
        expect(cards(after.svg), where).toEqual(cards(before.svg));
        for (const m of open) {
          const state = m.report!.state as keyof typeof LABEL;
          const g = matchSvg(after.svg, m.id);
          expect(g, where).toContain(
            `data-report="${state}"`,
          );
          const label = new RegExp(
            `<text class="report" data-report="${state}" x="${BOX_W}" y="-4" text-anchor="end" font-size="10" fill="${t.warn}">([^<]*)</text>`,
          ).exec(g);
          expect(label?.[1], `${where}: the label`).toBe(LABEL[state]);
          expect(g, `${where}: the box's outline`).toContain(`stroke="${t.warn}"`);
          expect(g, `${where}: the title`).toMatch(new RegExp(`<title>[^<]* \\(${LABEL[state].toLowerCase()}\\)</title>`));
          // Not a result: no winner marked (bold, accent), no loser dimmed, no score cell's text.
          expect(teamTexts(g).map((x) => [x.bold, x.muted]), where).toEqual([[false, false], [false, false]]);
          expect(g, where).not.toContain(`fill="${t.accent}"`);
          expect(g, where).not.toMatch(new RegExp(`<text x="${BOX_W - 16}"`));
          // The match has been played: the label takes the time's place, and the series (Bo3) still fits beside it.
          expect(g, where).not.toContain("UTC");
          const series = /<text x="0" y="-4">([^<]*)<\/text>/.exec(g)?.[1];
          if ((m.best_of ?? 1) > 1) expect(series, where).toBe(`Bo${m.best_of}`);
          if (series) expect(measure(series, 10, false) + 8, where).toBeLessThan(BOX_W - measure(LABEL[state], 10, false));
          expect(measure(LABEL[state], 10, false), where).toBeLessThan(BOX_W);
          // The rest of the box as before.
          const time = /<text x="232" y="-4" text-anchor="end">[^<]*<\/text>/;
          const plain = matchSvg(before.svg, m.id).replace(time, "");
          expect(
            g.replace(/<text class="report"[^>]*>[^<]*<\/text>/, "").replace(`stroke="${t.warn}"`, `stroke="${t.border}"`)
              .replace(/ \((awaiting confirmation|result disputed)\)<\/title>/, "</title>"),
            where,
          ).toBe(plain);
        }
        const others = base.matches.filter((m) => !open.some((o) => o.id === m.id)).map((m) => m.id);
        for (const id of others) expect(matchSvg(after.svg, id), where).toBe(matchSvg(before.svg, id));
      }
    }
  });

  it("round robin: the match's two cross-table cells show ? with the state as their tooltip, never a score", () => {
    const base = roundRobin(8, 2, { decide: 5, seed: 9 });
    const { view, open } = reported(base, ["awaiting_confirmation", "disputed"]);
    const before = checkPicture(base, { theme: "light" });
    const { svg, width, height } = checkPicture(view, { theme: "light" });
    expect([width, height]).toEqual([before.width, before.height]);
    const notes = [...svg.matchAll(/<g class="note"><title>([^<]*)<\/title><text [^>]*fill="([^"]+)"[^>]*>([^<]*)<\/text><\/g>/g)]
      .map((x) => [x[1], x[2], x[3]]);
    expect(notes.sort()).toEqual(
      open.flatMap((m) => [LABEL[m.report!.state as keyof typeof LABEL], LABEL[m.report!.state as keyof typeof LABEL]])
        .map((label) => [label, THEMES.light.muted, "?"]).sort(),
    );
    // Nothing else changed: the same cells of results, and the reported 2–0 nowhere that was not there before.
    expect(svg.replace(/<g class="note"><title>[^<]*<\/title>(<text [^>]*>\?<\/text>)<\/g>/g, "")).toBe(before.svg);
  });
});

describe("a drawn match (contract section 19)", () => {
  const swissDraws = (bestOf: number) =>
    buildView({
      teams: 8,
      stages: [{ format: "swiss", options: { draws: true, rounds: 3, best_of: bestOf }, play: { drawEvery: 3, seed: 4, bestOf } }],
    });
  const roundRobinDraws = () =>
    buildView({ teams: 8, stages: [{ format: "round_robin", options: { draws: true, groups: 2 }, play: { drawEvery: 3, seed: 5 } }] });
  /** The score cells' texts of a match's box: [text, bold]. */
  const scores = (g: string) =>
    [...g.matchAll(new RegExp(`<text x="${BOX_W - 16}" y="\\d+" text-anchor="middle"([^>]*)>([^<]*)</text>`, "g"))]
      .map((x) => [x[2], x[1].includes(`font-weight="700"`)]);
  /** A match's group, without the standings drawn after the last one. */
  const boxOf = (svg: string, id: string) => matchSvg(svg, id).split(`<text class="title"`)[0];
  const DRAW_LABEL = `<text class="draw" x="${BOX_W}" y="-4" text-anchor="end" font-weight="700">Draw</text>`;

  it("swiss: neither side marked the winner nor dimmed, both scores alike, both sides' bars alike, and Draw where the time goes", () => {
    for (const bestOf of [1, 2]) {
      const view = swissDraws(bestOf);
      const drawn = view.matches.filter((m) => m.draw);
      expect(drawn.length, "drawn matches").toBeGreaterThanOrEqual(2);
      for (const m of drawn) {
        expect([m.status, m.winner_id, m.team1_score], "a draw as the API gives it").toEqual(["completed", null, m.team2_score]);
      }
      for (const theme of ["light", "dark"] as const) {
        const t = THEMES[theme];
        const { svg } = checkPicture(view, { theme });
        const where = `best of ${bestOf}, ${theme}`;
        for (const m of drawn) {
          const g = boxOf(svg, m.id);
          expect(teamTexts(g).map((x) => [x.id, x.bold, x.muted]), where).toEqual([[m.team1_id, false, false], [m.team2_id, false, false]]);
          expect(g, `${where}: the winner's accent`).not.toContain(`fill="${t.accent}"`);
          expect(scores(g), where).toEqual([[String(m.team1_score), true], [String(m.team2_score), true]]);
          expect(g, where).toContain(DRAW_LABEL);
          // The label is drawn in the muted group (10 px), right-aligned above the box, as a time would be.
          expect(g, where).toMatch(new RegExp(`<g font-size="10" fill="${t.muted}">(?:(?!</g>).)*${DRAW_LABEL}`));
          expect(g, where).toContain(`<path class="draw-bars" d="M1 1h3v23h-3zM1 25h3v23h-3z" fill="${t.muted}"/>`);
          expect(g, where).toMatch(new RegExp(`<title>[^<]*: ${m.team1_score}–${m.team2_score} \\(draw\\)</title>`));
          const series = /<text x="0" y="-4">([^<]*)<\/text>/.exec(g)?.[1];
          if (bestOf > 1) {
            expect(series, where).toBe(
              [`Bo${bestOf}`, ...(m.games as ViewGame[]).map((x) => `${x.team1_score}–${x.team2_score}`)].join(" · "),
            );
            expect(measure(series!, 10, false) + 8 + measure("Draw", 10, true), `${where}: series and label side by side`)
              .toBeLessThanOrEqual(BOX_W);
          }
        }
        for (const m of view.matches.filter((x) => !x.draw)) {
          const g = boxOf(svg, m.id);
          expect(g, where).not.toContain(`class="draw`);
          expect(g, where).not.toContain("(draw)");
        }
      }
    }
  });

  it("swiss standings: W–D–L and points, ranked by points; without draws W–L, and points when the entries have them", () => {
    const view = swissDraws(1);
    const { svg } = checkPicture(view, { theme: "light" });
    const table = withoutLineups(svg).split(`<g class="standings">`)[1].split("</g>")[0];
    const heads = [...table.matchAll(/font-weight="700"[^>]*>([^<]*)<\/text>/g)].map((x) => x[1]).slice(0, 5);
    expect(heads).toEqual(["#", "Team", "W–D–L", "Pts", "Buchholz"]);
    const standings = view.stages[0].standings;
    expect(standings.some((st) => (st.draws ?? 0) > 0)).toBe(true);
    for (const st of standings) {
      expect(table).toMatch(
        new RegExp(
          `data-team-id="${st.team_id}"[^]*?>${st.wins}–${st.draws}–${st.losses}<[^]*?font-weight="700"[^>]*>${st.points}<[^]*?>${st.buchholz}<`,
        ),
      );
    }
    expect(standings.map((st) => st.points)).toEqual(standings.map((st) => st.points).sort((a, b) => b! - a!));

    // No draws allowed, none recorded: the record stays W–L (the points, today's wins, beside it).
    const plain = swiss(8, { seed: 4 }, 3);
    const plainTable = withoutLineups(checkPicture(plain, { theme: "light" }).svg).split(`<g class="standings">`)[1].split("</g>")[0];
    expect(plainTable).toContain(">W–L</text>");
    expect(plainTable).not.toContain("W–D–L");
    for (const st of plain.stages[0].standings) expect(st.points).toBe(st.wins);
    // Entries without points (as before section 19): no Pts column.
    const old = structuredClone(plain);
    for (const st of old.stages[0].standings as Array<{ points?: number }>) delete st.points;
    const oldTable = checkPicture(old, { theme: "light" }).svg.split(`<g class="standings">`)[1];
    expect(oldTable).not.toContain(">Pts</text>");
  });

  it("round robin: a drawn match's two cells show its score on the head's tint, in the text colour, Draw on hover; the standings have W, D, L, Pts", () => {
    const view = roundRobinDraws();
    const drawn = view.matches.filter((m) => m.draw);
    expect(drawn.length).toBeGreaterThanOrEqual(2);
    for (const theme of ["light", "dark"] as const) {
      const t = THEMES[theme];
      const { svg } = checkPicture(view, { theme });
      const cells = [
        ...svg.matchAll(
          /<rect [^>]*fill="([^"]+)"\/><g class="note"><title>Draw<\/title><text [^>]*fill="([^"]+)"([^>]*)>([^<]*)<\/text><\/g>/g,
        ),
      ]
        .map((x) => [x[1], x[2], x[3].includes("font-weight"), x[4]]);
      expect(cells.sort(), theme).toEqual(
        drawn.flatMap((m) => [`${m.team1_score}–${m.team2_score}`, `${m.team2_score}–${m.team1_score}`])
          .map((text) => [t.surfaceAlt, t.text, false, text]).sort(),
      );
      for (const g of [1, 2]) {
        const table = withoutLineups(svg).split(`<g class="standings">`)[g].split("</g>")[0];
        const heads = [...table.matchAll(/font-weight="700"[^>]*>([^<]*)<\/text>/g)].map((x) => x[1]).slice(0, 6);
        expect(heads, `group ${g}`).toEqual(["#", "Team", "W", "D", "L", "Pts"]);
        for (const st of view.stages[0].standings.filter((x) => x.group === g)) {
          expect(table).toMatch(
            new RegExp(`data-team-id="${st.team_id}"[^]*?>${st.wins}<[^]*?>${st.draws}<[^]*?>${st.losses}<[^]*?>${st.points}<`),
          );
        }
      }
    }
    // A league without draws keeps its columns: W, L, Pts.
    const plain = checkPicture(roundRobin(8, 2, { seed: 5 }), { theme: "light" }).svg;
    expect(plain).not.toContain(">D</text>");
    expect(plain).not.toContain("<title>Draw</title>");
  });

  it("a stage that allows draws shows the D column before any is recorded", () => {
    const view = buildView({ teams: 6, stages: [{ format: "round_robin", options: { draws: true }, play: { decide: 0 } }] });
    expect(view.matches.some((m) => m.draw)).toBe(false);
    expect(checkPicture(view, { theme: "dark" }).svg).toContain(">D</text>");
  });
});

describe("double elimination", () => {
  it("draws the winners bracket above the losers bracket and the grand final and reset to the right", () => {
    const view = double(8, { seed: 2, pick: (m) => (m.bracket === "grand_final" && m.round === 1 ? 2 : undefined) });
    const { svg } = checkPicture(view, { theme: "dark" });
    for (const title of ["Winners bracket", "Losers bracket", "Losers round 1", "Losers final", "Winners final", "Grand final", "Reset"]) {
      expect(svg).toContain(`>${title}</text>`);
    }
    const at = new Map(cards(svg).map((c) => [c.id, c]));
    const of = (bracket: string) => view.matches.filter((m) => m.bracket === bracket).map((m) => at.get(m.id)!);
    const lowestWinner = Math.max(...of("winners").map((c) => c.y));
    expect(Math.min(...of("losers").map((c) => c.y))).toBeGreaterThan(lowestWinner);
    const [gf, reset] = view.matches.filter((m) => m.bracket === "grand_final").map((m) => at.get(m.id)!);
    const right = Math.max(...[...of("winners"), ...of("losers")].map((c) => c.x));
    expect(gf.x).toBeGreaterThan(right);
    expect(reset.x).toBeGreaterThan(gf.x);
    expect(reset.y).toBe(gf.y);
    // The losers champion won the grand final: the reset is played.
    expect(svg).not.toContain("Not needed");
  });

  it("says the reset is not needed when the winners champion takes the grand final", () => {
    const view = double(4, { seed: 2, pick: (m) => (m.bracket === "grand_final" ? 1 : undefined) });
    expect(view.matches.find((m) => m.bracket === "grand_final" && m.round === 2)?.status).toBe("bye");
    const { svg } = checkPicture(view, { theme: "light" });
    expect(svg).toContain(">Not needed<");
    const single = double(4, { seed: 2 }, "single");
    const drawn = checkPicture(single, { theme: "light" }).svg;
    expect(drawn).not.toContain(">Reset<");
    expect(drawn).toContain(">Grand final<");
  });

  it("shows a losers-bracket bye waiting for its team as TBD against BYE, and one fed by two byes as BYE against BYE", () => {
    // 5 teams in 8: seeds 1-3 have winners byes; losers round 1 gets one loser (4 v 5) and two empty byes.
    const view = double(5, { decide: 0 });
    const { svg } = checkPicture(view, { theme: "light" });
    const lb1 = view.matches.filter((m) => m.bracket === "losers" && m.round === 1);
    const slots = lb1.map((m) => {
      const g = matchSvg(svg, m.id);
      return [...g.matchAll(/class="slot"[^>]*>(\w+)</g)].map((x) => x[1]).join("/");
    });
    expect(slots).toEqual(["BYE/TBD", "BYE/BYE"]);
  });

  it("renders 1,024 teams in under 250 ms", () => {
    const view = double(1024, { decide: 1500, bestOf: 3, schedule: true, seed: 9 });
    renderBracket(view, { theme: "dark" }); // warm up
    const times: number[] = [];
    let svg = "";
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      svg = renderBracket(view, { theme: i % 2 ? "dark" : "light" }).svg;
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    console.log(`1,024-team double elimination: ${times.map((t) => t.toFixed(1)).join(", ")} ms, ${(svg.length / 1e6).toFixed(2)} MB`);
    // The fastest run: the work itself, not the other test files sharing the CPU.
    expect(times[0]).toBeLessThan(250);
    expect(cards(svg)).toHaveLength(view.matches.length);
    expect(xmlProblem(svg)).toBeNull();
  });
});

describe("round robin", () => {
  it("draws a standings table and a cross-table per group, the row team's score first", () => {
    const view = roundRobin(10, 2, { decide: 12, seed: 4, forfeitEvery: 5 });
    const { svg } = checkPicture(view, { theme: "light" });
    expect((svg.match(/<g class="standings">/g) ?? []).length).toBe(2);
    for (const head of ["#", "Team", "W", "L", "Pts"]) expect(svg).toContain(`>${head}</text>`);
    expect((svg.match(/<g class="cross-table">/g) ?? []).length).toBe(2);
    for (const g of [1, 2]) expect(svg).toContain(`>Group ${g}</text>`);
    const crossTables = svg.split(`<g class="cross-table">`).slice(1).map((s) => s.split("</g>")[0]).join("");
    // Diagonal: one "–" per team; a cell per side of every completed match, empty otherwise.
    expect((crossTables.match(/>–</g) ?? []).length).toBe(10);
    const done = view.matches.filter((m) => m.status === "completed");
    const cells = [...crossTables.matchAll(/>(\d+–\d+|W|FF)</g)].map((m) => m[1]).sort();
    const expected = done.flatMap((m) =>
      m.forfeit ? ["W", "FF"] : [`${m.team1_score}–${m.team2_score}`, `${m.team2_score}–${m.team1_score}`]
    ).sort();
    expect(cells).toEqual(expected);
    // Standings rows in group order with W, L and points.
    const first = view.stages[0].standings.find((s) => s.group === 1 && s.group_position === 1)!;
    const table = withoutLineups(svg).split(`<g class="standings">`)[1].split("</g>")[0]; // lineup groups unwrapped: the first </g> ends the table
    expect(table).toMatch(new RegExp(`data-team-id="${first.team_id}"[^]*?>${first.wins}<[^]*?>${first.losses}<[^]*?>${first.points}<`));
  });

  it("draws one group with ?group and refuses a group that does not exist", () => {
    const view = roundRobin(12, 3, { decide: 10 });
    const { svg } = checkPicture(view, { theme: "dark", group: 2 });
    const inGroup = new Set(view.stages[0].standings.filter((s) => s.group === 2).map((s) => s.team_id));
    const shown = new Set(teamTexts(svg).map((t) => t.id));
    expect(shown).toEqual(inGroup);
    expect(svg).toContain(">Group 2</text>");
    expect(svg).not.toContain(">Group 1</text>");
    expect(() => renderBracket(view, { theme: "dark", group: 4 })).toThrow(RangeError);
    expect(() => renderBracket(view, { theme: "dark", group: 0 })).toThrow(/group 0/);
    expect(() => renderBracket(view, { theme: "dark", rounds: [1, 1] })).toThrow(RangeError);
  });

  it("keeps the first groups that fit under maxSide and names the rest", () => {
    const view = roundRobin(64, 8, { decide: 100 });
    const all = checkPicture(view, { theme: "light" });
    expect(all.clipped).toBeNull();
    const max = Math.max(all.width, all.height) - 1;
    const { svg, clipped } = checkPicture(view, { theme: "light", maxSide: max });
    const groups = [...svg.matchAll(/>Group (\d+)<\/text>/g)].map((m) => Number(m[1]));
    expect(groups.length).toBeLessThan(8);
    expect(groups).toEqual(groups.map((_, i) => i + 1));
    expect(clipped).toBe(
      `Groups 1–${groups.length} of 8 shown; ?group=${groups.length + 1}` +
        `${groups.length + 1 < 8 ? " to ?group=8" : ""} for the rest`,
    );
  });
});

describe("swiss", () => {
  it("draws the rounds drawn so far with byes, the rounds to come, and the standings with W–L and Buchholz", () => {
    const view = swiss(9, { decide: 6, seed: 8, schedule: true });
    const { svg } = checkPicture(view, { theme: "light" });
    expect(view.matches.some((m) => m.round === 2)).toBe(true);
    expect(svg).toContain(">Round 1</text>");
    expect(svg).toContain(">Round 2</text>");
    expect(svg).toContain(">Drawn when round 2 ends<");
    expect(svg).toContain(">Drawn when round 3 ends<");
    const bye = view.matches.find((m) => m.status === "bye")!;
    expect(cards(svg).find((c) => c.id === bye.id)?.status).toBe("bye");
    const table = withoutLineups(svg).split(`<g class="standings">`)[1].split("</g>")[0]; // lineup groups unwrapped: the first </g> ends the table
    for (const head of ["#", "Team", "W–L", "Buchholz"]) expect(table).toContain(`>${head}</text>`);
    for (const st of view.stages[0].standings) {
      expect(table).toMatch(new RegExp(`data-team-id="${st.team_id}"[^]*?>${st.wins}–${st.losses}<[^]*?>${st.buchholz}<`));
    }
  });

  it("selects rounds with ?round and refuses rounds beyond the stage's", () => {
    const view = swiss(16, { seed: 3 });
    const { svg } = checkPicture(view, { theme: "light", rounds: [2, 3] });
    const ids = new Set(cards(svg).map((c) => c.id));
    expect(ids).toEqual(new Set(view.matches.filter((m) => m.round >= 2 && m.round <= 3).map((m) => m.id)));
    expect(() => renderBracket(view, { theme: "light", rounds: [4, 5] })).toThrow(RangeError);
    expect(() => renderBracket(view, { theme: "light", group: 1 })).toThrow(RangeError);
  });

  it("fits 1,024 teams under maxSide by showing fewer pairings and standings rows, and says so", () => {
    const view = swiss(1024, { decide: 1200, seed: 1 });
    const { clipped, svg } = checkPicture(view, { theme: "dark", maxSide: 4096 });
    expect(clipped).toMatch(/^Pairings 1–\d+ of each round shown; standings 1–\d+ of 1024 shown$/);
    const shown = Number(/Pairings 1–(\d+)/.exec(clipped!)![1]);
    expect(cards(svg).length).toBe(view.matches.filter((m) => m.position <= shown).length);
  });
});

describe("free-for-all (contract section 20)", () => {
  /** The SVG without lineup or note tooltips: every cell's text is then a plain `<text>`. */
  const plain = (svg: string) =>
    withoutLineups(svg).replace(/<g class="note"><title>[^<]*<\/title>(<text(?:(?!<\/text>).)*<\/text>)<\/g>/g, "$1");
  const texts = (part: string) =>
    [...part.matchAll(/<text[^>]*>((?:(?!<\/text>).)*)<\/text>/g)].map((m) => unescape(m[1].replace(/<[^>]+>/g, "")));
  /** A lobby's group: its title, then its table's head and rows, each a list of cell texts. */
  function lobby(svg: string, id: string, games: number) {
    const p = plain(svg);
    const start = p.indexOf(`<g class="lobby" data-match="${id}"`);
    expect(start, `lobby ${id} drawn`).toBeGreaterThanOrEqual(0);
    const part = p.slice(start, p.indexOf("</g></g>", start));
    const [title, ...cells] = texts(part);
    const width = games + 5;
    const rows = Array.from({ length: cells.length / width }, (_, i) => cells.slice(i * width, (i + 1) * width));
    return { title, head: rows[0], rows: rows.slice(1), part };
  }
  /** The standings table's rows (cell texts), head first. */
  function standingsRows(svg: string): string[][] {
    const p = plain(svg);
    const part = p.slice(p.indexOf(`<g class="standings">`), p.indexOf("</g>", p.indexOf(`<g class="standings">`)));
    const cells = texts(part);
    return Array.from({ length: cells.length / 6 }, (_, i) => cells.slice(i * 6, (i + 1) * 6));
  }
  const label = (o: { team_tag: string; team_name: string }) => `${o.team_tag} ${o.team_name}`;

  it("draws each lobby as a leaderboard: placement, team, seed, each game's placement · points, kills and points; the winner marked once complete", () => {
    const view = ffa(8, { lobby_size: 3, games: 2 }, { decide: 4, seed: 3 });
    const { svg } = checkPicture(view, { theme: "light" });
    const lobbies = view.matches.filter((m) => m.opponents);
    expect(lobbies.map((m) => m.opponents!.length)).toEqual([3, 3, 2]);
    expect(lobbies.map((m) => m.status)).toEqual(["completed", "ready", "ready"]);
    expect((svg.match(/<g class="lobby" /g) ?? []).length).toBe(3);
    expect(svg).toContain(">Round 1</text>");
    for (const m of lobbies) {
      const drawn = lobby(svg, m.id, 2);
      expect(drawn.head).toEqual(["#", "Team", "Seed", "G1", "G2", "K", "Pts"]);
      expect(drawn.title).toBe(`Lobby ${m.position} · ${m.status === "completed" ? "completed" : `game ${m.games.length} of 2`}`);
      expect(drawn.rows).toEqual(m.opponents!.map((o) => [
        String(o.placement),
        label(o),
        String(o.seed),
        ...[0, 1].map((g) => {
          const r = (m.games as ViewLobbyGame[])[g]?.results.find((x) => x.team_id === o.team_id);
          return r ? `${r.placement} · ${r.points}` : "–";
        }),
        String(o.kills),
        String(o.points),
      ]));
      // Each game's cell says the kills on hover.
      for (const g of m.games as ViewLobbyGame[]) {
        for (const r of g.results) {
          expect(svg).toContain(
            `<title>Game ${g.number}: placed ${r.placement}, ${r.kills} kill${r.kills === 1 ? "" : "s"}, ${r.points} points</title>`,
          );
        }
      }
      // The winner: bold, its points on the tint, once the lobby completes; no one before.
      const tints = (drawn.part.match(new RegExp(`fill="${THEMES.light.winTint}"`, "g")) ?? []).length;
      const bold = teamTexts(drawn.part).filter((t) => t.bold).map((t) => t.id);
      if (m.status === "completed") {
        expect(tints).toBe(1);
        expect(bold).toEqual([m.winner_id]);
        expect(m.winner_id).toBe(m.opponents![0].team_id);
      } else {
        expect(tints).toBe(0);
        expect(bold).toEqual([]);
      }
    }
  });

  it("lists a lobby's teams by seed with dashes before its first game", () => {
    const view = ffa(12, { lobby_size: 6, games: 3 }, { decide: 0 });
    const { svg } = checkPicture(view, { theme: "dark" });
    const lobbies = view.matches.filter((m) => m.opponents);
    expect(lobbies).toHaveLength(2);
    for (const m of lobbies) {
      const drawn = lobby(svg, m.id, 3);
      expect(drawn.title).toBe(`Lobby ${m.position} · not played yet`);
      // Snake order: lobby 1 holds seeds 1, 4, 5, 8, 9, 12; lobby 2 seeds 2, 3, 6, 7, 10, 11.
      const seeds = m.position === 1 ? [1, 4, 5, 8, 9, 12] : [2, 3, 6, 7, 10, 11];
      expect(drawn.rows.map((r) => r[2])).toEqual(seeds.map(String));
      for (const r of drawn.rows) expect([r[0], ...r.slice(3)]).toEqual(Array(6).fill("–"));
    }
    expect(standingsRows(svg).slice(1).map((r) => r.slice(2))).toEqual(Array(12).fill(["0", "0", "0", "0"]));
  });

  it("draws the stage's standings: position, team, points, kills, first places, games played", () => {
    const view = ffa(30, { lobby_size: 10, games: 3, rounds: 2 }, { seed: 11 });
    const { svg, clipped } = checkPicture(view, { theme: "light" });
    expect(clipped).toBeNull();
    expect(view.stages[0].status).toBe("completed");
    const rows = standingsRows(svg);
    expect(rows[0]).toEqual(["#", "Team", "Pts", "K", "1st", "GP"]);
    expect(rows.slice(1)).toEqual(view.stages[0].standings.map((s) => [
      String(s.position),
      label(s),
      String(s.points),
      String(s.kills),
      String(s.first_places),
      String(s.games_played),
    ]));
    expect(rows.slice(1).every((r) => r[5] === "6")).toBe(true);
    for (const r of [1, 2]) expect(svg).toContain(`>Round ${r}</text>`);
    expect((svg.match(/<g class="lobby" /g) ?? []).length).toBe(6);
  });

  it("says a round dealt from the standings comes when the one before ends", () => {
    const view = ffa(12, { lobby_size: 4, games: 2, rounds: 3, draw: "standings" }, { decide: 8 });
    const { svg } = checkPicture(view, { theme: "light" });
    expect(view.matches.filter((m) => m.opponents).map((m) => m.round)).toEqual([1, 1, 1, 2, 2, 2]);
    expect(svg).toContain(">Dealt when round 2 ends</text>");
    expect((svg.match(/<g class="lobby" data-match="[^"]+" data-round="2"/g) ?? []).length).toBe(3);
  });

  it("picks rounds with ?round and a lobby of each round with ?group, and refuses what names nothing", () => {
    const view = ffa(40, { lobby_size: 10, games: 2, rounds: 3 }, { decide: 10 });
    const round = (svg: string) => [...svg.matchAll(/<g class="lobby" data-match="([^"]+)" data-round="(\d+)" data-lobby="(\d+)"/g)];
    const two = checkPicture(view, { theme: "light", rounds: [2, 2] });
    expect(round(two.svg).map((m) => m[1])).toEqual(view.matches.filter((m) => m.round === 2).map((m) => m.id));
    const third = checkPicture(view, { theme: "dark", group: 3 });
    expect(round(third.svg).map((m) => [m[2], m[3]])).toEqual([["1", "3"], ["2", "3"], ["3", "3"]]);
    expect(() => renderBracket(view, { theme: "light", rounds: [3, 4] })).toThrow(/round 3-4 names no rounds/);
    expect(() => renderBracket(view, { theme: "light", group: 5 })).toThrow(/group 5 names no lobby of this stage: it has lobbies 1-4/);
    expect(() => renderBracket(view, { theme: "light", group: 0 })).toThrow(RangeError);
  });

  it("fits a team's tag and name in its column, in the font the PNG is drawn with", () => {
    const long = makeTeams(12, {
      0: { name: "The Extraordinarily Long-Named Collective of Gamers", tag: "XLCG" },
      1: { name: "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWW", tag: "WWWWWWWWWW" },
    });
    const { svg } = checkPicture(buildView({ teams: long, stages: [{ format: "ffa", options: { lobby_size: 6, games: 2 } }] }), {
      theme: "light",
    });
    const shown = teamTexts(svg);
    expect(shown.length).toBe(24); // each team in its lobby and in the standings
    // Inside its column (178 wide, the text 6 in from its left edge).
    for (const t of shown) expect(rowWidth(t), `${t.tag} ${t.name}`).toBeLessThanOrEqual(178 - 6);
  });

  // (Its time is npm run bench -- --ffa's: the SVG under 250 ms of CPU in the function's runtime.)
  it("draws a 1,000-team stage (50 lobbies × 6 games) whole, and clips it legibly for the PNG: the first lobbies and standings rows, named in the caption", () => {
    const view = ffa(1000, { lobby_size: 20, games: 6 }, { seed: 5 });
    expect(view.matches).toHaveLength(50);
    const whole = renderBracket(view, { theme: "light" });
    expect(whole.clipped).toBeNull();
    expect((whole.svg.match(/<g class="lobby" /g) ?? []).length).toBe(50);
    // As the PNG route draws it (functions/api/pictures.ts): 4096 on a side, then smaller until 2048² pixels at scale 1.
    let side = 4096, png = checkPicture(view, { theme: "dark", maxSide: side });
    while (png.width * png.height > 2048 * 2048) png = checkPicture(view, { theme: "dark", maxSide: side = Math.floor(side * 0.8) });
    const shown = [...png.svg.matchAll(/<g class="lobby" data-match="[^"]+" data-round="1" data-lobby="(\d+)"/g)].map((m) => Number(m[1]));
    expect(shown.length).toBeGreaterThanOrEqual(4);
    expect(shown).toEqual(shown.map((_, i) => i + 1));
    const rows = standingsRows(png.svg).length - 1;
    expect(png.clipped).toBe(
      `Lobbies 1–${shown.length} of 50 shown; ?group=${shown.length + 1} to ?group=50 for the rest; standings 1–${rows} of 1000 shown`,
    );
    expect(png.svg).toContain(`<text class="clipped"`);
    // Legible: drawn at scale 1 (12 px text), every shown lobby whole.
    expect(Math.max(png.width, png.height)).toBeLessThanOrEqual(side);
    for (const n of shown) expect(lobby(png.svg, view.matches[n - 1].id, 6).rows).toHaveLength(20);
  });

  it("draws light and dark with their own colours only", () => {
    const view = ffa(10, { lobby_size: 5, games: 2 }, { decide: 3 });
    const colours = (svg: string) => new Set([...svg.matchAll(/(?:fill|stroke)="(#[0-9a-f]{6})"/g)].map((m) => m[1]));
    const light = colours(renderBracket(view, { theme: "light" }).svg);
    const dark = colours(renderBracket(view, { theme: "dark" }).svg);
    for (const c of light) expect(Object.values(THEMES.light)).toContain(c);
    for (const c of dark) expect(Object.values(THEMES.dark)).toContain(c);
    expect(light.has(THEMES.light.winTint) && dark.has(THEMES.dark.winTint)).toBe(true);
  });
});

describe("stages and what is drawn by default", () => {
  const twoStage = (decideSecond: number | "pending") =>
    buildView({
      teams: 16,
      stages: [
        { name: "Group stage", format: "round_robin", options: { groups: 4 }, advance: { per_group: 2 }, play: { seed: 3 } },
        decideSecond === "pending" ? { name: "Playoffs", format: "single_elimination", pending: true } : {
          name: "Playoffs",
          format: "single_elimination",
          play: { decide: decideSecond, bestOf: 3, third: true },
          options: { third_place_match: true },
        },
      ],
    });

  it("draws the current stage: the last one not pending", () => {
    const ongoing = twoStage(3);
    const { svg } = checkPicture(ongoing, { theme: "light" });
    expect(stageOf(svg)).toBe(2);
    expect(svg).toContain("Playoffs · Stage 2 of 2 · Single elimination · Ongoing");
    expect(cards(svg).map((c) => c.id).sort()).toEqual(ongoing.matches.filter((m) => m.stage === 2).map((m) => m.id).sort());
    const first = checkPicture(ongoing, { theme: "light", stage: 1 }).svg;
    expect(first).toContain("Group stage · Stage 1 of 2 · Round robin · Completed");
    expect((first.match(/<g class="cross-table">/g) ?? []).length).toBe(4);

    const waiting = twoStage("pending");
    expect(stageOf(checkPicture(waiting, { theme: "light" }).svg)).toBe(1);
    const next = checkPicture(waiting, { theme: "light", stage: 2 }).svg;
    expect(next).toContain("Bracket drawn when the stage starts");
    expect(next).toContain("Teams going on: the top 2 of each group of Group stage");
    expect(() => renderBracket(waiting, { theme: "light", stage: 3 })).toThrow(/stage 3/);
    expect(() => renderBracket(waiting, { theme: "light", stage: 2, rounds: [1, 1] })).toThrow(RangeError);
  });

  it("lists the registered teams in seed order while the tournament is in registration", () => {
    const view = registration(12);
    view.registrations[11].seed = 1; // asked for seed 1: first
    const { svg } = checkPicture(view, { theme: "dark" });
    expect(svg).toContain("Registration open");
    expect(svg).toContain(">Bracket drawn when the stage starts<");
    const order = teamTexts(svg).map((t) => t.id);
    const ids = view.registrations.map((r) => r.team_id);
    expect(order).toEqual([ids[11], ...ids.slice(0, 11)]);
    expect(cards(svg)).toEqual([]);
  });
});

describe("?round and maxSide on elimination brackets", () => {
  const winnersRound = (view: PublicView, id: string) => {
    const m = view.matches.find((x) => x.id === id)!;
    return m.bracket === "losers"
      ? Math.floor((m.round + 3) / 2)
      : m.bracket === "grand_final" || m.bracket === "third_place"
      ? Infinity
      : m.round;
  };

  it("splits a bracket between two round ranges with every match in exactly one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 128 }), fc.boolean(), fc.nat(), (n, isDouble, cut) => {
        const view = isDouble ? double(n, { decide: n }) : single(n, { decide: n }, true);
        const k = Math.log2(Math.max(2, 2 ** Math.ceil(Math.log2(n))));
        if (k < 2) return;
        const m = 1 + (cut % (k - 1));
        const left = cards(checkPicture(view, { theme: "light", rounds: [1, m] }).svg).map((c) => c.id);
        const right = cards(checkPicture(view, { theme: "light", rounds: [m + 1, k] }).svg).map((c) => c.id);
        expect([...left, ...right].sort()).toEqual(view.matches.map((x) => x.id).sort());
        // Losers round l belongs to winners round floor(l / 2) + 1 (+1 more when l is odd).
        for (const id of left) expect(winnersRound(view, id)).toBeLessThanOrEqual(m);
        for (const id of right) expect(winnersRound(view, id)).toBeGreaterThan(m);
      }),
      { numRuns: 40 },
    );
  });

  it("refuses rounds that name nothing", () => {
    const view = single(16);
    for (const rounds of [[0, 2], [3, 2], [1, 5], [5, 5], [1.5, 2]] as Array<[number, number]>) {
      expect(() => renderBracket(view, { theme: "light", rounds })).toThrow(RangeError);
    }
    expect(() => renderBracket(view, { theme: "light", group: 1 })).toThrow(RangeError);
    expect(() => renderBracket(view, { theme: "light", stage: 0 })).toThrow(RangeError);
  });

  it("keeps the rounds that fit under maxSide (the last ones, or from the round being played when it is earlier), and names the rounds left out", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(64, 100, 256, 512, 1024),
        fc.boolean(),
        fc.constantFrom(1200, 2000, 4096),
        fc.constantFrom(0, 0.3, 1),
        (n, isDouble, maxSide, played) => {
          const decide = Math.floor(n * played);
          const view = isDouble ? double(n, { decide, seed: n }) : single(n, { decide, seed: n }, true);
          const k = Math.ceil(Math.log2(n));
          const { svg, clipped, width, height } = checkPicture(view, { theme: "dark", maxSide });
          expect(Math.max(width, height)).toBeLessThanOrEqual(maxSide);
          const shown = cards(svg).map((c) => c.id);
          const full = renderBracket(view, { theme: "dark" });
          if (Math.max(full.width, full.height) <= maxSide) {
            expect(clipped).toBeNull();
            expect(shown).toHaveLength(view.matches.length);
            return;
          }
          const window = /^Rounds? (\d+)(?:–(\d+))? of/.exec(clipped ?? "");
          const [a, b] = window ? [Number(window[1]), Number(window[2] ?? window[1])] : [1, k];
          const rest = [a > 1 ? `?round=1-${a - 1}` : "", b < k ? `?round=${b + 1}-${k}` : ""].filter(Boolean).join(" and ");
          if (window) {
            expect(clipped).toMatch(
              new RegExp(`^Rounds? ${a}(–${b})? of ${k} shown; ${rest.replace(/[?]/g, "\\?")} for the rest`),
            );
          } else expect(clipped).toMatch(/^Matches 1–\d+ of \d+ of each round shown/);
          // The round being played: the earliest with a ready match (losers rounds by their column).
          const ready = view.matches.filter((m) => m.status === "ready").map((m) => winnersRound(view, m.id));
          const current = ready.length ? Math.min(...ready) : null;
          if (b < k) expect(a).toBe(current); // cut at the end only to show the round being played
          else if (current !== null && current !== Infinity) expect(current).toBeGreaterThanOrEqual(a);
          for (const id of shown) {
            const r = winnersRound(view, id);
            expect(r === Infinity ? b === k : r >= a && r <= b).toBe(true);
          }
          if (!clipped!.includes("Matches 1–")) {
            const others = [...(a > 1 ? [[1, a - 1]] : []), ...(b < k ? [[b + 1, k]] : [])] as [number, number][];
            const rest = others.flatMap((rounds) => cards(renderBracket(view, { theme: "dark", rounds }).svg).map((c) => c.id));
            expect([...shown, ...rest].sort()).toEqual(view.matches.map((m) => m.id).sort());
          }
        },
      ),
      { numRuns: 16 },
    );
  });

  it("keeps the top of the bracket when even one round is too tall", () => {
    const view = single(1024, { decide: 0 });
    const { svg, clipped } = checkPicture(view, { theme: "light", rounds: [1, 1], maxSide: 4096 });
    expect(clipped).toMatch(/^Matches 1–(\d+) of 512 of each round shown: too many for one picture$/);
    const kept = Number(/Matches 1–(\d+)/.exec(clipped!)![1]);
    expect(cards(svg).map((c) => c.id)).toEqual(view.matches.filter((m) => m.round === 1 && m.position <= kept).map((m) => m.id));
  });
});

describe("themes", () => {
  const luminance = (hex: string) => {
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const contrast = (a: string, b: string) => {
    const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };

  it("gives every text colour at least 4.5:1 (WCAG AA) on every surface it is drawn on", () => {
    for (const [name, theme] of Object.entries(THEMES)) {
      for (const [text, surfaces] of TEXT_ON) {
        for (const surface of surfaces) {
          expect(contrast(theme[text], theme[surface]), `${name}: ${text} on ${surface}`).toBeGreaterThanOrEqual(4.5);
        }
      }
    }
  });

  it("draws light and dark with their own colours only", () => {
    const view = double(8, { decide: 6, bestOf: 3, schedule: true });
    const colours = (svg: string) => new Set([...svg.matchAll(/(?:fill|stroke)="(#[0-9a-f]{6})"/g)].map((m) => m[1]));
    const light = colours(renderBracket(view, { theme: "light" }).svg);
    const dark = colours(renderBracket(view, { theme: "dark" }).svg);
    expect([...light].filter((c) => dark.has(c))).toEqual([]);
    for (const c of light) expect(Object.values(THEMES.light)).toContain(c);
    for (const c of dark) expect(Object.values(THEMES.dark)).toContain(c);
    for (const key of ["bg", "text", "muted", "accent", "line"] as const) {
      expect(light.has(THEMES.light[key]) && dark.has(THEMES.dark[key]), key).toBe(true);
    }
  });
});
