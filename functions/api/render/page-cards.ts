/// <reference lib="dom" />
// The share page's script (page.ts), the cards' part: the standings card (the teams registered,
// a stage's standings by group with who advances, or the final standings; a D column where the
// stage allows draws or one was recorded, as in the picture; a free-for-all stage's points,
// kills, first places and games played) and the upcoming matches card, with each match's round
// named and an open participants' report marked, and each free-for-all lobby still to play.
//
// page.ts hands `pageCards` by its source text to `pageDraw` (page-draw.ts:
// `(${pageDraw})(labels, ${pageCards})`), which calls it with its helpers: its body may use only
// the browser's globals, its parameter and its own locals, never an import or anything else of
// this module (only types may be imported: they are erased).
import type { Labels } from "./labels.ts";
import type { Kid, Prop, TeamsById } from "./page-draw.ts";
import type { PublicView, ViewMatch, ViewStage, ViewStanding } from "./view.ts";

/** What `pageCards` is given of `pageDraw`'s helpers. */
export interface CardHelpers {
  $: (id: string) => HTMLElement;
  h: (tag: string, props?: Record<string, Prop> | null, kids?: Kid | Kid[]) => HTMLElement;
  stageOf: (v: PublicView, n: number) => ViewStage | null;
  drawn: (v: PublicView) => boolean;
  plural: (n: number, one: string, many: string) => string;
  teamCell: (name: string, tag: string) => Kid[];
  groupName: (g: number) => string;
  timeFormat: Intl.DateTimeFormat;
  /** The labels of an open report (labels.ts). */
  reports: Labels["report"];
}

/** The standings and upcoming matches cards; self-contained (inlined in the page by its source text). */
export function pageCards(helpers: CardHelpers) {
  const { $, h, stageOf, drawn, plural, teamCell, groupName, timeFormat, reports } = helpers;
  const SHOWN_UPCOMING = 8;

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

  type Column = ["wins" | "draws" | "losses" | "points" | "buchholz" | "kills" | "first_places" | "games_played", string, string];
  function standingsTable(entries: ViewStanding[], marks: ((e: ViewStanding) => boolean) | null, draws: boolean): HTMLElement {
    const has = (f: Column[0]) => entries.some((e) => e[f] !== undefined && e[f] !== null);
    const columns: Column[] = [
      ["wins", "W", "Wins"],
      ["draws", "D", "Draws"],
      ["losses", "L", "Losses"],
      ["points", "Pts", "Points"],
      ["buchholz", "Bhz", "Buchholz"],
      ["kills", "K", "Kills"],
      ["first_places", "1st", "First places (games won)"],
      ["games_played", "GP", "Games played"],
    ];
    const cols = columns.filter((c) => c[0] === "draws" ? draws : has(c[0]));
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
        ].concat(cols.map((c) => h("td", { class: "p-n", text: c[0] === "draws" ? e.draws || 0 : e[c[0]] }))),
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
    const entries: ViewStanding[] = overall ? v.standings : (stage ? stage.standings : v.standings);
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
    const adv = !overall && stage && stage.advance ? stage.advance as { per_group?: number; top?: number; per_lobby?: number } : null;
    // A free-for-all stage sending on the first n of each lobby: the teams placed so in the last round's lobbies.
    const lobbyFirsts: Record<string, boolean> = {};
    if (adv && adv.per_lobby && stage) {
      let lastRound = 0;
      v.matches.forEach((m) => {
        if (m.stage === stage.number && m.opponents && m.round > lastRound) lastRound = m.round;
      });
      v.matches.forEach((m) => {
        if (m.stage !== stage.number || m.round !== lastRound || !m.opponents) return;
        m.opponents.forEach((o, i) => {
          if ((o.placement ?? i + 1) <= (adv.per_lobby as number)) lobbyFirsts[o.team_id] = true;
        });
      });
    }
    const next = adv && stage ? stageOf(v, stage.number + 1) : null;
    const marks = adv
      ? (e: ViewStanding) => {
        if (adv.per_group && e.group_position !== undefined) return e.group_position <= adv.per_group;
        if (adv.per_lobby) return !!lobbyFirsts[e.team_id];
        if (adv.top) return e.position <= adv.top;
        return false;
      }
      : null;
    const draws = !!(stage && stage.format_options && stage.format_options.draws === true) || entries.some((e) => !!e.draws);
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
            standingsTable(entries.filter((e) => e.group === g), marks, draws),
          ]),
        );
      });
    } else parts.push(standingsTable(entries, marks, draws));
    if (marks && next) parts.push(h("p", { class: "p-legend", text: "Advancing to " + next.name }));
    box.replaceChildren(...parts);
  }

  function renderUpcoming(v: PublicView, teams: TeamsById): void {
    const box = $("p-upcoming");
    const card = $("p-upcoming-card");
    card.hidden = !drawn(v);
    const list = v.matches.filter((m) =>
      (m.status === "ready" || m.status === "pending") && ((m.team1_id && m.team2_id) || (m.opponents && m.status === "ready"))
    ).sort((a, b) => {
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
    const stage = (m: ViewMatch): number | null => {
      const s = stageOf(v, m.stage);
      const games = s && s.format_options ? (s.format_options as { games?: unknown }).games : null;
      return typeof games === "number" ? games : null;
    };
    const side = (id: string | null) => {
      const team = id === null ? undefined : teams[id];
      return h("div", { class: "p-up-team" }, teamCell(team ? team.name : "TBD", team ? team.tag : ""));
    };
    const items = list.slice(0, SHOWN_UPCOMING).map((m) => {
      // Reported by a team, not decided: said so, without the reported score (it is no result yet),
      // and without a time (it has been played), as the picture does.
      const state = m.report ? m.report.state : null;
      const report = state === "awaiting_confirmation" || state === "disputed" ? state : null;
      const when = report
        ? null
        : m.scheduled_at
        ? h("time", { class: "p-up-time", datetime: m.scheduled_at, text: timeFormat.format(new Date(m.scheduled_at)) })
        : h("span", { class: "p-up-time", "data-unscheduled": true, text: "Time to be announced" });
      const label: Kid[] = [roundLabel(v, m)];
      if ((m.best_of ?? 1) > 1) label.push(" ", h("span", { class: "p-badge", text: "Bo" + m.best_of }));
      if (report) label.push(" ", h("span", { class: "p-badge p-report", "data-report": report, text: reports[report] }));
      if (m.opponents) {
        // A free-for-all lobby: its number, how far it is, and its teams in one line.
        const games = stage(m);
        label.push(" · Lobby " + m.position);
        return h("li", { class: "p-up", "data-match": m.id }, [
          h("div", { class: "p-up-top" }, [h("span", null, label), when]),
          h("div", { class: "p-up-team p-up-lobby" }, [
            h("span", {
              class: "p-tname",
              text: plural(m.opponents.length, "team", "teams") + (games ? " · game " + (m.games.length + 1) + " of " + games : ""),
            }),
            h("span", { class: "p-ttag", text: m.opponents.map((o) => o.team_tag || o.team_name).join(", ") }),
          ]),
        ]);
      }
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

  return { renderStandings, renderUpcoming };
}
