// A stage that has not started (a tournament still in registration): the registered teams, by
// seed asked for, then registration order (the order seeds are given in at the start), in
// columns; for a later stage, who goes on to it.
import type { PublicView, ViewRegistration, ViewStage } from "./view.ts";
import { type Body, label, type StageInput } from "./body.ts";
import { teamText } from "./match.ts";
import { fit } from "./text.ts";

const ENTRY_W = 260;
const ENTRY_H = 26;
const SPACE = 24;
const LIST_TOP = 84;

/** Registrations in seed order: explicit seeds first (by seed), then by registration time. */
export function seedOrder(registrations: ViewRegistration[]): ViewRegistration[] {
  return [...registrations].sort((x, y) =>
    (x.seed ?? Infinity) - (y.seed ?? Infinity) || x.registered_at.localeCompare(y.registered_at) ||
    x.id.localeCompare(y.id)
  );
}

function advanceLine(view: PublicView, stage: ViewStage): string {
  const before = view.stages.find((s) => s.number === stage.number - 1);
  const rule = before?.advance;
  if (!before || !rule) return "";
  const perGroup = rule.per_group, best = rule.best_next, top = rule.top;
  const what = typeof perGroup === "number"
    ? `the top ${perGroup} of each group${typeof best === "number" && best > 0 ? ` and the ${best} best next` : ""}`
    : typeof top === "number"
    ? `the top ${top}`
    : "the qualifiers";
  return `Teams going on: ${what} of ${before.name}`;
}

/** The teams picture of a stage not started yet. */
export function pendingBody(input: StageInput, view: PublicView): Body {
  if (input.rounds) throw new RangeError(`round names nothing: stage ${input.stage.number} has not started`);
  if (input.group !== undefined) throw new RangeError(`group names nothing: stage ${input.stage.number} has not started`);
  const teams = seedOrder(view.registrations);
  const advance = advanceLine(view, input.stage);
  const layout = (count: number) => {
    const columns = Math.max(1, Math.ceil(Math.sqrt(count / 6)));
    const perColumn = Math.max(1, Math.ceil(count / columns));
    return {
      columns,
      perColumn,
      width: Math.max(columns * (ENTRY_W + SPACE) - SPACE, 420),
      height: (advance ? LIST_TOP : LIST_TOP - 20) + Math.max(1, perColumn) * ENTRY_H,
    };
  };
  let count = teams.length;
  let l = layout(count);
  const whole = input.fits(l.width, l.height, false);
  while (!whole && count > 1 && !input.fits(l.width, l.height)) l = layout(count = Math.floor(count * 0.85));
  const shown = l;
  return {
    width: shown.width,
    height: shown.height,
    clipped: count < teams.length ? `Teams 1–${count} of ${teams.length} shown` : null,
    draw(out, d, ox, oy) {
      label(out, d, ox, oy + 16, "Bracket drawn when the stage starts", { size: 14, bold: true, tone: "text" });
      const heading = teams.length === 0
        ? "No teams registered yet"
        : `${teams.length} registered team${teams.length === 1 ? "" : "s"}, in seed order`;
      label(out, d, ox, oy + 40, fit(heading, shown.width, 12), { size: 12 });
      if (advance) label(out, d, ox, oy + 60, fit(advance, shown.width, 12), { size: 12 });
      teams.slice(0, count).forEach((r, i) => {
        const x = ox + Math.floor(i / shown.perColumn) * (ENTRY_W + SPACE);
        const y = oy + (advance ? LIST_TOP : LIST_TOP - 20) + (i % shown.perColumn) * ENTRY_H;
        out.push(
          `<g class="entry">`,
          `<rect x="${x}" y="${y}" width="${ENTRY_W}" height="${ENTRY_H - 4}" rx="3" `,
          `fill="${d.theme.surface}" stroke="${d.theme.border}"/>`,
        );
        label(out, d, x + 28, y + 15, String(i + 1), { size: 10, anchor: "end" });
        teamText(out, r.teams, x + 36, y + 15, ENTRY_W - 44, 12, d.theme.text, false, d.lineups.get(r.team_id));
        out.push(`</g>`);
      });
    },
  };
}
