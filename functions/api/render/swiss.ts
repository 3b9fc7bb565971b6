// Swiss: each round a column of pairings (byes included, last), the rounds not drawn yet as empty
// columns, then the standings (wins–losses, or wins–draws–losses where the stage allows draws or
// one was recorded; points where the entries have them; Buchholz). With a size limit, the last
// rounds that fit.
import type { ViewMatch, ViewTeam } from "./view.ts";
import { BOX_H, BOX_W, drawMatch, META_H } from "./match.ts";
import { type Body, checkRounds, label, roundsCaption, showsDraws, type StageInput } from "./body.ts";
import { type Cell, type Column, drawTable, ROW, tableWidth } from "./table.ts";

const PITCH = BOX_W + 28;
/** A round not drawn yet: a title and a line. */
const NARROW = 176;
const SLOT = META_H + BOX_H + 12;
const TOP = 32;

/** The standings' columns: #, Team, W–L (W–D–L with draws), Pts (with points), Buchholz. */
function standingsColumns(draws: boolean, points: boolean): Column[] {
  return [
    { title: "#", width: 34, align: "end" },
    { title: "Team", width: 214 },
    draws ? { title: "W–D–L", width: 72, align: "middle" } : { title: "W–L", width: 56, align: "middle" },
    ...(points ? [{ title: "Pts", width: 42, align: "middle" as const }] : []),
    { title: "Buchholz", width: 84, align: "middle" },
  ];
}

/** The rounds to play: format_options.rounds, else ceil(log2 N) (13_swiss_pairing.sql). */
function totalRounds(input: StageInput, drawn: number): number {
  const set = input.stage.format_options.rounds;
  if (typeof set === "number" && Number.isInteger(set) && set > 0) return Math.max(set, drawn);
  const n = input.stage.team_count ?? input.stage.standings.length;
  return Math.max(drawn, n > 1 ? Math.ceil(Math.log2(n)) : 1);
}

/** The picture of a swiss stage. */
export function swissBody(input: StageInput): Body {
  if (input.group !== undefined) throw new RangeError("group names nothing in a swiss stage: it has no groups");
  const rounds = new Map<number, ViewMatch[]>();
  for (const m of input.matches) {
    const list = rounds.get(m.round);
    if (list) list.push(m);
    else rounds.set(m.round, [m]);
  }
  for (const list of rounds.values()) list.sort((x, y) => x.position - y.position);
  const total = totalRounds(input, Math.max(0, ...rounds.keys()));
  const [from, to] = checkRounds(input.rounds, total, "swiss stage");
  const standings = input.stage.standings;
  const draws = showsDraws(input), points = standings.some((st) => typeof st.points === "number");
  const columns = standingsColumns(draws, points);
  const tableW = tableWidth(columns);

  const columnX = (a: number, r: number) => {
    let x = 0;
    for (let q = a; q < r; q++) x += rounds.has(q) ? PITCH : NARROW;
    return x;
  };
  const size = (a: number, limit: number, rows: number) => {
    let most = 0;
    for (let r = a; r <= to; r++) most = Math.max(most, rounds.get(r)?.length ?? 0);
    const shownRows = Math.min(rows, standings.length);
    return {
      width: columnX(a, to + 1) + tableW,
      height: Math.max(TOP + Math.max(1, Math.min(most, limit)) * SLOT, 24 + ROW * (shownRows + 1)) + 4,
      most,
      shownRows,
    };
  };
  // Height first (fewer pairings a round, fewer standings rows), then width (the last rounds).
  let a = from, limit = Infinity, rows = Infinity;
  let s = size(a, limit, rows);
  const notes: string[] = [];
  const whole = input.fits(s.width, s.height, false);
  if (!whole && !input.fits(Math.min(s.width, PITCH + tableW), s.height)) {
    limit = s.most;
    rows = standings.length;
    while ((limit > 1 || rows > 1) && !input.fits(Math.min(s.width, PITCH + tableW), s.height)) {
      // Shorten whichever is taller.
      if (TOP + Math.min(s.most, limit) * SLOT >= 24 + ROW * (s.shownRows + 1) && limit > 1) {
        limit = Math.max(1, Math.floor(limit * 0.9));
      } else rows = Math.max(1, Math.floor(rows * 0.9));
      s = size(a, limit, rows);
    }
  }
  while (!whole && !input.fits(s.width, s.height) && a < to) s = size(++a, limit, rows);
  const shownRounds = roundsCaption(a, to, from, to, total);
  if (shownRounds) notes.push(shownRounds);
  if (limit < s.most) notes.push(`pairings 1–${limit} of each round shown`);
  if (s.shownRows < standings.length) notes.push(`standings 1–${s.shownRows} of ${standings.length} shown`);
  const caption = notes.length ? notes.map((t, i) => i ? t : t[0].toUpperCase() + t.slice(1)).join("; ") : null;
  const start = a, shownRows = s.shownRows;

  return {
    width: s.width,
    height: s.height,
    clipped: caption,
    draw(out, d, ox, oy) {
      for (let r = start; r <= to; r++) {
        const x = ox + columnX(start, r);
        label(out, d, x, oy + 14, `Round ${r}`, { bold: true, cls: "title" });
        const list = rounds.get(r);
        if (!list) {
          label(out, d, x, oy + TOP + 20, r === 1 ? "Not drawn yet" : `Drawn when round ${r - 1} ends`, { size: 11 });
          continue;
        }
        list.forEach((m, i) => {
          if (i < limit) drawMatch(out, d, m, x, oy + TOP + META_H + i * SLOT, ["tbd", "bye"]);
        });
      }
      const tx = ox + columnX(start, to + 1);
      label(out, d, tx, oy + 14, "Standings", { bold: true, cls: "title" });
      const team = (id: string, name: string, tag: string): ViewTeam => d.teams.get(id) ?? { id, name, tag, logo_url: null };
      const rowsShown: Cell[][] = standings.slice(0, shownRows).map((st) => [
        String(st.position),
        { team: team(st.team_id, st.team_name, st.team_tag) },
        { text: [st.wins ?? 0, ...(draws ? [st.draws ?? 0] : []), st.losses ?? 0].join("–"), bold: !points },
        ...(points ? [{ text: String(st.points ?? 0), bold: true }] : []),
        String(st.buchholz ?? 0),
      ]);
      drawTable(out, d, tx, oy + 24, columns, rowsShown, "standings");
    },
  };
}
