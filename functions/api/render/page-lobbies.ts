/// <reference lib="dom" />
// The share page's script (page.ts), the free-for-all part (contract section 20): a free-for-all
// stage's lobbies drawn in the page itself, from the public view, instead of the server's picture
// (whose leaderboards are too wide for a phone): each round's lobbies as leaderboards (placement,
// team and seed, each game's placement · points, kills, points; the winner marked once the lobby
// completes; before a game its teams by seed with dashes). A phone shows each game's result on a
// line under the team instead of a column per game. The stage's standings are the Standings card's.
//
// page.ts inlines `pageLobbies` by its source text, around what pageTeams returns:
// `(${pageMain})((${pageLobbies})((${pageTeams})(labels, …)), …)`. It gives `pageMain`
// (page-script.ts) the helpers with `renderView` drawing a free-for-all stage's lobbies too (and
// `ownBracket`, whether it did: the page then asks for no picture). Its body may use only the
// browser's globals, its parameters and its own locals, never an import or anything else of this
// module (only types may be imported: they are erased).
import type { PageDraw } from "./page-draw.ts";
import type { PublicView, ViewLobbyGame, ViewMatch, ViewOpponent } from "./view.ts";

/** pageDraw's helpers with the lobbies drawn by `renderView`, and `ownBracket`. */
export type PageLobbies = PageDraw & {
  /** Whether stage `n` of `v` is drawn by the page itself (free-for-all), not by the server's picture. */
  ownBracket: (v: PublicView, n: number) => boolean;
};

/** The lobbies' drawing; self-contained (inlined in the page by its source text). */
export function pageLobbies(draw: PageDraw): PageLobbies {
  const { $, h, stageOf, drawn } = draw;

  function ownBracket(v: PublicView, n: number): boolean {
    const stage = stageOf(v, n);
    return !!stage && stage.format === "ffa" && drawn(v);
  }

  function status(m: ViewMatch, games: number): string {
    if (m.status === "completed") return "Completed";
    return m.games.length ? "Game " + m.games.length + " of " + games + " played" : "Not played yet";
  }

  /** One lobby's leaderboard. */
  function lobby(m: ViewMatch, games: number): HTMLElement {
    const played = m.games as ViewLobbyGame[];
    const done = m.status === "completed";
    const numbers = Array.from({ length: games }, (_, i) => i + 1);
    const head = h("tr", null, [
      h("th", { class: "p-n", scope: "col", text: "#" }),
      h("th", { scope: "col", text: "Team" }),
      ...numbers.map((g) => h("th", { class: "p-n p-g", scope: "col", title: "Game " + g + ": placement · points", text: "G" + g })),
      h("th", { class: "p-n", scope: "col", title: "Kills", text: "K" }),
      h("th", { class: "p-n p-pts", scope: "col", title: "Points", text: "Pts" }),
    ]);
    const rows = (m.opponents || []).map((o: ViewOpponent) => {
      const won = done && m.winner_id === o.team_id;
      const results = numbers.map((g) => {
        const game = played.filter((x) => x.number === g)[0];
        const r = game ? game.results.filter((x) => x.team_id === o.team_id)[0] : undefined;
        return r
          ? {
            text: r.placement + " · " + r.points,
            title: "Game " + g + ": placed " + r.placement + ", " + r.kills + " kill" + (r.kills === 1 ? "" : "s") + ", " + r.points +
              " points",
            first: r.placement === 1,
          }
          : { text: "–", title: "Game " + g + ": not played yet", first: false };
      });
      const before = !played.length;
      return h("tr", { class: won ? "p-win" : null, "data-team-id": o.team_id }, [
        h(
          "td",
          { class: "p-n" },
          won ? h("span", { class: "p-place", "data-place": 1, text: "1" }) : before || o.placement === null ? "–" : String(o.placement),
        ),
        h("td", { class: "p-lb-team" }, [
          h("span", { class: "p-tname", "data-team-id": o.team_id, text: o.team_name }),
          h("span", {
            class: "p-ttag",
            text: [o.team_tag !== o.team_name ? o.team_tag : "", "seed " + o.seed].filter(Boolean).join(" · "),
          }),
          // A phone's line of the games (the columns are hidden there).
          games && played.length
            ? h("span", { class: "p-lb-games" }, results.map((r, i) => h("span", { title: r.title, text: "G" + (i + 1) + " " + r.text })))
            : null,
        ]),
        ...results.map((r) =>
          h("td", { class: "p-n p-g" + (r.first ? " p-first" : r.text === "–" ? " p-dash" : ""), title: r.title, text: r.text })
        ),
        h("td", { class: before ? "p-n p-dash" : "p-n", text: before ? "–" : String(o.kills) }),
        h("td", { class: before ? "p-n p-dash" : "p-n p-pts", text: before ? "–" : String(o.points) }),
      ]);
    });
    return h(
      "section",
      { class: "p-lobby", "data-match": m.id, "data-round": m.round, "data-lobby": m.position, "data-status": m.status },
      [
        h("h4", { class: "p-lobby-head" }, [
          h("span", { text: "Lobby " + m.position }),
          h("span", { class: "p-sub", text: status(m, games) }),
        ]),
        h("div", { class: "p-lb-scroll" }, h("table", { class: "p-table p-lb" }, [h("thead", null, head), h("tbody", null, rows)])),
      ],
    );
  }

  /** Draws stage `n`'s lobbies of `v` into the bracket's box, round by round. */
  function renderLobbies(v: PublicView, n: number): void {
    const stage = stageOf(v, n)!;
    const options = (stage.format_options || {}) as { games?: unknown; rounds?: unknown; draw?: unknown };
    const games = typeof options.games === "number" ? options.games : 1;
    const lobbies = v.matches.filter((m) => m.stage === n && m.opponents);
    let rounds = typeof options.rounds === "number" ? options.rounds : 1;
    lobbies.forEach((m) => {
      if (m.round > rounds) rounds = m.round;
    });
    const bands: HTMLElement[] = [];
    for (let r = 1; r <= rounds; r++) {
      const list = lobbies.filter((m) => m.round === r).sort((a, b) => a.position - b.position);
      bands.push(h("section", { class: "p-round", "data-round": r }, [
        rounds > 1 ? h("h3", { text: "Round " + r }) : null,
        list.length
          // As wide as a lobby's columns want (--games), as many a row as fit.
          ? h("div", { class: "p-lobbies", style: "--games:" + games }, list.map((m) => lobby(m, games)))
          : h("p", { class: "p-empty", text: "Dealt from the standings when round " + (r - 1) + " ends." }),
      ]));
    }
    const box = $("p-bracket");
    box.replaceChildren(h("div", { class: "p-ffa" }, bands));
    box.setAttribute("data-stage", String(n));
    $("p-hint").hidden = true;
    $("p-frame").removeAttribute("data-more");
  }

  const renderView: PageDraw["renderView"] = (v, selected, onPick) => {
    draw.renderView(v, selected, onPick);
    if (ownBracket(v, selected)) renderLobbies(v, selected);
  };
  return Object.assign({}, draw, { renderView: renderView, ownBracket: ownBracket });
}
