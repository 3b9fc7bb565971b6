// The bracket picture (contract section 15): one stage of a public view drawn as one
// self-contained SVG: text as <text>, no scripts, images, links, external fonts or url(). Pure:
// strings in arrays, joined once. The frame is here (stage choice, header, caption, size limit);
// each kind of stage draws its own body (elimination.ts, round-robin.ts, swiss.ts, pending.ts).
import type { PublicView, ViewMatch, ViewStage, ViewTeam } from "./view.ts";
import { FONT, THEMES } from "./theme.ts";
import { lineupTitle } from "./match.ts";
import { esc, fit, textWidth } from "./text.ts";
import type { Body, StageInput } from "./body.ts";
import { eliminationBody } from "./elimination.ts";
import { roundRobinBody } from "./round-robin.ts";
import { swissBody } from "./swiss.ts";
import { ffaBody } from "./ffa.ts";
import { pendingBody } from "./pending.ts";
import { LABELS } from "./labels.ts";

export interface RenderOptions {
  /** Default: the current stage, the highest-numbered one that is not pending, else 1. */
  stage?: number;
  theme: "light" | "dark";
  /** ?round=a-b: elimination: winners rounds a..b with the losers rounds between them; swiss rounds. */
  rounds?: [number, number];
  /** ?group=g: round robin: that group only. */
  group?: number;
  /** The longest side allowed at scale 1: the last rounds (the first groups) that fit, and a caption. */
  maxSide?: number;
}

export interface Rendered {
  svg: string;
  width: number;
  height: number;
  /** The caption when parts were left out, else null. */
  clipped: string | null;
}

const PAD = 24;
const TITLE = 20;
const MIN_WIDTH = 420;
/** The widest a caption makes the picture (it is cut with "…" beyond). */
const CAPTION_WIDTH = 720;

/** The header's height: title, subtitle, and the caption line when there is one. */
function headerHeight(caption: boolean): number {
  return PAD + 24 + 22 + (caption ? 20 : 0) + 22;
}

/** The view's stages; a view without any reads as one stage made of the tournament's format. */
function stagesOf(view: PublicView): ViewStage[] {
  if (view.stages.length) return [...view.stages].sort((a, b) => a.number - b.number);
  const t = view.tournament;
  return [{
    number: 1,
    name: "Stage 1",
    format: t.format,
    format_options: t.format_options,
    advance: null,
    status: t.status === "registration" ? "pending" : t.status,
    team_count: null,
    started_at: null,
    completed_at: null,
    standings: view.standings,
  }];
}

function pickStage(stages: ViewStage[], wanted: number | undefined): ViewStage {
  if (wanted === undefined) {
    const started = stages.filter((s) => s.status !== "pending");
    return started.length ? started[started.length - 1] : stages[0];
  }
  const stage = stages.find((s) => s.number === wanted);
  if (!stage) throw new RangeError(`stage ${wanted} names no stage of this tournament: it has stages 1-${stages.length}`);
  return stage;
}

function statusText(view: PublicView, stage: ViewStage): string {
  if (view.tournament.status === "registration") return LABELS.tournamentStatus.registration;
  return LABELS.pictureStageStatus[stage.status];
}

function body(view: PublicView, input: StageInput): Body {
  if (input.stage.status === "pending" || input.matches.length === 0) return pendingBody(input, view);
  switch (input.stage.format) {
    case "single_elimination":
    case "double_elimination":
      return eliminationBody(input);
    case "round_robin":
      return roundRobinBody(input);
    case "swiss":
      return swissBody(input);
    case "ffa":
      return ffaBody(input);
  }
}

/** Draws one stage of `view` (RangeError when `stage`, `rounds` or `group` names nothing). */
export function renderBracket(view: PublicView, options: RenderOptions): Rendered {
  const themeName = options.theme === "dark" ? "dark" : "light";
  const theme = THEMES[themeName];
  const stages = stagesOf(view);
  const stage = pickStage(stages, options.stage);
  const matches: ViewMatch[] = view.matches.filter((m) => m.stage === stage.number);
  const max = options.maxSide;
  const title = view.tournament.name;
  const least = Math.max(MIN_WIDTH, Math.min(textWidth(title, TITLE, true), 900));
  const fits = (w: number, h: number, captioned = true) =>
    max === undefined ||
    (Math.ceil(Math.max(w, least, captioned ? CAPTION_WIDTH : 0)) + 2 * PAD <= max &&
      Math.ceil(headerHeight(captioned) + h + PAD) <= max);
  const b = body(view, { stage, matches, rounds: options.rounds, group: options.group, fits });

  // Teams by id: registrations, and standings for a team whose registration is gone.
  const teams = new Map<string, ViewTeam>();
  for (const s of [...view.standings, ...stages.flatMap((x) => x.standings)]) {
    teams.set(s.team_id, { id: s.team_id, name: s.team_name, tag: s.team_tag, logo_url: null });
  }
  for (const r of view.registrations) teams.set(r.team_id, r.teams);
  // Each lineup, once, as the `<title>` of its team's names (it takes no room).
  const lineups = new Map<string, string>();
  for (const r of view.registrations) if (r.lineup.length) lineups.set(r.team_id, esc(lineupTitle(r.teams.name, r.lineup)));
  const top = headerHeight(b.clipped !== null);
  const width = Math.ceil(Math.max(b.width, least, b.clipped ? Math.min(textWidth(b.clipped, 12), CAPTION_WIDTH) : 0)) +
    2 * PAD;
  const height = Math.ceil(top + b.height + PAD);
  const room = width - 2 * PAD;
  const sub = [
    stage.name,
    stages.length > 1 ? `Stage ${stage.number} of ${stages.length}` : "",
    LABELS.formats[stage.format] ?? stage.format,
    statusText(view, stage),
  ].filter(Boolean).join(" · ");

  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" `,
    `font-family="${FONT}" data-theme="${themeName}" data-stage="${stage.number}">`,
    `<title>${esc(`${title} · ${stage.name}`)}</title>`,
    `<rect class="background" width="${width}" height="${height}" fill="${theme.bg}"/>`,
    `<g class="header">`,
    `<text x="${PAD}" y="${PAD + 20}" font-size="${TITLE}" font-weight="700" fill="${theme.text}">`,
    esc(fit(title, room, TITLE, true)),
    `</text>`,
    `<text x="${PAD}" y="${PAD + 44}" font-size="13" fill="${theme.muted}">${esc(fit(sub, room, 13))}</text>`,
  ];
  if (b.clipped) {
    out.push(
      `<text class="clipped" x="${PAD}" y="${PAD + 64}" font-size="12" fill="${theme.warn}">`,
      esc(fit(b.clipped, room, 12)),
      `</text>`,
    );
  }
  out.push(`</g>`, `<g class="stage" data-format="${stage.format}">`);
  b.draw(out, { theme, teams, lineups }, PAD, top);
  out.push(`</g></svg>`);
  return { svg: out.join(""), width, height, clipped: b.clipped };
}
