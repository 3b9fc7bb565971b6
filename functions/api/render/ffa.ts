// Free-for-all (contract section 20): each round a band of its lobbies, each lobby a leaderboard
// (placement, team and seed, each game's placement and points, kills, points; the winner marked once
// it completes), then the stage's standings (points, kills, first places, games played). With a
// size limit: the first lobbies of each round shown that fit, then the first rounds, then the
// standings' first rows; `round` picks rounds and `group` one lobby (its number in each round).
import type { ViewLobbyGame, ViewMatch, ViewOpponent, ViewTeam } from "./view.ts";
import { type Body, checkRounds, label, roundsCaption, type StageInput } from "./body.ts";
import { type Cell, type Column, drawTable, ROW, tableWidth } from "./table.ts";

const GAP = 24;
const TITLE_H = 28;
/** A lobby's band: its title line, then its table. */
const LOBBY_TOP = 18;

/** The leaderboard's columns for `games` games: #, Team, Seed, G1…Gn (placement · points), K, Pts. */
function lobbyColumns(games: number): Column[] {
  return [
    { title: "#", width: 34, align: "end" },
    { title: "Team", width: 178 },
    { title: "Seed", width: 46, align: "middle" },
    ...Array.from({ length: games }, (_, i): Column => ({ title: `G${i + 1}`, width: 58, align: "middle" })),
    { title: "K", width: 44, align: "middle" },
    { title: "Pts", width: 50, align: "middle" },
  ];
}

/** The standings' columns: #, Team, Pts, K, 1st, GP. */
const STANDINGS: Column[] = [
  { title: "#", width: 40, align: "end" },
  { title: "Team", width: 206 },
  { title: "Pts", width: 52, align: "middle" },
  { title: "K", width: 48, align: "middle" },
  { title: "1st", width: 42, align: "middle" },
  { title: "GP", width: 42, align: "middle" },
];

/** A lobby's game results by team: placement and points, with kills for the tooltip. */
function gameCells(m: ViewMatch, games: number, teamId: string): Cell[] {
  const played = m.games as ViewLobbyGame[];
  return Array.from({ length: games }, (_, i): Cell => {
    const r = played[i]?.results.find((x) => x.team_id === teamId);
    if (!r) return { text: "–", tone: "muted" };
    return {
      text: `${r.placement} · ${r.points}`,
      bold: r.placement === 1,
      title: `Game ${i + 1}: placed ${r.placement}, ${r.kills} kill${r.kills === 1 ? "" : "s"}, ${r.points} points`,
    };
  });
}

/** A lobby's title line: "Lobby 2 · game 3 of 6", "Lobby 2 · completed". */
function lobbyTitle(m: ViewMatch, games: number): string {
  const done = m.status === "completed" ? "completed" : m.games.length ? `game ${m.games.length} of ${games}` : "not played yet";
  return `Lobby ${m.position} · ${done}`;
}

