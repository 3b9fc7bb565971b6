/// <reference lib="dom" />
// The share page's script (page.ts), part one: what draws without the page's state: building DOM
// (by textContent only: names come from users), reading a public view, cleaning and cropping the
// server's SVG, and the standings and upcoming-matches cards.
//
// page.ts inlines `pageDraw` by its source text (`(${pageDraw})()`) and hands what it returns to
// `pageMain` (page-script.ts): its body may use only the browser's globals and its own locals,
// never an import or anything else of this module (only types may be imported: they are erased).
import type { PublicView, ViewMatch, ViewStage, ViewStanding, ViewTeam } from "./view.ts";

/** An attribute for `h`: `text` sets textContent, `class` the class; null, undefined and false set nothing. */
export type Prop = string | number | boolean | null | undefined;
/** A child for `h`: a node, or text; null, undefined and false add nothing. */
export type Kid = Node | string | number | null | undefined | false;
/** Teams by id (from the registrations). */
export type TeamsById = Record<string, ViewTeam>;
/** What `pageDraw` gives the page's script. */
export type PageDraw = ReturnType<typeof pageDraw>;

/** The drawing helpers; self-contained (inlined in the page by its source text). */
export function pageDraw() {
  const SHOWN_UPCOMING = 8;
  const timeFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
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
    if (typeof v.tournament.stage === "number") return v.tournament.stage;
    const started = v.stages.filter((s) => s.status !== "pending");
    return started.length ? started[started.length - 1].number : (v.stages[0] ? v.stages[0].number : 1);
  }
  const drawn = (v: PublicView) => v.tournament.status !== "registration" && v.matches.length > 0;

  // Strips anything active from the server's SVG (it has none; a page must not trust that).
  // Only what a drawing needs survives: SVG elements, no link, script or foreign content (an API
  // named by viewer.html's ?api= may be anyone's), no event or reference attribute.
  const SVG_NS = "http://www.w3.org/2000/svg";
  const DRAWING = /^(svg|g|rect|line|path|polyline|polygon|circle|ellipse|text|tspan|title|desc|defs|style|lineargradient|stop|clippath|use)$/i;
  function inert(root: Element): void {
    root.querySelectorAll("a").forEach((el) => el.replaceWith(...Array.from(el.childNodes)));
    Array.from(root.querySelectorAll("*")).forEach((el) => {
      if (el.namespaceURI !== SVG_NS || !DRAWING.test(el.localName)) el.remove();
    });
    [root].concat(Array.from(root.querySelectorAll("*"))).forEach((el) => {
      Array.from(el.attributes).forEach((a) => {
        const name = a.name.toLowerCase();
        if (name.indexOf("on") === 0 || ((name === "href" || name === "xlink:href" || name === "src") && a.value.charAt(0) !== "#")) {
          el.removeAttribute(a.name);
        }
      });
    });
    root.querySelectorAll("style").forEach((s) => {
      s.textContent = (s.textContent || "").replace(/@import[^;]*;?/gi, "").replace(/url\(\s*(?!['"]?#)[^)]*\)/gi, "none");
    });
  }

  // The picture's own header repeats what the page's header says: drop it and crop the picture
  // to its stage drawing (the PNG for chat apps keeps it).
  function cropHeader(svg: SVGSVGElement): void {
    const header = svg.querySelector(":scope > g.header"), body = svg.querySelector<SVGGElement>(":scope > g.stage");
    if (!header || !body || header.querySelector(".clipped")) return;
    const size = svg.viewBox.baseVal, box = body.getBBox();
    if (!size || !size.width || !(box.width > 0)) return;
    header.remove();
    const top = Math.max(0, Math.floor(box.y) - 12);
    const width = Math.min(size.width, Math.ceil(box.x + box.width) + Math.max(0, Math.floor(box.x)));
    const height = size.height - top;
    svg.setAttribute("viewBox", [size.x, top, width, height].join(" "));
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
  }

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

  function roundLabel(v: PublicView, m: ViewMatch): string {
    const stage = stageOf(v, m.stage);
    const format = stage ? stage.format : v.tournament.format;
    let label;
    if (m.bracket === "third_place") label = "3rd place match";
    else if (m.bracket === "grand_final") label = m.round > 1 ? "Grand final reset" : "Grand final";
    else {
      let last = 0;
      v.matches.forEach((x) => {
        if (x.stage === m.stage && x.bracket === m.bracket && x.round > last) last = x.round;
      });
      if (format === "single_elimination") {
        const left = last - m.round;
        label = left === 0 ? "Final" : left === 1 ? "Semi-final" : left === 2 ? "Quarter-final" : "Round " + m.round;
      } else if (m.bracket === "winners") label = m.round === last ? "Winners final" : "Winners round " + m.round;
      else if (m.bracket === "losers") label = m.round === last ? "Losers final" : "Losers round " + m.round;
      else if (m.group !== null && m.group !== undefined) label = "Group " + groupName(m.group) + " · Round " + m.round;
      else label = "Round " + m.round;
    }
    return v.stages.length > 1 && stage ? stage.name + " · " + label : label;
  }

  type Column = ["wins" | "losses" | "points" | "buchholz", string, string];
  function standingsTable(entries: ViewStanding[], marks: ((e: ViewStanding) => boolean) | null): HTMLElement {
    const has = (f: Column[0]) => entries.some((e) => e[f] !== undefined && e[f] !== null);
    const columns: Column[] = [["wins", "W", "Wins"], ["losses", "L", "Losses"], ["points", "Pts", "Points"], ["buchholz", "Bhz", "Buchholz"]];
    const cols = columns.filter((c) => has(c[0]));
    const head = h("tr", null, [h("th", { scope: "col", class: "p-pos", text: "#" }), h("th", { scope: "col", text: "Team" })].concat(
      cols.map((c) => h("th", { scope: "col", class: "p-n" }, h("abbr", { title: c[2], text: c[1], style: "text-decoration:none" }))),
    ));
    const rows = entries.map((e) => {
      const place = e.group_position !== undefined && e.group_position !== null ? e.group_position : e.position;
      return h("tr", { class: marks && marks(e) ? "p-adv" : null }, [
        h("td", { class: "p-pos" }, h("span", { class: "p-place", "data-place": place, text: place })),
        h("th", { scope: "row", class: "p-team" }, teamCell(e.team_name, e.team_tag)),
      ].concat(cols.map((c) => h("td", { class: "p-n", text: e[c[0]] }))));
    });
    return h("table", { class: "p-table" }, [h("thead", null, head), h("tbody", null, rows)]);
  }

  function renderStandings(v: PublicView, stage: ViewStage | null): void {
    const box = $("p-standings");
    const t = v.tournament;
    const heading = $("p-standings-h");
    if (!drawn(v)) {
      heading.textContent = "Teams";
      $("p-standings-sub").textContent = plural(v.registrations.length, "team registered", "teams registered");
      box.replaceChildren(v.registrations.length
        ? h("ul", { class: "p-teams" }, v.registrations.map((r) => h("li", null, teamCell(r.teams.name, r.teams.tag))))
        : h("p", { class: "p-empty", text: "No team has registered yet." }));
      return;
    }
    const last = v.stages.length ? v.stages[v.stages.length - 1].number : 1;
    const overall = t.status === "completed" && (!stage || stage.number === last);
    const entries = overall ? v.standings : (stage ? stage.standings : v.standings);
    heading.textContent = overall ? "Final standings" : "Standings";
    $("p-standings-sub").textContent = overall || !stage || v.stages.length < 2 ? "" : stage.name;
    if (!entries.length) {
      const knockout = stage && /elimination/.test(stage.format);
      box.replaceChildren(h("p", { class: "p-empty", text: knockout ? "Places are decided as teams are knocked out." : "Standings appear once matches are played." }));
      return;
    }
    const adv = !overall && stage && stage.advance ? stage.advance as { per_group?: number; top?: number } : null;
    const next = adv && stage ? stageOf(v, stage.number + 1) : null;
    const marks = adv
      ? (e: ViewStanding) => {
        if (adv.per_group && e.group_position !== undefined) return e.group_position <= adv.per_group;
        if (adv.top) return e.position <= adv.top;
        return false;
      }
      : null;
    const grouped = entries.some((e) => e.group !== undefined && e.group !== null);
    const parts: HTMLElement[] = [];
    if (grouped) {
      const groups: number[] = [];
      entries.forEach((e) => {
        if (groups.indexOf(e.group as number) < 0) groups.push(e.group as number);
      });
      groups.sort((a, b) => a - b);
      groups.forEach((g) => {
        parts.push(h("div", { class: "p-group" }, [h("h3", { text: "Group " + groupName(g) }),
          standingsTable(entries.filter((e) => e.group === g), marks)]));
      });
    } else parts.push(standingsTable(entries, marks));
    if (marks && next) parts.push(h("p", { class: "p-legend", text: "Advancing to " + next.name }));
    box.replaceChildren(...parts);
  }

  function renderUpcoming(v: PublicView, teams: TeamsById): void {
    const box = $("p-upcoming");
    const card = $("p-upcoming-card");
    card.hidden = !drawn(v);
    const list = v.matches.filter((m) => (m.status === "ready" || m.status === "pending") && m.team1_id && m.team2_id).sort((a, b) => {
      const at = a.scheduled_at ? Date.parse(a.scheduled_at) : Infinity, bt = b.scheduled_at ? Date.parse(b.scheduled_at) : Infinity;
      return at - bt || a.stage - b.stage || a.round - b.round || a.position - b.position;
    });
    $("p-upcoming-sub").textContent = list.length ? plural(list.length, "match", "matches") : "";
    if (!list.length) {
      box.replaceChildren(h("p", { class: "p-empty", text: v.tournament.status === "completed" ? "All matches have been played." : "No match is waiting to be played." }));
      return;
    }
    const side = (id: string | null) => {
      const team = id === null ? undefined : teams[id];
      return h("div", { class: "p-up-team" }, teamCell(team ? team.name : "TBD", team ? team.tag : ""));
    };
    const items = list.slice(0, SHOWN_UPCOMING).map((m) => {
      const when = m.scheduled_at
        ? h("time", { class: "p-up-time", datetime: m.scheduled_at, text: timeFormat.format(new Date(m.scheduled_at)) })
        : h("span", { class: "p-up-time", "data-unscheduled": true, text: "Time to be announced" });
      const label: Kid[] = [roundLabel(v, m)];
      if (m.best_of > 1) label.push(" ", h("span", { class: "p-badge", text: "Bo" + m.best_of }));
      return h("li", { class: "p-up", "data-match": m.id }, [
        h("div", { class: "p-up-top" }, [h("span", null, label), when]),
        side(m.team1_id),
        side(m.team2_id),
      ]);
    });
    const parts = [h("ol", { class: "p-list" }, items)];
    if (list.length > SHOWN_UPCOMING) parts.push(h("p", { class: "p-more", text: "and " + plural(list.length - SHOWN_UPCOMING, "more match", "more matches") }));
    box.replaceChildren(...parts);
  }

  return {
    $, h, plural, timeFormat, stageOf, currentStage, drawn, inert, cropHeader, teamsById, teamCell, renderStandings, renderUpcoming,
  };
}
