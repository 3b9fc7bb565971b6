// One match as a box of two rows (seed, tag and name, score), with a line above it for its series
// (Bo3 and the game scores) and its scheduled time, or instead of the time an open participants'
// report ("Awaiting confirmation", "Result disputed") or, for a drawn match, "Draw". Elimination
// trees and swiss rounds draw it.
import type { ViewGame, ViewLineupEntry, ViewMatch, ViewTeam } from "./view.ts";
import type { Theme } from "./theme.ts";
import { esc, fit, shortTime, textWidth } from "./text.ts";
import { isDraw, LABELS, openReport } from "./labels.ts";

export const BOX_W = 232;
export const ROW_H = 24;
export const BOX_H = 2 * ROW_H;
/** The room above a box for its series and time line. */
export const META_H = 15;
export const SCORE_W = 32;
const SEED_END = 30;
export const NAME_X = 36;
/** The room for a team's tag and name in a row. */
export const NAME_W = BOX_W - SCORE_W - NAME_X - 6;
const SIZE = 12;
const SMALL = 10;

/** What a row without a team shows: a team still to come, a bye's empty side, or nothing. */
export type EmptySlot = "tbd" | "bye" | "blank";

export interface Drawing {
  theme: Theme;
  teams: Map<string, ViewTeam>;
  /** Each team's lineup as its names' `<title>` (lineupTitle), escaped; no entry for a team without a lineup. */
  lineups: Map<string, string>;
}

const ROLE_ORDER: Record<ViewLineupEntry["role"], number> = { player: 0, substitute: 1, coach: 2 };

/**
 * A team's lineup in one line, for the `<title>` of its name wherever the picture draws it (a
 * browser shows it on hover; it takes no room): players, then substitutes, then coaches, each in
 * lineup order: "Aurora Gaming — frost (C, SE), blaze, nova (Substitute, NO), kim (Coach)".
 */
export function lineupTitle(name: string, lineup: ViewLineupEntry[]): string {
  const words = LABELS.lineup;
  const entries = [...lineup].sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]).map((e) => {
    const notes = [e.captain ? words.captain : "", e.role === "player" ? "" : words.roles[e.role], e.country ?? ""].filter(Boolean);
    return notes.length ? `${e.handle} (${notes.join(", ")})` : e.handle;
  });
  return `${name} — ${entries.join(", ")}`;
}

// Labels are cut once per team and room (a team plays many matches of a large bracket).
const labels = new WeakMap<ViewTeam, Map<number, { tag: string; name: string }>>();

/**
 * A team's row text: the tag (bold) whole when it fits (it tells teams apart: tags of up to 20
 * characters share prefixes, "NAVI-A", "NAVI-B"), then as much of the name as fits; the name is
 * left out when it is the tag or when too little of it would show.
 */
export function teamLabel(team: ViewTeam, width: number, size: number, bold: boolean): { tag: string; name: string } {
  const key = (width * 64 + size) * 2 + (bold ? 1 : 0);
  let known = labels.get(team);
  const hit = known?.get(key);
  if (hit) return hit;
  const tag = fit(team.tag, width, size, true);
  const rest = width - textWidth(tag + " ", size, true);
  const same = team.name.trim().toLowerCase() === team.tag.trim().toLowerCase();
  const name = same || rest < textWidth("Abcd…", size, bold) ? "" : fit(team.name, rest, size, bold);
  const label = { tag: esc(tag), name: esc(name) };
  if (!known) labels.set(team, known = new Map());
  known.set(key, label);
  return label;
}

/**
 * `<text>` of a team: tag bold, then the name (bold too for the winner); `attrs` adds fill and size
 * when not inherited. With `lineup` (escaped, from Drawing.lineups) the text is wrapped in a group
 * whose `<title>` it is.
 */
