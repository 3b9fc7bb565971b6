// A plain table (a head row, then rows, zebra-striped) for standings, cross-tables and team lists.
import type { ViewTeam } from "./view.ts";
import type { Theme } from "./theme.ts";
import { type Drawing, teamText } from "./match.ts";
import { esc, fit, textWidth } from "./text.ts";

export const ROW = 24;
const SIZE = 12;

export interface Column {
  title: string;
  width: number;
  align?: "start" | "middle" | "end";
}

export type Cell =
  | null
  | string
  | { team: ViewTeam; bold?: boolean }
  | { text: string; bold?: boolean; tone?: "text" | "muted"; fill?: keyof Theme; title?: string };

export function tableWidth(columns: Column[]): number {
  return columns.reduce((sum, c) => sum + c.width, 0);
}

/** Text in a cell of `width`, anchored as the column says; numbers shrink rather than lose digits. */
function cellText(
  out: string[],
  x: number,
  y: number,
  width: number,
  align: Column["align"],
  text: string,
  fill: string,
  bold: boolean,
  shrink: boolean,
): void {
  let size = SIZE;
  const room = width - 10;
  let shown = text;
  if (textWidth(text, size, bold) > room) {
    if (shrink) size = Math.max(7, Math.floor(size * room / textWidth(text, size, bold)));
    shown = fit(text, room, size, bold);
  }
  const at = align === "middle" ? x + width / 2 : align === "end" ? x + width - 6 : x + 6;
  out.push(
    `<text x="${at}" y="${y}" font-size="${size}" fill="${fill}"`,
    bold ? ` font-weight="700"` : "",
    align && align !== "start" ? ` text-anchor="${align}"` : "",
    `>${esc(shown)}</text>`,
  );
}

/** Draws the table with its top left corner at (x, y): ROW × (rows + 1) high. */
export function drawTable(out: string[], d: Drawing, x: number, y: number, columns: Column[], rows: Cell[][], cls = "table"): void {
  const { theme } = d;
  const width = tableWidth(columns);
  const height = ROW * (rows.length + 1);
  out.push(
    `<g class="${cls}">`,
    `<rect x="${x}" y="${y}" width="${width}" height="${height}" rx="3" fill="${theme.surface}" stroke="${theme.border}"/>`,
    `<rect x="${x + 1}" y="${y + 1}" width="${width - 2}" height="${ROW - 1}" fill="${theme.surfaceAlt}"/>`,
  );
  const stripes: string[] = [];
  for (let i = 1; i < rows.length; i += 2) stripes.push(`M${x + 1} ${y + ROW * (i + 1) + 12}H${x + width - 1}`);
  if (stripes.length) out.push(`<path d="${stripes.join("")}" stroke="${theme.bg}" stroke-width="${ROW - 1}"/>`);
  let cx = x;
  for (const c of columns) {
    if (c.title) cellText(out, cx, y + 16, c.width, c.align, c.title, theme.muted, true, false);
    cx += c.width;
  }
  rows.forEach((row, i) => {
    const top = y + ROW * (i + 1);
    let left = x;
    row.forEach((cell, j) => {
      const c = columns[j];
      if (cell !== null && typeof cell === "object" && "fill" in cell && cell.fill) {
        out.push(`<rect x="${left + 1}" y="${top + 1}" width="${c.width - 2}" height="${ROW - 2}" fill="${theme[cell.fill]}"/>`);
      }
      if (cell === null) {
        // empty
      } else if (typeof cell === "string") {
        if (cell) cellText(out, left, top + 16, c.width, c.align, cell, theme.text, false, true);
      } else if ("team" in cell) {
        teamText(out, cell.team, left + 6, top + 16, c.width - 12, SIZE, theme.text, cell.bold ?? false, d.lineups.get(cell.team.id));
      } else if (cell.text) {
        // A tooltip (a browser shows it on hover; it takes no room) wraps the text in a group.
        if (cell.title) out.push(`<g class="note"><title>${esc(cell.title)}</title>`);
        cellText(out, left, top + 16, c.width, c.align, cell.text, theme[cell.tone ?? "text"], cell.bold ?? false, true);
        if (cell.title) out.push(`</g>`);
      }
      left += c.width;
    });
  });
  out.push(`</g>`);
}