/** The picture of a free-for-all stage. */
export function ffaBody(input: StageInput): Body {
  const options = input.stage.format_options as { games?: number; rounds?: number };
  const games = typeof options.games === "number" ? options.games : 1;
  const byRound = new Map<number, ViewMatch[]>();
  for (const m of input.matches) {
    if (!m.opponents) continue;
    const list = byRound.get(m.round);
    if (list) list.push(m);
    else byRound.set(m.round, [m]);
  }
  for (const list of byRound.values()) list.sort((x, y) => x.position - y.position);
  const total = Math.max(typeof options.rounds === "number" ? options.rounds : 1, ...byRound.keys());
  const [from, to] = checkRounds(input.rounds, total, "free-for-all stage");
  const lobbyCount = Math.max(0, ...[...byRound.values()].map((l) => l.length));
  if (input.group !== undefined && (input.group < 1 || input.group > lobbyCount)) {
    throw new RangeError(`group ${input.group} names no lobby of this stage: it has lobbies 1-${Math.max(lobbyCount, 1)}`);
  }
  const columns = lobbyColumns(games);
  const lobbyW = tableWidth(columns);
  const standings = input.stage.standings;
  const standingsW = tableWidth(STANDINGS);
  const lobbyH = (m: ViewMatch) => LOBBY_TOP + ROW * ((m.opponents?.length ?? 0) + 1);
  const shownOf = (r: number) => (byRound.get(r) ?? []).filter((m) => input.group === undefined || m.position === input.group);

  // Lobbies in a grid of `perRow` columns a round, each round a band under its title; the
  // standings beside them, or `below` them when that is too wide.
  const layout = (a: number, b: number, limit: number, rows: number, perRow: number, below: boolean) => {
    let h = 0, w = 0;
    for (let r = a; r <= b; r++) {
      const list = shownOf(r).slice(0, limit);
      h += TITLE_H;
      if (!list.length) h += ROW;
      for (let i = 0; i < list.length; i += perRow) {
        const line = list.slice(i, i + perRow);
        h += Math.max(...line.map(lobbyH)) + GAP / 2;
        w = Math.max(w, line.length * (lobbyW + GAP) - GAP);
      }
      h += GAP / 2;
    }
    const shownRows = Math.min(rows, standings.length);
    const tableH = TITLE_H + ROW * (shownRows + 1);
    const lobbiesW = Math.max(w, lobbyW);
    return below
      ? { width: Math.max(lobbiesW, standingsW), height: h + tableH + 4, shownRows, lobbiesH: h, lobbiesW, tableH }
      : { width: lobbiesW + GAP * 2 + standingsW, height: Math.max(h, tableH) + 4, shownRows, lobbiesH: h, lobbiesW, tableH };
  };
  const most = Math.max(1, ...Array.from({ length: to - from + 1 }, (_, i) => shownOf(from + i).length));
  let limit = most, rows = standings.length, b = to;
  // The first arrangement whose width fits: two lobbies a row beside the standings, one, then the
  // standings below two a row, below one.
  const shapes: [number, boolean][] = [[2, false], [1, false], [2, true], [1, true]];
  let [perRow, below] = shapes[most > 1 ? 0 : 1];
  let s = layout(from, b, limit, rows, perRow, below);
  if (!input.fits(s.width, s.height, false)) {
    [perRow, below] = shapes.find(([n, under]) => (n === 1 || most > 1) && input.fits(layout(from, b, limit, rows, n, under).width, 1)) ??
      shapes[3];
    s = layout(from, b, limit, rows, perRow, below);
    // Then shorten whichever is taller, the lobbies (fewer a round, then fewer rounds) or the
    // standings (fewer rows).
    while (!input.fits(s.width, s.height) && (limit > 1 || b > from || s.shownRows > 1)) {
      if (s.lobbiesH >= s.tableH && (limit > 1 || b > from)) {
        if (limit > 1) limit--;
        else b--;
      } else rows = Math.max(1, Math.floor(s.shownRows * 0.9));
      s = layout(from, b, limit, rows, perRow, below);
    }
  }
  const notes: string[] = [];
  const shownRounds = roundsCaption(from, b, from, to, total);
  if (shownRounds) notes.push(shownRounds);
  if (limit < most) {
    const rest = `?group=${limit + 1}${limit + 1 < most ? ` to ?group=${most}` : ""}`;
    notes.push(`lobbies 1–${limit} of ${most}${b > from ? " in each round" : ""} shown; ${rest} for the rest`);
  }
  if (s.shownRows < standings.length) notes.push(`standings 1–${s.shownRows} of ${standings.length} shown`);
  const caption = notes.length ? notes.map((t, i) => i ? t : t[0].toUpperCase() + t.slice(1)).join("; ") : null;
  const last = b, shownRows = s.shownRows;
  const [tableX, tableY] = below ? [0, s.lobbiesH] : [s.lobbiesW + GAP * 2, 0];

  return {
    width: s.width,
    height: s.height,
    clipped: caption,
    draw(out, d, ox, oy) {
      const team = (o: { team_id: string; team_name: string; team_tag: string }): ViewTeam =>
        d.teams.get(o.team_id) ?? { id: o.team_id, name: o.team_name, tag: o.team_tag, logo_url: null };
      let y = oy;
      for (let r = from; r <= last; r++) {
        label(out, d, ox, y + 14, `Round ${r}`, { bold: true, cls: "title" });
        if (games > 1) label(out, d, ox + lobbyW, y + 14, "G1, G2, …: placement · points", { size: 11, anchor: "end" });
        y += TITLE_H;
        const list = shownOf(r).slice(0, limit);
        if (!list.length) {
          label(out, d, ox, y + 14, r === 1 ? "Not dealt yet" : `Dealt when round ${r - 1} ends`, { size: 11 });
          y += ROW + GAP / 2;
          continue;
        }
        for (let i = 0; i < list.length; i += perRow) {
          const line = list.slice(i, i + perRow);
          line.forEach((m, k) => {
            const x = ox + k * (lobbyW + GAP);
            out.push(`<g class="lobby" data-match="${m.id}" data-round="${m.round}" data-lobby="${m.position}">`);
            label(out, d, x, y + 12, lobbyTitle(m, games), { size: 12, bold: true, tone: "text" });
            // Before its first game a lobby lists its teams by seed, every figure a dash.
            const dash: Cell = { text: "–", tone: "muted" };
            const rowsOf: Cell[][] = (m.opponents ?? []).map((o: ViewOpponent) => {
              const won = m.status === "completed" && m.winner_id === o.team_id;
              const played = m.games.length > 0;
              return [
                o.placement === null ? dash : String(o.placement),
                { team: team(o), bold: won },
                { text: String(o.seed), tone: "muted" },
                ...gameCells(m, games, o.team_id),
                played ? String(o.kills) : dash,
                !played ? dash : won ? { text: String(o.points), bold: true, fill: "winTint" } : { text: String(o.points), bold: true },
              ];
            });
            drawTable(out, d, x, y + LOBBY_TOP, columns, rowsOf, "lobby-table");
            out.push(`</g>`);
          });
          y += Math.max(...line.map(lobbyH)) + GAP / 2;
        }
        y += GAP / 2;
      }
      const tx = ox + tableX, ty = oy + tableY;
      label(out, d, tx, ty + 14, "Standings", { bold: true, cls: "title" });
      const rowsShown: Cell[][] = standings.slice(0, shownRows).map((st) => [
        String(st.position),
        { team: team(st) },
        { text: String(st.points ?? 0), bold: true },
        String(st.kills ?? 0),
        String(st.first_places ?? 0),
        String(st.games_played ?? 0),
      ]);
      drawTable(out, d, tx, ty + TITLE_H, STANDINGS, rowsShown, "standings");
    },
  };
}
