/// <reference lib="dom" />
// The share page's script (page.ts), the drawing's part: what draws a public view without the
// page's state: building DOM (by textContent only: names come from users), reading the view, the
// header, stage tabs, standings and upcoming matches, and the notices that replace them.
//
// page.ts inlines `pageDraw` by its source text (`(${pageDraw})(labels)`) and hands what it
// returns to `pageMain` (page-script.ts): its body may use only the browser's globals, its
// parameter and its own locals, never an import or anything else of this module (only types may
// be imported: they are erased).
import type { Labels } from "./labels.ts";
import type { PublicView, ViewMatch, ViewStage, ViewStanding, ViewTeam } from "./view.ts";

/** An attribute for `h`: `text` sets textContent, `class` the class; null, undefined and false set nothing. */
export type Prop = string | number | boolean | null | undefined;
/** A child for `h`: a node, or text; null, undefined and false add nothing. */
export type Kid = Node | string | number | null | undefined | false;
/** Teams by id (from the registrations). */
export type TeamsById = Record<string, ViewTeam>;
/** What `pageDraw` gives the page's script. */
export type PageDraw = ReturnType<typeof pageDraw>;

/** The drawing helpers, with the labels table (labels.ts); self-contained (inlined in the page by its source text). */
export function pageDraw(labels: Labels) {
  const FORMATS = labels.formats;
  const STATUS = labels.tournamentStatus;
  const STAGE_STATUS = labels.stageStatus;
  const SHOWN_UPCOMING = 8;
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
    const what = stage && stage.format === "round_robin" ? "Groups" : stage && stage.format === "swiss" ? "Rounds" : "Bracket";
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

  type Column = ["wins" | "losses" | "points" | "buchholz", string, string];
  function standingsTable(entries: ViewStanding[], marks: ((e: ViewStanding) => boolean) | null): HTMLElement {
    const has = (f: Column[0]) => entries.some((e) => e[f] !== undefined && e[f] !== null);
    const columns: Column[] = [["wins", "W", "Wins"], ["losses", "L", "Losses"], ["points", "Pts", "Points"], [
      "buchholz",
      "Bhz",
      "Buchholz",
    ]];
    const cols = columns.filter((c) => has(c[0]));
    const head = h(
      "tr",
      null,
      [h("th", { scope: "col", class: "p-pos", text: "#" }), h("th", { scope: "col", text: "Team" })].concat(
        cols.map((c) => h("th", { scope: "col", class: "p-n" }, h("abbr", { title: c[2], text: c[1], style: "text-decoration:none" }))),
      ),
    );
    const rows = entries.map((e) => {
      const place = e.group_position !== undefined && e.group_position !== null ? e.group_position : e.position;
      return h(
        "tr",
        { class: marks && marks(e) ? "p-adv" : null },
        [
          h("td", { class: "p-pos" }, h("span", { class: "p-place", "data-place": place, text: place })),
          h("th", { scope: "row", class: "p-team" }, teamCell(e.team_name, e.team_tag)),
        ].concat(cols.map((c) => h("td", { class: "p-n", text: e[c[0]] }))),
      );
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
      box.replaceChildren(
        v.registrations.length
          ? h("ul", { class: "p-teams" }, v.registrations.map((r) => h("li", null, teamCell(r.teams.name, r.teams.tag))))
          : h("p", { class: "p-empty", text: "No team has registered yet." }),
      );
      return;
    }
    const last = v.stages.length ? v.stages[v.stages.length - 1].number : 1;
    const overall = t.status === "completed" && (!stage || stage.number === last);
    const entries = overall ? v.standings : (stage ? stage.standings : v.standings);
    heading.textContent = overall ? "Final standings" : "Standings";
    $("p-standings-sub").textContent = overall || !stage || v.stages.length < 2 ? "" : stage.name;
    if (!entries.length) {
      const knockout = stage && /elimination/.test(stage.format);
      box.replaceChildren(
        h("p", {
          class: "p-empty",
          text: knockout ? "Places are decided as teams are knocked out." : "Standings appear once matches are played.",
        }),
      );
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
        parts.push(
          h("div", { class: "p-group" }, [
            h("h3", { text: "Group " + groupName(g) }),
            standingsTable(entries.filter((e) => e.group === g), marks),
          ]),
        );
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
      box.replaceChildren(
        h("p", {
          class: "p-empty",
          text: v.tournament.status === "completed" ? "All matches have been played." : "No match is waiting to be played.",
        }),
      );
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
    if (list.length > SHOWN_UPCOMING) {
      parts.push(h("p", { class: "p-more", text: "and " + plural(list.length - SHOWN_UPCOMING, "more match", "more matches") }));
    }
    box.replaceChildren(...parts);
  }

  return { $, h, stageOf, currentStage, drawn, renderView, showNotice };
}
