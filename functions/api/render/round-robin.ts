// Round robin: per group, its standings and its cross-table of results (the row team's score
// first; "?" for a match whose participants' report is open; a draw in the text colour on the
// head's tint, "Draw" on hover), groups in a grid. With a size limit, the first groups that fit.
// The standings have a D column (draws) where the stage allows draws or one was recorded.
import type { ViewMatch, ViewStanding } from "./view.ts";
import type { Drawing } from "./match.ts";
import { type Body, label, showsDraws, type StageInput } from "./body.ts";
import { type Cell, type Column, drawTable, ROW, tableWidth } from "./table.ts";
import { isDraw, LABELS, openReport } from "./labels.ts";

/** Larger groups get no cross-table: it would be n² cells nobody can read. */
export const CROSS_TABLE_MAX = 32;
const TITLE_H = 30;
const SPACE = 24;
const CELL_W = 46;
const LABEL_W = 64;
const ROW_WIDTH = 1800;

const NUMBER: Column = { title: "", width: 34, align: "middle" };

/** The standings' columns: #, Team, W, D (with draws), L, Pts. */
function standingsColumns(draws: boolean): Column[] {
  return [
    { title: "#", width: 30, align: "end" },
    { title: "Team", width: 214 },
    { ...NUMBER, title: "W" },
    ...(draws ? [{ ...NUMBER, title: "D" }] : []),
    { ...NUMBER, title: "L" },
    { title: "Pts", width: 42, align: "middle" },
  ];
}

interface Group {
  number: number;
  standings: ViewStanding[];
  matches: ViewMatch[];
}

function groupsOf(input: StageInput): Group[] {
  const groups = new Map<number, Group>();
  const get = (n: number) => {
    let g = groups.get(n);
    if (!g) groups.set(n, g = { number: n, standings: [], matches: [] });
    return g;
  };
  for (const m of input.matches) get(m.group ?? 1).matches.push(m);
  for (const s of input.stage.standings) get(s.group ?? 1).standings.push(s);
  for (const g of groups.values()) {
    g.standings.sort((x, y) =>
      (x.group_position ?? x.position) - (y.group_position ?? y.position) ||
      x.team_name.localeCompare(y.team_name)
    );
    // A team the standings do not list yet (they list everyone; this is for safety) goes last.
    const listed = new Set(g.standings.map((s) => s.team_id));
    const missing = new Map<string, number>();
    for (const m of g.matches) {
      for (const [id, seed] of [[m.team1_id, m.team1_seed], [m.team2_id, m.team2_seed]] as const) {
        if (id && !listed.has(id)) missing.set(id, seed ?? Number.MAX_SAFE_INTEGER);
      }
    }
    for (const [id] of [...missing].sort((x, y) => x[1] - y[1])) {
      g.standings.push({ position: g.standings.length + 1, team_id: id, team_name: "", team_tag: "", disqualified: false });
    }
  }
  return [...groups.values()].sort((x, y) => x.number - y.number);
}

interface Shape {
  width: number;
  height: number;
  cross: boolean;
  /** Standings rows shown. */
  rows: number;
}

function shape(g: Group, columns: Column[], cross: boolean, rows: number): Shape {
  const n = g.standings.length;
  const crossW = cross ? SPACE + LABEL_W + CELL_W * n : 0;
  const shown = Math.min(rows, n);
  return { width: tableWidth(columns) + crossW, height: TITLE_H + ROW * ((cross ? n : shown) + 1), cross, rows: shown };
}

