// Bracket pictures (contract section 15): the SVG drawn from a tournament's public view, and the
// same picture as PNG. Both the keyed routes (GET /tournaments/{id}/bracket.svg, .png) and the
// public ones (/public/tournaments/{slug}/bracket.svg, .png) answer through here.
import { z } from "zod";
import { ApiError } from "./errors.ts";
import { MAX_STAGES } from "./contract.ts";
import { queryInt } from "./validation.ts";
import { renderBracket } from "./render/svg.ts";
import { PNG_MAX_PIXELS, PNG_MAX_SIDE, svgToPng } from "./render/png.ts";
import type { PublicView } from "./render/view.ts";
import { type Kept, keptAnswer, type KeptRead } from "./kept.ts";

export const BracketQuery = z.object({
  stage: queryInt(1, MAX_STAGES).optional()
    .meta({ description: "The stage to draw (1 is the first); default: the current one (the last started)." }),
  theme: z.enum(["light", "dark"]).optional().meta({ description: "Colours. Default `light`." }),
  round: z.string().regex(/^[1-9][0-9]{0,3}(-[1-9][0-9]{0,3})?$/, { message: "must be a round (3) or a range of rounds (2-4)" })
    .optional().meta({
      description:
        "Only these rounds (`a-b`, or one round `a`): elimination stages (winners bracket rounds, with the losers rounds between them) and swiss.",
    }),
  group: queryInt(1, 512).optional().meta({ description: "Round robin: only this group." }),
});
export type BracketQuery = z.infer<typeof BracketQuery>;

/** Whether a path names a picture: its kind, or null. */
export function pictureKind(path: string): "svg" | "png" | null {
  return path.endsWith("/bracket.svg") ? "svg" : path.endsWith("/bracket.png") ? "png" : null;
}

/** The SVG of the view as the query asks (400 naming the parameter that names nothing). */
function draw(view: PublicView, query: BracketQuery, maxSide?: number) {
  let rounds: [number, number] | undefined;
  if (query.round !== undefined) {
    const [a, b = a] = query.round.split("-").map(Number);
    if (b < a) throw invalid("round", "the range must go from the lower round to the higher");
    rounds = [a, b];
  }
  try {
    return renderBracket(view, { stage: query.stage, theme: query.theme ?? "light", rounds, group: query.group, maxSide });
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const field = /^(stage|round|group)\b/.exec(err.message)?.[1] ?? "query";
    throw invalid(field, err.message);
  }
}

function invalid(field: string, message: string): ApiError {
  return new ApiError("validation_error", "The query string is invalid.", [{ field, message }]);
}

/** A picture drawn: its bytes (SVG text or PNG) and what it left out. */
type Drawn = Kept;

/** Runs `work`s one at a time, in the order they came. */
function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let busy = false;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (busy) await new Promise<void>((resolve) => waiting.push(resolve));
    else busy = true;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next(); // the turn passes straight to the next in line
      else busy = false;
    }
  };
}

/**
 * An instance draws one PNG at a time. Each holds the parsed view, its ~17 MB of pixels and the
 * rasteriser's working memory (resvg's wasm memory grows to the largest need and never shrinks):
 * measured on the bench's largest picture, 10 drawn at once took the function to 460 MB, one at
 * a time 267-306 MB (docs/performance.md).
 */
const drawingPng = oneAtATime();

/**
 * The public PNG requests of this instance, one at a time from before the database is asked:
 * those waiting hold no view (2.5 MB of JSON for the bench's bracket, and the driver's buffers).
 * Separate from the drawing's turn, which the keyed routes take alone.
 */
export const publicPngRequest = oneAtATime();

/** Draws the picture of a public view's JSON text (as SQL made it); PNGs one at a time. */
function drawPicture(
  kind: "svg" | "png",
  view: string,
  query: BracketQuery,
  readFile: ((url: URL) => Promise<Uint8Array>) | undefined,
): Promise<Drawn> {
  return kind === "png" ? drawingPng(() => drawNow(kind, view, query, readFile)) : drawNow(kind, view, query, readFile);
}

