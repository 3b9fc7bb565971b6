/// <reference lib="dom" />
// The share page's script (page.ts), the drawing's part: what draws a public view without the
// page's state: building DOM (by textContent only: names come from users), reading the view, the
// header, stage tabs and the notices that replace the page's content. The standings and upcoming
// matches cards are page-cards.ts, drawn with these helpers.
//
// page.ts inlines `pageDraw` by its source text (`(${pageDraw})(labels, ${pageCards})`) and hands
// what it returns to `pageMain` (page-script.ts): its body may use only the browser's globals, its
// parameters and its own locals, never an import or anything else of this module (only types may
// be imported: they are erased).
import type { Labels } from "./labels.ts";
import type { pageCards } from "./page-cards.ts";
import type { PublicView, ViewStage, ViewTeam } from "./view.ts";

/** An attribute for `h`: `text` sets textContent, `class` the class; null, undefined and false set nothing. */
export type Prop = string | number | boolean | null | undefined;
/** A child for `h`: a node, or text; null, undefined and false add nothing. */
export type Kid = Node | string | number | null | undefined | false;
/** Teams by id (from the registrations). */
export type TeamsById = Record<string, ViewTeam>;
/** What `pageDraw` gives the page's script. */
export type PageDraw = ReturnType<typeof pageDraw>;