export function teamSvg(
  team: ViewTeam,
  x: number,
  y: number,
  width: number,
  size: number,
  bold: boolean,
  attrs: string,
  lineup = "",
): string {
  const { tag, name } = teamLabel(team, width, size, bold);
  return [
    lineup ? `<g class="lineup"><title>${lineup}</title>` : "",
    `<text class="team" data-team-id="${esc(team.id)}" x="${x}" y="${y}"`,
    attrs,
    bold ? ` font-weight="700">` : ">",
    `<tspan font-weight="700">`,
    tag,
    `</tspan>`,
    name ? " " : "",
    name,
    `</text>`,
    lineup ? `</g>` : "",
  ].join("");
}

/** Pushes a team's `<text>` in its own size and colour. */
export function teamText(
  out: string[],
  team: ViewTeam,
  x: number,
  y: number,
  width: number,
  size: number,
  fill: string,
  bold: boolean,
  lineup = "",
): void {
  out.push(teamSvg(team, x, y, width, size, bold, ` font-size="${size}" fill="${fill}"`, lineup));
}

function scoreText(m: ViewMatch, side: 1 | 2): string {
  if (m.forfeit) return m.forfeit === `team${side}` ? "FF" : m.status === "completed" ? "W" : "";
  if (m.status === "bye") return "";
  const s = side === 1 ? m.team1_score : m.team2_score;
  return s === null ? "" : String(s);
}

function seriesLine(m: ViewMatch): string {
  if ((m.best_of ?? 1) <= 1) return "";
  const games = (m.games as ViewGame[]).map((g) => `${g.team1_score}–${g.team2_score}`);
  return [`Bo${m.best_of}`, ...games].join(" · ");
}

/** A short description for the box's `<title>` (a browser shows it on hover). */
function describe(m: ViewMatch, teams: Map<string, ViewTeam>, empty: [EmptySlot, EmptySlot]): string {
  const side = (id: string | null, seed: number | null, slot: EmptySlot) => {
    if (!id) return slot === "bye" ? "BYE" : slot === "tbd" ? "TBD" : "—";
    const t = teams.get(id);
    return `${t ? `${t.tag} ${t.name}` : "?"}${seed !== null ? ` (${seed})` : ""}`;
  };
  const s1 = scoreText(m, 1), s2 = scoreText(m, 2);
  const report = openReport(m);
  const state = report ? LABELS.report[report] : isDraw(m) ? LABELS.draw : "";
  return `${side(m.team1_id, m.team1_seed, empty[0])} vs ${side(m.team2_id, m.team2_seed, empty[1])}` +
    (s1 || s2 ? `: ${s1 || "0"}–${s2 || "0"}` : "") + (state ? ` (${state.toLowerCase()})` : "");
}

/**
 * Draws `m` with its box's top left corner at (x, y); the series and time line goes above it,
 * within META_H. `empty` says what each side shows when it has no team. A winner gets the accent
 * (bar, score cell, bold) and the loser is dimmed; a draw marks both sides alike (a muted bar,
 * bold scores) and says "Draw" where the time goes.
 */
