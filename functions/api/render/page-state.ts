// The share page's script's state (page-script.ts): what `pageMain` remembers between events and
// the picture's answers it weighs. Types only: they are erased, so the inlined script is still
// `pageMain`'s source text alone.
import type { PublicView } from "./view.ts";

/** One answer for the picture. */
export interface SvgAnswer {
  /** Its request's number: an answer to an older request is dropped. */
  seq: number;
  stage: number | null;
  status: number;
  /** From the ETag; null without one. */
  version: number | null;
  text: string;
}

/** A timer's id (a number in the browser; typed as whichever setTimeout the checker sees). */
export type Timer = ReturnType<typeof setTimeout> | undefined;

/** Everything the page remembers between events. */
export interface PageState {
  /** The PublicView shown. */
  view: PublicView | null;
  /** The stage the viewer picked; null follows the stage being played. */
  chosen: number | null;
  /** The newest version the stream announced. */
  wanted: number;
  /** The latest SVG request; older answers are dropped. */
  svgSeq: number;
  /** The SVG shown, to skip redrawing the same picture. */
  svgText: string;
  /** The next refresh. */
  timer: Timer;
  /** A refresh is running; `again`: another one was asked for meanwhile. */
  busy: boolean;
  again: boolean;
  /** The tournament is gone (or was never there): the page stops. */
  gone: boolean;
  /** Refreshes in a row whose answer was older than the stream's announcement. */
  staleTries: number;
  stream: EventSource | null;
  /** The wait before asking again after the stream was refused (doubles, to 60 s). */
  streamRetry: number;
  /** Shows "Reconnecting…" when the stream does not come back soon. */
  slowTimer: Timer;
  /** Lets the stream go when the tab stays hidden. */
  hiddenTimer: Timer;
}
