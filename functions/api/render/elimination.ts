// Single and double elimination as trees, rounds left to right, joined by connector lines.
//
// Single elimination: winners round r in column r; the third-place match under the final.
// Double elimination: columns follow time. Winners round r sits in column 2(r - 1), losers round l
// in column l, so each winners round stands above the losers round its losers drop into (losers
// round 2(r - 1)), and the odd losers rounds fall between. The grand final comes after the finals
// of both brackets (which share the last column), half-way between them; its reset beside it.
// ?round=a-b keeps winners rounds a..b and the losers rounds that belong to them (losers rounds
// 2r - 3 and 2r - 2 belong to winners round r), so that 1-5 and 6-10 together show everything once.
import type { ViewMatch } from "./view.ts";
import { BOX_H, BOX_W, drawMatch, type EmptySlot, META_H } from "./match.ts";
import { type Body, checkRounds, label, roundsCaption, type StageInput } from "./body.ts";

const GAP = 44;
const PITCH = BOX_W + GAP;
/** The height of a round-1 slot: series line, box and air. */
const SLOT = 74;
/** A box's top from its slot's centre (box and series line centred together). */
const LIFT = 16;
const WIRE = BOX_H / 2;

interface Box {
  m: ViewMatch;
  x: number;
  y: number;
  empty: [EmptySlot, EmptySlot];
  note: string;
}

interface Text {
  x: number;
  y: number;
  text: string;
  size: number;
  tone: "text" | "muted";
}

interface Plan {
  width: number;
  height: number;
  /** The most matches a drawn column has (before a limit). */
  most: number;
  boxes: Box[];
  texts: Text[];
}

/** The matches of one bracket, by round, each round in position order. */
function byRound(matches: ViewMatch[]): Map<number, ViewMatch[]> {
  const rounds = new Map<number, ViewMatch[]>();
  for (const m of matches) {
    const list = rounds.get(m.round);
    if (list) list.push(m);
    else rounds.set(m.round, [m]);
  }
  for (const list of rounds.values()) list.sort((x, y) => x.position - y.position);
  return rounds;
}

interface Brackets {
  winners: Map<number, ViewMatch[]>;
  losers: Map<number, ViewMatch[]>;
  grand: ViewMatch[];
  third: ViewMatch | undefined;
  /** Winners rounds. */
  k: number;
  double: boolean;
  /** For each match, the matches that send it a team (by winner or loser). */
  feeders: Map<string, Array<{ m: ViewMatch; loser: boolean }>>;
}

function brackets(matches: ViewMatch[], double: boolean): Brackets {
  const feeders = new Map<string, Array<{ m: ViewMatch; loser: boolean }>>();
  const feed = (to: string | null, m: ViewMatch, loser: boolean) => {
    if (!to) return;
    const list = feeders.get(to);
    if (list) list.push({ m, loser });
    else feeders.set(to, [{ m, loser }]);
  };
  for (const m of matches) {
    feed(m.next_match_id, m, false);
    feed(m.loser_next_match_id, m, true);
  }
  const winners = byRound(matches.filter((m) => m.bracket === "winners" || m.bracket === null));
  return {
    winners,
    losers: byRound(matches.filter((m) => m.bracket === "losers")),
    grand: matches.filter((m) => m.bracket === "grand_final").sort((x, y) => x.round - y.round),
    third: matches.find((m) => m.bracket === "third_place"),
    k: Math.max(1, ...winners.keys()),
    double,
    feeders,
  };
}

/** The slot (1 or 2) a feeder's team takes in `to` (the database's next_slot and loser_next_slot). */
function slotOf(from: ViewMatch, loser: boolean, to: ViewMatch): 1 | 2 {
  if (to.bracket === "grand_final") return from.bracket === "winners" && !loser ? 1 : 2;
  if (to.bracket === "losers" && to.round > 1 && to.round % 2 === 0) return loser ? 1 : 2;
  return from.position % 2 === 1 ? 1 : 2;
}

/** Whether a team will (or did) come out of `m`: a bye fed by nothing yields no one. */
function live(b: Brackets, m: ViewMatch, depth = 0): boolean {
  if (m.status !== "bye" || m.team1_id || m.team2_id || depth > 64) return true;
  return (b.feeders.get(m.id) ?? []).some((f) => !f.loser && live(b, f.m, depth + 1) || f.loser && f.m.status !== "bye");
}

/** What each side without a team shows. */
function emptySlots(b: Brackets, m: ViewMatch): [EmptySlot, EmptySlot] {
  if (m.status !== "bye") return ["tbd", "tbd"];
  const coming: [boolean, boolean] = [false, false];
  for (const f of b.feeders.get(m.id) ?? []) {
    if (f.loser ? f.m.status !== "bye" : live(b, f.m)) coming[slotOf(f.m, f.loser, m) - 1] = true;
  }
  return [coming[0] ? "tbd" : "bye", coming[1] ? "tbd" : "bye"];
}