function drawGroup(out: string[], d: Drawing, g: Group, s: Shape, draws: boolean, x: number, y: number): void {
  const columns = standingsColumns(draws);
  label(out, d, x, y + 18, `Group ${g.number}`, { size: 14, bold: true, tone: "text", cls: "title" });
  const top = y + TITLE_H;
  const team = (id: string, st?: ViewStanding) =>
    d.teams.get(id) ?? { id, name: st?.team_name ?? "", tag: st?.team_tag ?? "?", logo_url: null };
  const rows: Cell[][] = g.standings.slice(0, s.rows).map((st) => [
    String(st.group_position ?? st.position),
    { team: team(st.team_id, st) },
    String(st.wins ?? 0),
    ...(draws ? [String(st.draws ?? 0)] : []),
    String(st.losses ?? 0),
    { text: String(st.points ?? 0), bold: true },
  ]);
  drawTable(out, d, x, top, columns, rows, "standings");
  if (!s.cross) return;

  const ids = g.standings.map((st) => st.team_id);
  const at = new Map<string, ViewMatch>();
  for (const m of g.matches) if (m.team1_id && m.team2_id) at.set(`${m.team1_id}|${m.team2_id}`, m);
  const crossColumns: Column[] = [
    { title: "", width: LABEL_W },
    ...ids.map((id) => ({ title: team(id).tag, width: CELL_W, align: "middle" as const })),
  ];
  const cross: Cell[][] = ids.map((row) => [
    { text: team(row).tag, bold: true },
    ...ids.map((col): Cell => {
      if (row === col) return { text: "–", tone: "muted", fill: "surfaceAlt" };
      const m = at.get(`${row}|${col}`), r = at.get(`${col}|${row}`);
      const match = m ?? r;
      // An open report: not a result yet (no score, no winner), but marked, its state on hover.
      const report = match ? openReport(match) : null;
      if (match && match.status !== "completed" && report) return { text: "?", tone: "muted", title: LABELS.report[report] };
      if (!match || match.status !== "completed") return null;
      const first = m !== undefined; // the row team is team1
      if (isDraw(match)) {
        const own = first ? match.team1_score : match.team2_score, other = first ? match.team2_score : match.team1_score;
        return { text: `${own ?? 0}–${other ?? 0}`, fill: "surfaceAlt", title: LABELS.draw };
      }
      const won = match.winner_id === row;
      let text: string;
      if (match.forfeit) text = won ? "W" : "FF";
      else {
        const own = first ? match.team1_score : match.team2_score, other = first ? match.team2_score : match.team1_score;
        text = `${own ?? 0}–${other ?? 0}`;
      }
      return won ? { text, bold: true, fill: "winTint" } : { text, tone: "muted" };
    }),
  ]);
  drawTable(out, d, x + tableWidth(columns) + SPACE, top, crossColumns, cross, "cross-table");
}

/** The picture of a round-robin stage (`group`: that group only). */
export function roundRobinBody(input: StageInput): Body {
  if (input.rounds) throw new RangeError("round names nothing in a round robin: its picture shows groups (use group)");
  let groups = groupsOf(input);
  if (input.group !== undefined) {
    const g = groups.find((x) => x.number === input.group);
    if (!g) throw new RangeError(`group ${input.group} names no group of this stage: it has groups 1-${groups.length}`);
    groups = [g];
  }
  const notes: string[] = [];
  const draws = showsDraws(input);
  const columns = standingsColumns(draws);
  let shapes = groups.map((g) => shape(g, columns, g.standings.length <= CROSS_TABLE_MAX, Infinity));
  if (shapes.some((s, i) => !s.cross && groups[i].standings.length > 0)) {
    notes.push(`no cross-table for groups of more than ${CROSS_TABLE_MAX} teams`);
  }
  const grid = (count: number) => {
    const cellW = Math.max(...shapes.slice(0, count).map((s) => s.width));
    const cellH = Math.max(...shapes.slice(0, count).map((s) => s.height));
    const perRow = Math.max(1, Math.min(count, Math.floor((ROW_WIDTH + 40) / (cellW + 40))));
    const lines = Math.ceil(count / perRow);
    return { cellW, cellH, perRow, width: perRow * (cellW + 40) - 40, height: lines * (cellH + 28) - 28 };
  };
  let count = groups.length;
  let g = grid(count);
  const whole = input.fits(g.width, g.height, notes.length > 0);
  while (!whole && count > 1 && !input.fits(g.width, g.height)) g = grid(--count);
  if (count < groups.length) {
    const rest = groups.slice(count).map((x) => x.number);
    notes.unshift(
      `Groups ${groups[0].number}–${groups[count - 1].number} of ${groups.length} shown; ` +
        `?group=${rest[0]}${rest.length > 1 ? ` to ?group=${rest[rest.length - 1]}` : ""} for the rest`,
    );
  }
  if (!whole && !input.fits(g.width, g.height)) {
    // One group too large: its cross-table goes first, then standings rows from the bottom.
    const n = groups[0].standings.length;
    shapes = [shape(groups[0], columns, false, n)];
    if (groups[0].standings.length <= CROSS_TABLE_MAX) notes.push("no cross-table: too large for one picture");
    let rows = n;
    while (rows > 1 && !input.fits(shapes[0].width, shapes[0].height)) {
      shapes = [shape(groups[0], columns, false, rows = Math.floor(rows * 0.8))];
    }
    if (rows < n) notes.push(`standings 1–${rows} of ${n} shown`);
    g = grid(1);
  }
  const shown = groups.slice(0, count);
  const caption = notes.length ? notes.map((s, i) => i ? s : s[0].toUpperCase() + s.slice(1)).join("; ") : null;
  return {
    width: g.width,
    height: g.height,
    clipped: caption,
    draw(out, d, ox, oy) {
      shown.forEach((group, i) => {
        const x = ox + (i % g.perRow) * (g.cellW + 40), y = oy + Math.floor(i / g.perRow) * (g.cellH + 28);
        drawGroup(out, d, group, shapes[i], draws, x, y);
      });
    },
  };
}
