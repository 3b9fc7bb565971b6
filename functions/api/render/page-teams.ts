/// <reference lib="dom" />
// The share page's script (page.ts), the teams' part: the Teams card, each registered team (name,
// tag) with its lineup: handle, country, role (substitutes and coaches marked) and the captain.
// Built by textContent only: handles are user text. Before the bracket is drawn the card is the
// page's list of teams, and the standings and upcoming matches (which would list them again, or
// nothing) are hidden.
//
// page.ts inlines `pageTeams` by its source text, around what pageDraw returns:
// `(${pageMain})((${pageTeams})(labels, (${pageDraw})(labels)), …)`. It gives `pageMain`
// (page-script.ts) pageDraw's helpers with `renderView` drawing the Teams card too, so the page's
// script is unchanged. Its body may use only the browser's globals, its parameters and its own
// locals, never an import or anything else of this module (only types may be imported: they are
// erased).
import type { Labels } from "./labels.ts";
import type { PageDraw } from "./page-draw.ts";
import type { PublicView, ViewLineupEntry, ViewRegistration } from "./view.ts";

/**
 * pageDraw's helpers (`draw`) with `renderView` drawing the Teams card as well, with the labels
 * table (labels.ts); self-contained (inlined in the page by its source text).
 */
export function pageTeams(labels: Labels, draw: PageDraw): PageDraw {
  const { $, h, drawn } = draw;
  const words = labels.lineup;
  const ORDER: Record<ViewLineupEntry["role"], number> = { player: 0, substitute: 1, coach: 2 };

  function entry(e: ViewLineupEntry): HTMLElement {
    return h("li", { class: "p-lu-entry", "data-role": e.role }, [
      h("span", { class: "p-lu-handle", text: e.handle }),
      e.captain ? h("abbr", { class: "p-lu-cap", title: words.captainTitle, text: "(" + words.captain + ")" }) : null,
      e.role === "player" ? null : h("span", { class: "p-badge p-lu-role", text: words.roles[e.role] || e.role }),
      e.country ? h("span", { class: "p-lu-country", text: e.country }) : null,
    ]);
  }

  function team(r: ViewRegistration): HTMLElement {
    // Players, then substitutes, then coaches, each in lineup order (an older API sends no lineup).
    const lineup = (r.lineup || []).slice().sort((a, b) => ORDER[a.role] - ORDER[b.role]);
    const name = r.teams ? r.teams.name : "", tag = r.teams ? r.teams.tag : "";
    return h("li", { class: "p-lu", "data-team-id": r.team_id }, [
      h("h3", { class: "p-lu-team" }, [
        h("span", { class: "p-tname", text: name }),
        tag && tag !== name ? h("span", { class: "p-ttag", text: tag }) : null,
      ]),
      lineup.length ? h("ul", { class: "p-lu-list" }, lineup.map(entry)) : h("p", { class: "p-lu-none", text: words.none }),
    ]);
  }

  /** Draws the Teams card of `v`. */
  function render(v: PublicView): void {
    const before = !drawn(v);
    $("p-columns").hidden = before;
    const n = v.registrations.length;
    $("p-lineups-sub").textContent = n + " " + words.teams[n === 1 ? 0 : 1];
    $("p-lineups").replaceChildren(
      n ? h("ul", { class: "p-lus" }, v.registrations.map(team)) : h("p", { class: "p-empty", text: words.noTeams }),
    );
  }

  const renderView: PageDraw["renderView"] = (v, selected, onPick) => {
    draw.renderView(v, selected, onPick);
    render(v);
  };
  return Object.assign({}, draw, { renderView: renderView });
}
