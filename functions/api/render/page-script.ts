/// <reference lib="dom" />
// The share page's client script (page.ts), inlined in its one document: the page's state and
// its requests (the JSON, the picture, the live stream); the state's shape is page-state.ts.
// What it draws is in page-draw.ts, page-cards.ts and page-lobbies.ts (the view, by textContent
// only: a free-for-all stage's lobbies are drawn in the page, no picture asked for) and
// page-picture.ts (the server's SVG made inert, cropped, hinted).
//
// page.ts inlines `pageMain` by its source text:
// `(${pageMain})((${pageLobbies})((${pageTeams})(labels, …)), (${pagePicture})())`, so its body may use
// only the browser's globals, its parameters and its own locals, never an import or anything else
// of this module (only types may be imported: they are erased).
import type { PublicView } from "./view.ts";
import type { Kid } from "./page-draw.ts";
import type { PageLobbies } from "./page-lobbies.ts";
import type { PagePicture } from "./page-picture.ts";
import type { PageState, SvgAnswer } from "./page-state.ts";

/** The page's script: reads the API base and slug, then draws and follows the tournament. */
export function pageMain(draw: PageLobbies, picture: PagePicture): void {
  const { $, h, stageOf, currentStage, drawn, ownBracket } = draw;
  const metaContent = (name: string) => {
    const m = document.querySelector('meta[name="' + name + '"]');
    return m ? m.getAttribute("content") || "" : "";
  };
  const query = new URLSearchParams(location.search);
  const api = (metaContent("tournament-api") || query.get("api") || "").trim().replace(/\/+$/, "");
  const slug = (metaContent("tournament-slug") || query.get("slug") || "").trim();
  const dark = globalThis.matchMedia("(prefers-color-scheme: dark)");
  const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  /** Open pages ask again within this long of an event, each at a moment of its own. */
  const REFRESH_SPREAD_MS = 500;

  const state: PageState = {
    view: null,
    chosen: null,
    wanted: 0,
    svgSeq: 0,
    svgText: "",
    timer: undefined,
    busy: false,
    again: false,
    gone: false,
    staleTries: 0,
    stream: null,
    streamRetry: 1000,
    slowTimer: undefined,
    hiddenTimer: undefined,
  };

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const base = () => api + "/public/tournaments/" + encodeURIComponent(slug);

  function setConn(connection: string, text: string): void {
    $("p-conn").setAttribute("data-state", connection);
    $("p-conn-text").textContent = text;
  }

  // GET with revalidation (If-None-Match: a cached copy never hides an update); waits out 429s
  // (Retry-After) and network failures. null once the tournament is gone.
  async function get(url: string): Promise<Response | null> {
    let backoff = 1000;
    for (;;) {
      if (state.gone) return null;
      let res: Response | null = null;
      try {
        res = await fetch(url, { cache: "no-cache" });
      } catch {
        res = null;
      }
      if (res && res.status !== 429) return res;
      let wait = backoff;
      if (res && res.status === 429) {
        const after = Number(res.headers.get("Retry-After"));
        wait = isFinite(after) && after > 0 ? after * 1000 : 5000;
      } else {
        backoff = Math.min(backoff * 2, 30000);
        setConn("offline", "Offline, retrying…");
      }
      await sleep(Math.max(wait, 500));
    }
  }

  function schedule(ms: number): void {
    clearTimeout(state.timer);
    state.timer = setTimeout(refresh, ms);
  }

  async function refresh(): Promise<void> {
    if (state.gone) return;
    if (state.busy) {
      state.again = true;
      return;
    }
    state.busy = true;
    try {
      await load();
    } catch (e) {
      console.error(e);
      schedule(5000);
    } finally {
      state.busy = false;
      if (state.again) {
        state.again = false;
        schedule(0);
      }
    }
  }

  // The stage the page shows: the one picked, else the one being played.
  function selectedStage(v: PublicView): number {
    const n = state.chosen;
    if (n !== null && v.stages.some((s) => s.number === n && s.status !== "pending")) return n;
    return currentStage(v);
  }

  async function load(): Promise<void> {
    // The picture in parallel with the JSON: of the stage shown, or at first the server's default
    // (the stage being played, as the page's own default); used when it is the stage to show.
    const shown = state.view;
    const guess = shown ? (drawn(shown) && !ownBracket(shown, selectedStage(shown)) ? selectedStage(shown) : undefined) : null;
    const svgPromise = guess === undefined ? null : fetchSvg(guess);
    const res = await get(base());
    if (!res) return;
    if (res.status === 404) return notPublic();
    if (!res.ok) throw new Error("GET " + base() + ": HTTP " + res.status);
    const next: PublicView = (await res.json()).data;
    state.view = next;
    render();
    if (drawn(next) && ownBracket(next, selectedStage(next))) {
      // Drawn by render() (page-lobbies.ts); an answer for the picture still on its way is dropped.
      state.svgText = "";
      state.svgSeq++;
    } else if (drawn(next)) {
      const stage = selectedStage(next);
      let svg = svgPromise ? await svgPromise : null;
      if (!svg || svg.stage !== stage) svg = await fetchSvg(stage);
      if (svg && svg.version !== null && svg.version < next.tournament.version) svg = await fetchSvg(stage);
      if (svg) showSvg(svg);
    } else {
      state.svgText = "";
      $("p-bracket").removeAttribute("data-stage");
      $("p-bracket").replaceChildren(h("p", { class: "p-empty", text: "The bracket is drawn when the tournament starts." }));
      $("p-hint").hidden = true;
    }
    $("p-main").removeAttribute("aria-busy");
    $("p-main").setAttribute("data-version", String(next.tournament.version));
    $("p-updated").textContent = "Updated " + clockFormat.format(new Date());
    // The stream announced a newer version than this answer holds: ask again shortly.
    if (next.tournament.version < state.wanted && state.staleTries < 10) {
      state.staleTries++;
      schedule(300);
    } else state.staleTries = 0;
    // The stream opens once the page is drawn: on HTTP/1.1 a browser holds 6 connections per
    // host, and a stream keeps one, so the first picture never waits behind other tabs' streams.
    if (!state.stream) connect();
  }

  async function fetchSvg(stage: number | null): Promise<SvgAnswer | null> {
    const seq = ++state.svgSeq;
    const theme = dark.matches ? "dark" : "light";
    const res = await get(base() + "/bracket.svg?" + (stage === null ? "" : "stage=" + stage + "&") + "theme=" + theme);
    if (!res) return null;
    const tag = /"(\d+)"/.exec(res.headers.get("ETag") || "");
    const text = res.ok ? await res.text() : "";
    if (stage === null) { // the server's choice, which its root element names
      const named = /^[^>]*\sdata-stage="(\d+)"/.exec(text.slice(text.indexOf("<svg")));
      stage = named ? Number(named[1]) : null;
    }
    return { seq: seq, stage: stage, status: res.status, version: tag ? Number(tag[1]) : null, text: text };
  }

  function showSvg(svg: SvgAnswer): void {
    const view = state.view;
    if (svg.seq !== state.svgSeq || !view || svg.stage !== selectedStage(view)) return; // a newer request is on its way
    const box = $("p-bracket");
    if (!svg.text) {
      state.svgText = "";
      box.removeAttribute("data-stage");
      box.replaceChildren(
        h("p", {
          class: "p-empty",
          text: svg.status === 404 ? "This stage has no bracket yet." : "The bracket could not be loaded. Retrying…",
        }),
      );
      if (svg.status !== 404) schedule(5000);
      return;
    }
    if (svg.text === state.svgText && box.querySelector("svg")) return;
    const node = picture.parse(svg.text);
    if (!node) {
      box.replaceChildren(h("p", { class: "p-empty", text: "The bracket could not be shown." }));
      return;
    }
    const stage = stageOf(view, svg.stage);
    node.setAttribute("aria-label", (stage ? stage.name : "Bracket") + " — bracket");
    box.replaceChildren(node);
    picture.cropHeader(node);
    box.setAttribute("data-stage", String(svg.stage));
    state.svgText = svg.text;
    picture.overflowHint();
  }

  async function reloadSvg(): Promise<void> {
    if (!state.view || !drawn(state.view)) return;
    if (ownBracket(state.view, selectedStage(state.view))) {
      state.svgSeq++; // drawn by render(); a picture on its way is dropped
      return;
    }
    const svg = await fetchSvg(selectedStage(state.view));
    if (svg) showSvg(svg);
  }

  function render(): void {
    const v = state.view!;
    draw.renderView(v, selectedStage(v), (stage) => {
      state.chosen = stage === currentStage(state.view!) ? null : stage;
      render();
      reloadSvg();
    });
  }

  function notice(icon: string, title: string, body: Kid[]): void {
    state.gone = true;
    clearTimeout(state.timer);
    if (state.stream) state.stream.close();
    draw.showNotice(icon, title, body);
  }

  function notPublic(): void {
    notice("?", "This tournament is not public or does not exist", [
      h("p", { text: "Check the link, or ask the organiser to make the tournament public." }),
    ]);
  }

  function connect(): void {
    if (state.gone) return;
    const es = new EventSource(base() + "/stream");
    state.stream = es;
    es.onopen = () => {
      clearTimeout(state.slowTimer);
      state.streamRetry = 1000;
      setConn("live", "Live");
    };
    es.addEventListener("results", (e) => {
      const version = Number((e as MessageEvent).lastEventId) || 0;
      if (version > state.wanted) state.wanted = version;
      // Every open page hears the event at once: each asks again at a moment of its own within
      // REFRESH_SPREAD_MS, so that a final's thousand viewers do not all ask in the same 100 ms
      // (issue 39's rush (d)).
      if (state.view && version > state.view.tournament.version) schedule(100 + Math.floor(Math.random() * REFRESH_SPREAD_MS));
    });
    es.addEventListener("deleted", () => {
      es.close();
      notPublic();
    });
    es.onerror = () => {
      if (state.gone) return;
      if (es.readyState === EventSource.CLOSED) {
        // Refused (404, 429, …): EventSource gives up, so try again later, and look at the JSON.
        setConn("offline", "Offline, retrying…");
        state.stream = null;
        setTimeout(refresh, state.streamRetry); // which opens a new stream once the JSON answers
        state.streamRetry = Math.min(state.streamRetry * 2, 60000);
      } else {
        // The server ends each stream after a while and EventSource comes back within a second.
        clearTimeout(state.slowTimer);
        state.slowTimer = setTimeout(() => setConn("reconnecting", "Reconnecting…"), 4000);
      }
    };
  }

  function setup(): void {
    notice("i", "Which tournament?", [
      h("p", null, [
        "This viewer shows a public tournament. Open it with ",
        h("code", { text: "?api=<API base URL>&slug=<tournament slug>" }),
        ", for example:",
      ]),
      h(
        "p",
        { style: "margin-top:12px" },
        h("code", { text: "viewer.html?api=https://<project>.supabase.co/functions/v1/api/v1&slug=winter-cup-x1y2z3" }),
      ),
    ]);
  }

  let valid = false;
  try {
    valid = /^https?:$/.test(new URL(api).protocol);
  } catch {
    valid = false;
  }
  if (!valid || !slug) return setup();
  dark.addEventListener("change", () => {
    state.svgText = "";
    reloadSvg();
  });
  globalThis.addEventListener("resize", picture.overflowHint);
  $("p-bracket").addEventListener("scroll", picture.overflowHint, { passive: true });
  // A tab hidden for a minute lets its stream go (it holds a connection); shown again, it catches up.
  document.addEventListener("visibilitychange", () => {
    clearTimeout(state.hiddenTimer);
    if (document.hidden) {
      state.hiddenTimer = setTimeout(() => {
        if (state.stream && !state.gone) {
          state.stream.close();
          state.stream = null;
          setConn("reconnecting", "Paused");
        }
      }, 60000);
    } else if (!state.stream && state.view && !state.gone) refresh();
  });
  refresh();
}
