// What each kind of stage picture gives the frame (svg.ts): its size, what it left out, and how to
// draw itself at an offset. Sizes come first so that the frame can choose what fits before
// anything is drawn.
import type { Drawing } from "./match.ts";
import type { ViewMatch, ViewStage } from "./view.ts";
import { esc } from "./text.ts";
import { isDraw } from "./labels.ts";

export interface Body {
  width: number;
  height: number;
  /** What was left out, for the caption; null when everything is shown. */
  clipped: string | null;
  draw(out: string[], d: Drawing, ox: number, oy: number): void;
}

/** What a stage picture is made from. */
export interface StageInput {
  stage: ViewStage;
  /** The stage's matches. */
  matches: ViewMatch[];
  rounds?: [number, number];
  group?: number;
  /**
   * Whether a body of this size fits the picture's size limit (always true without one), with
   * the caption line that says what was left out (`captioned` false: the whole body, no caption).
   */
  fits: (width: number, height: number, captioned?: boolean) => boolean;
}

/** A line of text; `tone` picks the theme colour. */
export function label(
  out: string[],
  d: Drawing,
  x: number,
  y: number,
  text: string,
  { size = 12, bold = false, tone = "muted", anchor = "start", cls = "" }: {
    size?: number;
    bold?: boolean;
    tone?: "text" | "muted";
    anchor?: "start" | "middle" | "end";
    cls?: string;
  } = {},
): void {
  out.push(
    `<text${cls ? ` class="${cls}"` : ""} x="${x}" y="${y}" font-size="${size}" fill="${d.theme[tone]}"` +
      `${bold ? ` font-weight="700"` : ""}${anchor !== "start" ? ` text-anchor="${anchor}"` : ""}>${esc(text)}</text>`,
  );
}

/** Rounds a..b as the caption names them: "Rounds 6–10 of 10 shown; ?round=1-5 for the rest". */
export function roundsCaption(a: number, b: number, from: number, to: number, total: number): string | null {
  if (a === from && b === to) return null;
  const rest = [from < a ? `?round=${from}-${a - 1}` : "", to > b ? `?round=${b + 1}-${to}` : ""].filter(Boolean);
  return `${a === b ? `Round ${a}` : `Rounds ${a}–${b}`} of ${total} shown; ${rest.join(" and ")} for the rest`;
}

/** Checks ?round=a-b against the rounds 1..total that exist. */
export function checkRounds(rounds: [number, number] | undefined, total: number, what: string): [number, number] {
  if (!rounds) return [1, total];
  const [a, b] = rounds;
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 1 || b < a || b > total) {
    throw new RangeError(`round ${a}-${b} names no rounds of this ${what}: it has rounds 1-${total}`);
  }
  return [a, b];
}

/**
 * Whether a round-robin or swiss stage's standings show draws (contract section 19): where its
 * format_options allow them, or a draw was recorded all the same.
 */
export function showsDraws(input: StageInput): boolean {
  const { stage } = input;
  return stage.format_options.draws === true || stage.standings.some((s) => (s.draws ?? 0) > 0) || input.matches.some(isDraw);
}