function roundName(b: Brackets, r: number): string {
  if (b.double) return r === b.k ? "Winners final" : `Round ${r}`;
  const left = b.k - r;
  return left === 0 ? "Final" : left === 1 ? "Semi-finals" : left === 2 ? "Quarter-finals" : `Round ${r}`;
}

/**
 * Places one bracket's rounds: `cols` gives each round's column (rounds without one are not
 * drawn), `top` the tree's top; a round of c matches gives each base / c slots, base being the
 * largest round's count; at most `limit` slots: the first matches of each round. Returns the
 * tree's height.
 */
function placeTree(
  plan: Plan,
  b: Brackets,
  rounds: Map<number, ViewMatch[]>,
  cols: Map<number, number>,
  top: number,
  limit: number,
): number {
  let base = 0;
  for (const r of cols.keys()) base = Math.max(base, rounds.get(r)?.length ?? 0);
  plan.most = Math.max(plan.most, base);
  const share = Math.min(1, limit / Math.max(1, base));
  let bottom = Math.ceil(base * share) * SLOT;
  for (const [r, col] of cols) {
    const list = rounds.get(r) ?? [];
    // Whole rounds as a tree; the first matches of each round (too many for one picture) stacked.
    const span = share < 1 ? 1 : base / Math.max(1, list.length);
    const kept = Math.ceil(list.length * share);
    for (const m of list) {
      if (m.position > kept) continue;
      const centre = top + Math.round(((m.position - 1) * span + span / 2) * SLOT);
      plan.boxes.push({ m, x: col * PITCH, y: centre - LIFT, empty: emptySlots(b, m), note: "" });
      // (With matches left out, a later round's kept match may sit below the first round's last.)
      bottom = Math.max(bottom, centre - top + Math.ceil(SLOT / 2));
    }
  }
  return bottom;
}

function titles(plan: Plan, cols: Map<number, number>, y: number, name: (r: number) => string): void {
  for (const [r, col] of cols) plan.texts.push({ x: col * PITCH, y, text: name(r), size: 12, tone: "muted" });
}

/** A match placed on its own (final's companions): its title above its series line. */
function single(plan: Plan, b: Brackets, m: ViewMatch, col: number, y: number, title: string, note = ""): void {
  plan.boxes.push({ m, x: col * PITCH, y, empty: note ? ["blank", "blank"] : emptySlots(b, m), note });
  plan.texts.push({ x: col * PITCH, y: y - META_H - 8, text: title, size: 12, tone: "muted" });
}

function planSingle(b: Brackets, a: number, z: number, limit: number): Plan {
  const plan: Plan = { width: 0, height: 0, most: 0, boxes: [], texts: [] };
  const cols = new Map<number, number>();
  for (let r = a; r <= z; r++) cols.set(r, r - a);
  titles(plan, cols, 14, (r) => roundName(b, r));
  let height = 32 + placeTree(plan, b, b.winners, cols, 32, limit);
  const final = plan.boxes.find((x) => x.m.round === b.k && x.m.next_match_id === null);
  if (final && b.third) {
    const y = final.y + BOX_H + 52;
    single(plan, b, b.third, z - a, y, "Third place");
    height = Math.max(height, y + BOX_H + 16);
  }
  plan.width = (z - a + 1) * PITCH - GAP;
  plan.height = height;
  return plan;
}

function planDouble(b: Brackets, a: number, z: number, limit: number): Plan {
  const plan: Plan = { width: 0, height: 0, most: 0, boxes: [], texts: [] };
  const lo = Math.max(1, 2 * a - 3), hi = b.k > 1 ? 2 * z - 2 : 0;
  const shift = lo <= hi ? Math.min(2 * (a - 1), lo) : 2 * (a - 1);
  const wCols = new Map<number, number>(), lCols = new Map<number, number>();
  for (let r = a; r <= z; r++) wCols.set(r, 2 * (r - 1) - shift);
  for (let l = lo; l <= hi; l++) if (b.losers.has(l)) lCols.set(l, l - shift);
  let lastCol = Math.max(...wCols.values(), ...lCols.values());

  plan.texts.push({ x: 0, y: 16, text: "Winners bracket", size: 14, tone: "text" });
  titles(plan, wCols, 40, (r) => roundName(b, r));
  let y = 52 + placeTree(plan, b, b.winners, wCols, 52, limit);
  const wFinal = plan.boxes.find((x) => x.m.bracket === "winners" && x.m.round === b.k);
  let lFinal: Box | undefined;
  if (lCols.size) {
    y += 24;
    plan.texts.push({ x: 0, y: y + 16, text: "Losers bracket", size: 14, tone: "text" });
    titles(plan, lCols, y + 40, (l) => l === 2 * b.k - 2 ? "Losers final" : `Losers round ${l}`);
    y += 52 + placeTree(plan, b, b.losers, lCols, y + 52, limit);
    lFinal = plan.boxes.find((x) => x.m.bracket === "losers" && x.m.round === 2 * b.k - 2);
  }
  let height = y;
  const [gf, reset] = b.grand;
  if (wFinal && gf) {
    const top = lFinal ? Math.round((wFinal.y + lFinal.y) / 2) : wFinal.y;
    single(plan, b, gf, ++lastCol, top, "Grand final");
    if (reset) {
      const idle = reset.status === "bye" && !reset.team1_id && !reset.team2_id;
      single(plan, b, reset, ++lastCol, top, "Reset", idle ? "Not needed" : "");
    }
    height = Math.max(height, top + BOX_H + 16);
  }
  plan.width = (lastCol + 1) * PITCH - GAP;
  plan.height = height;
  return plan;
}