/** The drawing helpers, with the labels table (labels.ts) and the cards' maker (page-cards.ts); self-contained (inlined in the page by its source text). */
export function pageDraw(labels: Labels, cards: typeof pageCards) {
  const FORMATS = labels.formats;
  const STATUS = labels.tournamentStatus;
  const STAGE_STATUS = labels.stageStatus;
  const timeFormat = new Intl.DateTimeFormat(undefined, {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
  const dayFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "long", year: "numeric" });
  const $ = (id: string): HTMLElement => document.getElementById(id) as HTMLElement;

  function h(tag: string, props?: Record<string, Prop> | null, kids?: Kid | Kid[]): HTMLElement {
    const el = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach((k) => {
        const v = props[k];
        if (v === null || v === undefined || v === false) return;
        if (k === "text") el.textContent = String(v);
        else if (k === "class") el.className = String(v);
        else el.setAttribute(k, v === true ? "" : String(v));
      });
    }
    ([] as Kid[]).concat(kids === undefined ? [] : kids).forEach((c) => {
      if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    });
    return el;
  }
  const groupName = (g: number) => String(g); // as the SVG names them
  const plural = (n: number, one: string, many: string) => n + " " + (n === 1 ? one : many);

  function stageOf(v: PublicView, n: number): ViewStage | null {
    return v.stages.filter((s) => s.number === n)[0] || null;
  }
  /** The stage being played: the tournament's, else the last started one. */
  function currentStage(v: PublicView): number {
    const own = (v.tournament as { stage?: unknown }).stage; // not in the public view today
    if (typeof own === "number") return own;
    const started = v.stages.filter((s) => s.status !== "pending");
    return started.length ? started[started.length - 1].number : (v.stages[0] ? v.stages[0].number : 1);
  }
  const drawn = (v: PublicView) => v.tournament.status !== "registration" && v.matches.length > 0;

  function teamsById(v: PublicView): TeamsById {
    const map: TeamsById = {};
    v.registrations.forEach((r) => {
      if (r.teams) map[r.team_id] = r.teams;
    });
    return map;
  }

  function teamCell(name: string, tag: string): Kid[] {
    return [h("span", { class: "p-tname", text: name }), tag && tag !== name ? h("span", { class: "p-ttag", text: tag }) : null];
  }

  // The cards, given the helpers they draw with (pageCards, inlined as this function's parameter).
  const { renderStandings, renderUpcoming } = cards({
    $,
    h,
    stageOf,
    drawn,
    plural,
    teamCell,
    groupName,
    timeFormat,
    reports: labels.report,
  });

  /** Draws `v` with stage `selected` shown; `onPick` is called with the stage of a tab clicked. */
  function renderView(v: PublicView, selected: number, onPick: (stage: number) => void): void {
    const t = v.tournament;
    const stage = stageOf(v, selected);
    const teams = teamsById(v);
    const playing = v.registrations.length;
    document.title = t.name + " — " + (t.status === "completed" ? "results" : "live bracket");
    $("p-name").textContent = t.name;
    const desc = $("p-desc");
    desc.textContent = t.description || "";
    desc.hidden = !t.description;
    const formats = v.stages.length > 1
      ? v.stages.map((s) => FORMATS[s.format] || s.format).join(" → ")
      : FORMATS[t.format] || "Tournament";
    $("p-eyebrow").textContent = formats + " · " + plural(playing, "team", "teams");

    const chips = [h("li", { class: "p-chip", "data-kind": t.status, text: STATUS[t.status] || t.status })];
    if (v.stages.length > 1 && stage) {
      chips.push(
        h("li", {
          class: "p-chip",
          text: "Stage " + currentStage(v) + " of " + v.stages.length + " · " + (stageOf(v, currentStage(v)) || stage).name,
        }),
      );
    }
    const bestOf = stage && stage.format_options ? Number(stage.format_options.best_of) : 0;
    if (bestOf > 1) chips.push(h("li", { class: "p-chip", text: "Best of " + bestOf }));
    if (t.starts_at) {
      const starts = new Date(t.starts_at);
      chips.push(
        h(
          "li",
          { class: "p-chip" },
          h("time", {
            datetime: t.starts_at,
            text: starts.getTime() > Date.now() ? "Starts " + timeFormat.format(starts) : "Started " + dayFormat.format(starts),
          }),
        ),
      );
    }
    if (t.status === "completed" && v.standings.length) {
      const champion = v.standings.filter((s) => s.position === 1);
      if (champion.length === 1) {
        chips.push(h("li", { class: "p-chip", "data-kind": "champion", text: "Champion: " + champion[0].team_name }));
      }
    }
    $("p-chips").replaceChildren(...chips);

    renderTabs(v, selected, onPick);
    const what = stage && stage.format === "round_robin"
      ? "Groups"
      : stage && stage.format === "swiss"
      ? "Rounds"
      : stage && stage.format === "ffa"
      ? "Lobbies"
      : "Bracket";
    $("p-bracket-h").textContent = what;
    $("p-bracket-sub").textContent = stage ? (v.stages.length > 1 ? stage.name + " · " : "") + (FORMATS[stage.format] || "") : "";
    renderStandings(v, stage);
    renderUpcoming(v, teams);
  }

  function renderTabs(v: PublicView, selected: number, onPick: (stage: number) => void): void {
    const tabs = $("p-tabs");
    const started = v.stages.filter((s) => s.status !== "pending");
    tabs.hidden = started.length < 2;
    if (tabs.hidden) {
      tabs.replaceChildren();
      return;
    }
    tabs.replaceChildren(...started.map((s) => {
      const b = h("button", {
        type: "button",
        class: "p-tab",
        role: "tab",
        "aria-selected": String(s.number === selected),
        "aria-controls": "p-bracket",
        "data-stage": s.number,
      }, [s.name, h("small", { text: STAGE_STATUS[s.status] || s.status })]);
      b.addEventListener("click", () => onPick(s.number));
      return b;
    }));
  }

  /** Replaces the page's content with a notice (the tournament is gone, or viewer.html lacks its parameters). */
  function showNotice(icon: string, title: string, body: Kid[]): void {
    $("p-conn").hidden = true;
    $("p-chips").replaceChildren();
    $("p-tabs").hidden = true;
    $("p-desc").hidden = true;
    $("p-eyebrow").textContent = "Tournament";
    $("p-name").textContent = title;
    document.title = title;
    const main = $("p-main");
    main.removeAttribute("aria-busy");
    main.replaceChildren(h(
      "section",
      { class: "p-card p-notice", role: "alert" },
      ([
        h("div", { class: "p-notice-icon", "aria-hidden": "true", text: icon }),
        h("h2", { text: title }),
      ] as Kid[]).concat(body),
    ));
  }

  return { $, h, stageOf, currentStage, drawn, renderView, showNotice };
}