async function drawNow(
  kind: "svg" | "png",
  view: string,
  query: BracketQuery,
  readFile: ((url: URL) => Promise<Uint8Array>) | undefined,
): Promise<Drawn> {
  const doc = JSON.parse(view) as PublicView;
  let picture = draw(doc, query, kind === "png" ? PNG_MAX_SIDE : undefined);
  // A PNG also stays within PNG_MAX_PIXELS at scale 1 (its time and memory grow with pixels):
  // fewer rounds (or groups), each as legible, rather than everything too small to read.
  for (let side = PNG_MAX_SIDE; kind === "png" && picture.width * picture.height > PNG_MAX_PIXELS && side > 1024;) {
    side = Math.floor(side * 0.8);
    picture = draw(doc, query, side);
  }
  if (kind === "svg") return { body: picture.svg, clipped: picture.clipped };
  if (!readFile) throw new ApiError("service_unavailable", "PNG pictures are not available on this deployment.");
  return { body: await svgToPng(picture.svg, picture.width, picture.height, readFile), clipped: picture.clipped };
}

/**
 * What draws the public PNGs kept in the database (app.pictures.drawn_by): a kept PNG drawn by
 * anything else is drawn again. Change it with any change that alters how a picture looks (the
 * layout in render/, the fonts, resvg), or pictures kept before it are sent until their
 * tournament changes.
 */
export const PICTURES_DRAWN_BY = "resvg-wasm 2.6.2, Inter 400/700, render 2026-11-28.2";

/** The name of a public PNG kept in the database (app.pictures), or null: only whole stages' are kept. */
export function keptKey(query: BracketQuery): string | null {
  if (query.round !== undefined || query.group !== undefined) return null;
  return `png|${query.stage ?? ""}|${query.theme ?? "light"}`;
}

/** A PNG the database kept ({kept: base64, clipped}, api.public_call's 'picture'), or null when it sent the view. */
function keptPicture(text: string): Drawn | null {
  if (!text.startsWith('{"kept"')) return null;
  const { kept, clipped } = JSON.parse(text) as { kept: string; clipped: string | null };
  const binary = atob(kept);
  const body = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) body[i] = binary.charCodeAt(i);
  return { body, clipped };
}

/** The name a picture is kept under (kept.ts): whose (`public:<slug>` or `keyed:<id>`), its kind and query. */
export function pictureKey(owner: string, kind: "svg" | "png", query: BracketQuery): string {
  return `${owner}|${kind}|${query.stage ?? ""}|${query.theme ?? "light"}|${query.round ?? ""}|${query.group ?? ""}`;
}

/**
 * The picture's response. `view` is the public view's JSON text at `version`, or a PNG the
 * database kept at that version; or null when the database answered that the tournament is still
 * at the version kept by this instance (`read`, taken before it was asked), whose bytes are sent
 * again. A PNG drawn here is handed to `keep` (the public routes keep whole stages' PNGs in the
 * database, for every instance). A PNG is drawn at most PNG_MAX_SIDE pixels on a side and
 * PNG_MAX_PIXELS in all: a bracket too large to be legible there shows the rounds that fit (or
 * the first groups) and says so (also in X-Bracket-Clipped). HEAD answers the headers without
 * drawing.
 */
export async function pictureResponse(
  kind: "svg" | "png",
  read: KeptRead,
  version: number,
  view: string | null,
  query: BracketQuery,
  req: Request,
  headers: Headers,
  readFile: ((url: URL) => Promise<Uint8Array>) | undefined,
  keep?: (drawn: { body: Uint8Array; clipped: string | null }) => Promise<unknown>,
): Promise<Response> {
  // Nothing in the picture may run or fetch, wherever it is opened.
  headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
  headers.set("Content-Type", kind === "svg" ? "image/svg+xml; charset=utf-8" : "image/png");
  if (req.method === "HEAD") return new Response(null, { status: 200, headers });
  const drawn = await keptAnswer(read, version, view, async (fresh) => {
    const stored = kind === "png" ? keptPicture(fresh) : null;
    if (stored) return stored;
    const d = await drawPicture(kind, fresh, query, readFile);
    if (keep && d.body instanceof Uint8Array) await keep({ body: d.body, clipped: d.clipped });
    return d;
  });
  if (drawn.clipped) headers.set("X-Bracket-Clipped", encodeURIComponent(drawn.clipped));
  return new Response(drawn.body as BodyInit, { status: 200, headers });
}