function drawPlan(plan: Plan, out: string[], d: Parameters<Body["draw"]>[1], ox: number, oy: number): void {
  const at = new Map<string, Box>();
  for (const box of plan.boxes) at.set(box.m.id, box);
  // One path for every connector: winner of a match → the match it goes to, when both are drawn.
  const wires: string[] = [];
  for (const box of plan.boxes) {
    const next = box.m.next_match_id ? at.get(box.m.next_match_id) : undefined;
    if (!next) continue;
    const x1 = ox + box.x + BOX_W, y1 = oy + box.y + WIRE, x2 = ox + next.x, y2 = oy + next.y + WIRE;
    wires.push(y1 === y2 ? `M${x1} ${y1}H${x2}` : `M${x1} ${y1}H${x2 - GAP / 2}V${y2}H${x2}`);
  }
  if (wires.length) {
    out.push(`<path class="wires" d="${wires.join("")}" fill="none" stroke="${d.theme.line}" stroke-width="1.5"/>`);
  }
  for (const t of plan.texts) {
    label(out, d, ox + t.x, oy + t.y, t.text, { size: t.size, bold: true, tone: t.tone, cls: "title" });
  }
  for (const box of plan.boxes) drawMatch(out, d, box.m, ox + box.x, oy + box.y, box.empty, box.note);
}

/**
 * The winners-bracket round being played: the earliest with a match ready to be played (a losers
 * round l counts as the winners round whose column it shares); null when none is ready.
 */
function currentRound(b: Brackets): number | null {
  let current: number | null = null;
  const consider = (r: number) => (current = current === null ? r : Math.min(current, r));
  for (const [r, ms] of b.winners) if (ms.some((m) => m.status === "ready")) consider(r);
  for (const [l, ms] of b.losers) if (ms.some((m) => m.status === "ready")) consider(Math.min(b.k, (l + 3) >> 1));
  return current;
}

/**
 * The picture of an elimination stage; with a size limit, the rounds that fit: the last ones,
 * unless the round being played is earlier (a bracket just started: its later rounds are all
 * TBD), then the rounds that fit from the one being played.
 */
export function eliminationBody(input: StageInput): Body {
  if (input.group !== undefined) throw new RangeError("group names nothing in an elimination bracket: it has no groups");
  const b = brackets(input.matches, input.stage.format === "double_elimination");
  const [from, to] = checkRounds(input.rounds, b.k, "bracket");
  let z = to;
  const plan = (a: number, limit: number) => (b.double ? planDouble : planSingle)(b, a, z, limit);
  let a = from;
  let p = plan(a, Infinity);
  const whole = input.fits(p.width, p.height, false);
  while (!whole && !input.fits(p.width, p.height) && a < to) p = plan(++a, Infinity);
  const current = whole ? null : currentRound(b);
  if (current !== null && current >= from && current < a) {
    a = current; // from the round being played, as many rounds as fit across
    while (z > a && !input.fits(plan(a, 1).width, 1)) z--;
    p = plan(a, Infinity);
  }
  let clipped = roundsCaption(a, z, from, to, b.k);
  if (!whole && !input.fits(p.width, p.height)) {
    // Even one round is too tall: keep the top of the bracket (the first matches of each round).
    const most = p.most;
    let kept = most;
    while (kept > 1 && !input.fits(p.width, p.height)) {
      kept = Math.max(1, Math.floor(kept * 0.8));
      p = plan(a, kept);
    }
    const note = `Matches 1–${kept} of ${most} of each round shown: too many for one picture`;
    // (From the round being played, the first matches of each round: its teams, not TBDs.)
    clipped = clipped ? `${clipped}; ${note}` : note;
  }
  const shown = p;
  return { width: shown.width, height: shown.height, clipped, draw: (out, d, ox, oy) => drawPlan(shown, out, d, ox, oy) };
}