export function drawMatch(out: string[], d: Drawing, m: ViewMatch, x: number, y: number, empty: [EmptySlot, EmptySlot], note = ""): void {
  const { theme } = d;
  const decided = m.status === "completed" && m.winner_id !== null;
  const draw = isDraw(m);
  // The group sets the size and colour most texts share; the small muted ones say theirs. Each
  // piece is pushed flat and joined once: a string grown by += is a tree that the final join
  // would have to walk.
  const parts = [
    `<g class="match" data-match-id="${esc(m.id)}" data-status="${m.status}" transform="translate(${x},${y})" `,
    `font-size="${SIZE}" fill="${theme.text}"><title>${esc(describe(m, d.teams, empty))}</title>`,
    `<rect class="box" width="${BOX_W}" height="${BOX_H}" rx="3" fill="${theme.surface}" stroke="${
      openReport(m) ? theme.warn : theme.border
    }"`,
    m.status === "bye" ? ` stroke-dasharray="4 3"/>` : "/>",
  ];
  const small: string[] = [];
  // An open report (the match is still ready: nothing applied, no winner, no score) says so in
  // the warning colour where the time goes: the match has been played, so its time is past.
  const report = openReport(m);
  const time = !report && m.scheduled_at && m.status !== "completed" ? shortTime(m.scheduled_at) : "";
  const right = report ? LABELS.report[report] : draw ? LABELS.draw : time;
  const series = (m.best_of ?? 1) > 1 ? fit(seriesLine(m), BOX_W - (right ? textWidth(right, SMALL) + 8 : 0), SMALL) : "";
  if (series) small.push(`<text x="0" y="-4">${esc(series)}</text>`);
  if (time) small.push(`<text x="${BOX_W}" y="-4" text-anchor="end">${time}</text>`);
  if (report) {
    parts.push(
      `<text class="report" data-report="${report}" x="${BOX_W}" y="-4" text-anchor="end" font-size="${SMALL}" fill="${theme.warn}">`,
      `${esc(right)}</text>`,
    );
  }
  if (draw && !report) small.push(`<text class="draw" x="${BOX_W}" y="-4" text-anchor="end" font-weight="700">${esc(right)}</text>`);

  if (note) {
    small.push(`<text x="${NAME_X}" y="${ROW_H + 4}">${esc(note)}</text>`);
  } else {
    parts.push(`<path d="M1 ${ROW_H}H${BOX_W - 1}" stroke="${theme.border}"/>`);
    let plain = "", accent = "", even = "";
    const texts: string[] = [];
    for (const side of [1, 2] as const) {
      const top = side === 1 ? 0 : ROW_H;
      const base = top + 16;
      const id = side === 1 ? m.team1_id : m.team2_id;
      const seed = side === 1 ? m.team1_seed : m.team2_seed;
      const won = decided && id !== null && id === m.winner_id;
      const lost = decided && id !== null && !won;
      const cell = `M${BOX_W - SCORE_W} ${top + 1}h${SCORE_W - 1}v${ROW_H - 1}h-${SCORE_W - 1}z`;
      const bar = `M1 ${top + 1}h3v${ROW_H - 1}h-3z`;
      if (won) accent += cell + bar;
      else plain += cell;
      if (draw) even += bar;
      if (seed !== null && id !== null) small.push(`<text x="${SEED_END}" y="${base}" text-anchor="end">${seed}</text>`);
      const team = id ? d.teams.get(id) : undefined;
      if (team) {
        texts.push(teamSvg(team, NAME_X, base, NAME_W, SIZE, won, lost ? ` fill="${theme.muted}"` : "", d.lineups.get(team.id)));
      } else if (id || empty[side - 1] !== "blank") {
        small.push(`<text class="slot" x="${NAME_X}" y="${base}">${id ? "?" : empty[side - 1] === "bye" ? "BYE" : "TBD"}</text>`);
      }
      const score = scoreText(m, side);
      if (score) {
        texts.push(
          `<text x="${BOX_W - SCORE_W / 2}" y="${base}" text-anchor="middle"`,
          won ? ` fill="${theme.onAccent}" font-weight="700">` : lost ? ` fill="${theme.muted}">` : draw ? ` font-weight="700">` : ">",
          score,
          `</text>`,
        );
      }
    }
    if (plain) parts.push(`<path d="${plain}" fill="${theme.surfaceAlt}"/>`);
    if (accent) parts.push(`<path d="${accent}" fill="${theme.accent}"/>`);
    if (even) parts.push(`<path class="draw-bars" d="${even}" fill="${theme.muted}"/>`);
    parts.push(...texts);
  }
  if (small.length) parts.push(`<g font-size="${SMALL}" fill="${theme.muted}">`, ...small, `</g>`);
  parts.push("</g>");
  out.push(parts.join(""));
}
