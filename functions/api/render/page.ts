// The public share page (contract section 15): one self-contained HTML document, inline CSS and
// JS, no framework, that draws a public tournament from the public routes (JSON, bracket SVG and
// live stream) and keeps itself current. The same document is served at
// /public/tournaments/{slug}/page (API base, slug and Open Graph tags baked in) and as
// /public/viewer.html (nothing baked in: it reads ?api=<base>&slug=<slug>, so the file can be
// copied to any static host). Pure: no I/O.
//
// The page builds its DOM with textContent only (names come from users), and the SVG it inlines
// is parsed as XML and stripped of anything active. Its own classes carry a `p-` prefix: the
// inlined SVG's <style> applies to the whole document, so the page must not share its class names.

/** What the page is built with. */
export interface PageOptions {
  /** The API base URL up to and including /api/v1 (e.g. http://127.0.0.1:54321/functions/v1/api/v1). Unset: viewer.html, which reads ?api=<base>&slug=<slug> from its own URL. */
  apiBase?: string;
  slug?: string;
  /** Open Graph / Twitter card tags for the served page (the route fills them from the tournament). */
  og?: { title: string; description: string; image: string; url: string };
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML content and for a quoted attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const FAVICON = "data:image/svg+xml," + encodeURIComponent(
  "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect width='32' height='32' rx='8' fill='#0969da'/>" +
    "<path d='M10 7h12v5a6 6 0 0 1-12 0zM7 8h3v3H8a2 2 0 0 1-1-1zM25 8h-3v3h2a2 2 0 0 0 1-1zM14 18h4v4h3v3H11v-3h3z' fill='#fff'/></svg>",
);

/** The origin the page may connect to: the API base's, or any http(s) host for viewer.html. */
function connectSource(apiBase: string | undefined): string {
  if (apiBase === undefined) return "http: https:";
  try {
    const url = new URL(apiBase);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : "'none'";
  } catch {
    return "'none'";
  }
}

function metaTag(attr: "name" | "property", key: string, content: string): string {
  return `<meta ${attr}="${escapeHtml(key)}" content="${escapeHtml(content)}">`;
}

/** One self-contained HTML document: inline CSS and JS, no framework, no request to any host but the API base. */
export function pageHtml(options: PageOptions): string {
  const { apiBase, slug, og } = options;
  const csp = `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; ` +
    `connect-src ${connectSource(apiBase)}; base-uri 'none'; form-action 'none'`;
  const head = [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    `<meta name="color-scheme" content="light dark">`,
    `<meta name="theme-color" content="#0d3a7a">`,
    `<title>${escapeHtml(og?.title ?? "Tournament")}</title>`,
    `<link rel="icon" href="${escapeHtml(FAVICON)}">`,
    apiBase === undefined ? "" : metaTag("name", "tournament-api", apiBase),
    slug === undefined ? "" : metaTag("name", "tournament-slug", slug),
  ];
  if (og) {
    head.push(
      metaTag("name", "description", og.description),
      `<link rel="canonical" href="${escapeHtml(og.url)}">`,
      metaTag("property", "og:type", "website"),
      metaTag("property", "og:title", og.title),
      metaTag("property", "og:description", og.description),
      metaTag("property", "og:image", og.image),
      metaTag("property", "og:url", og.url),
      metaTag("name", "twitter:card", "summary_large_image"),
      metaTag("name", "twitter:title", og.title),
      metaTag("name", "twitter:description", og.description),
      metaTag("name", "twitter:image", og.image),
    );
  }
  // Without JavaScript: a link to the picture (a link is not a request).
  const picture = apiBase !== undefined && slug !== undefined
    ? `<noscript><p class="p-wrap">This page needs JavaScript to stay live. <a href="${
      escapeHtml(`${apiBase.replace(/\/+$/, "")}/public/tournaments/${encodeURIComponent(slug)}/bracket.svg`)
    }">Open the bracket picture</a>.</p></noscript>`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
${head.filter(Boolean).join("\n")}
<style>${STYLE}</style>
</head>
<body>
<header class="p-hero">
  <div class="p-wrap">
    <div class="p-topline">
      <p class="p-eyebrow" id="p-eyebrow">Tournament</p>
      <span class="p-conn" id="p-conn" data-state="connecting" role="status"><span class="p-dot" aria-hidden="true"></span><span id="p-conn-text">Connecting…</span></span>
    </div>
    <h1 id="p-name">${escapeHtml(og?.title ?? "Loading tournament…")}</h1>
    <p class="p-desc" id="p-desc" hidden></p>
    <ul class="p-chips" id="p-chips" aria-label="About this tournament"></ul>
    <div class="p-tabs" id="p-tabs" role="tablist" aria-label="Stages" hidden></div>
  </div>
</header>
${picture}
<main class="p-wrap p-main" id="p-main" aria-busy="true">
  <section class="p-card" aria-labelledby="p-bracket-h">
    <div class="p-card-head"><h2 id="p-bracket-h">Bracket</h2><span class="p-sub" id="p-bracket-sub"></span></div>
    <div class="p-frame" id="p-frame"><div class="p-bracket" id="p-bracket" tabindex="0" role="region" aria-labelledby="p-bracket-h"><p class="p-empty">Loading the bracket…</p></div></div>
    <p class="p-hint" id="p-hint" hidden>Scroll sideways to see the whole bracket →</p>
  </section>
  <div class="p-columns">
    <section class="p-card" aria-labelledby="p-standings-h">
      <div class="p-card-head"><h2 id="p-standings-h">Standings</h2><span class="p-sub" id="p-standings-sub"></span></div>
      <div id="p-standings"></div>
    </section>
    <section class="p-card" aria-labelledby="p-upcoming-h" id="p-upcoming-card">
      <div class="p-card-head"><h2 id="p-upcoming-h">Upcoming matches</h2><span class="p-sub" id="p-upcoming-sub"></span></div>
      <div id="p-upcoming"></div>
    </section>
  </div>
</main>
<footer class="p-wrap p-foot"><span id="p-updated"></span></footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

// Light and dark as CSS variables; the hero keeps its own (white on indigo) in both.
const STYLE = `
:root{--bg:#f6f8fa;--surface:#fff;--surface-2:#f6f8fa;--border:#d0d7de;--text:#1f2328;--muted:#59636e;--accent:#0969da;
--accent-soft:#ddf4ff;--hero:linear-gradient(135deg,#0b1d3a 0%,#0d3a7a 55%,#0a58bd 100%);
--gold:#7d4e00;--gold-bg:#fff1c2;--silver:#424a53;--silver-bg:#e6eaef;--bronze:#953800;--bronze-bg:#ffe7d6;
--adv:#1a7f37;--shadow:0 1px 2px rgba(31,35,40,.06),0 6px 20px rgba(31,35,40,.06)}
@media (prefers-color-scheme:dark){:root{--bg:#010409;--surface:#0d1117;--surface-2:#161b22;--border:#30363d;--text:#e6edf3;
--muted:#9198a1;--accent:#4493f8;--accent-soft:#102a4c;--hero:linear-gradient(135deg,#050b16 0%,#0b2550 55%,#0d4aa8 100%);
--gold:#f2cc60;--gold-bg:#3b2e0a;--silver:#d1d9e0;--silver-bg:#262c36;--bronze:#ffa657;--bronze-bg:#3d1f0b;
--adv:#3fb950;--shadow:0 1px 2px rgba(0,0,0,.5)}}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif;
-webkit-font-smoothing:antialiased}
h1,h2,h3{margin:0;line-height:1.25}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px;border-radius:6px}
.p-wrap{max-width:1400px;margin:0 auto;padding:0 16px}
.p-hero{background:var(--hero);color:#fff;padding:20px 0 0}
.p-hero .p-wrap{padding-bottom:20px}
.p-topline{display:flex;align-items:flex-start;justify-content:space-between;gap:12px}
.p-eyebrow{flex:1 1 0;min-width:0;padding-top:3px;margin:0;font-size:14px;font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:#dbeafe}
.p-conn{display:inline-flex;align-items:center;gap:8px;font-size:14px;color:#dbeafe;padding:3px 12px;border-radius:999px;
background:rgba(255,255,255,.1);flex:none}
.p-dot{width:8px;height:8px;border-radius:50%;background:#94a3b8}
.p-conn[data-state=live] .p-dot{background:#4ade80;box-shadow:0 0 0 0 rgba(74,222,128,.7);animation:p-pulse 2s infinite}
.p-conn[data-state=reconnecting] .p-dot{background:#fbbf24}
.p-conn[data-state=offline] .p-dot{background:#f87171}
@keyframes p-pulse{0%{box-shadow:0 0 0 0 rgba(74,222,128,.6)}70%{box-shadow:0 0 0 8px rgba(74,222,128,0)}100%{box-shadow:0 0 0 0 rgba(74,222,128,0)}}
@media (prefers-reduced-motion:reduce){.p-conn .p-dot{animation:none!important}}
.p-hero h1{margin:10px 0 6px;font-size:clamp(1.75rem,4.5vw,2.6rem);font-weight:800;letter-spacing:-.02em;overflow-wrap:anywhere}
.p-desc{margin:0 0 4px;max-width:70ch;color:#dbeafe;display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden;
overflow-wrap:anywhere}
.p-chips{list-style:none;margin:14px 0 0;padding:0;display:flex;flex-wrap:wrap;gap:8px}
.p-chip{display:inline-flex;align-items:center;gap:6px;font-size:14px;font-weight:500;padding:4px 12px;border-radius:999px;
background:rgba(255,255,255,.12);border:1px solid rgba(255,255,255,.22);color:#fff;max-width:100%;overflow-wrap:anywhere}
.p-chip[data-kind=ongoing]{background:#cf222e;border-color:#cf222e}
.p-chip[data-kind=registration]{background:#0550ae;border-color:#0550ae}
.p-chip[data-kind=completed]{background:#1a7f37;border-color:#1a7f37}
.p-chip[data-kind=champion]{background:#fef3c7;border-color:#fef3c7;color:#713f12;font-weight:700}
.p-tabs{display:flex;gap:6px;margin:18px 0 -20px;overflow-x:auto;scrollbar-width:none}
.p-tab{font:inherit;font-size:15px;font-weight:600;color:#dbeafe;background:transparent;border:0;border-radius:10px 10px 0 0;
padding:10px 16px;cursor:pointer;white-space:nowrap;display:flex;flex-direction:column;align-items:flex-start;gap:0}
.p-tab small{font-size:14px;font-weight:500;opacity:.9}
.p-tab:hover{background:rgba(255,255,255,.1)}
.p-tab[aria-selected=true]{background:var(--bg);color:var(--text)}
.p-tab[aria-selected=true] small{color:var(--muted);opacity:1}
.p-main{padding-top:24px;padding-bottom:8px;display:grid;gap:20px}
.p-card{background:var(--surface);border:1px solid var(--border);border-radius:16px;box-shadow:var(--shadow);padding:20px;min-width:0}
.p-card-head{display:flex;align-items:baseline;justify-content:space-between;gap:12px;flex-wrap:wrap;margin-bottom:14px}
.p-card h2{font-size:1.2rem;font-weight:700}
.p-sub{font-size:14px;color:var(--muted)}
.p-frame{position:relative;margin:0 -20px}
.p-frame[data-more]::after{content:"";position:absolute;top:0;right:0;bottom:0;width:56px;pointer-events:none;
background:linear-gradient(to right,transparent,var(--surface))}
.p-bracket{overflow-x:auto;overflow-y:hidden;padding:0 20px 4px;overscroll-behavior-x:contain}
.p-bracket svg{display:block;margin:0 auto;max-width:none;height:auto}
.p-hint{margin:8px 0 0;font-size:14px;color:var(--muted)}
.p-empty{margin:0;padding:28px 12px;text-align:center;color:var(--muted);background:var(--surface-2);border-radius:12px}
.p-columns{display:grid;gap:20px;grid-template-columns:minmax(0,1fr)}
@media (min-width:900px){.p-columns{grid-template-columns:minmax(0,3fr) minmax(0,2fr)}}
.p-group+.p-group{margin-top:20px}
.p-group h3{font-size:15px;font-weight:700;margin:0 0 6px;color:var(--accent)}
.p-table{width:100%;border-collapse:collapse;font-size:15px;table-layout:fixed}
.p-table th{font-size:14px;font-weight:600;color:var(--muted);text-align:left;padding:6px 8px;border-bottom:1px solid var(--border)}
.p-table td{padding:9px 8px;border-bottom:1px solid var(--border);vertical-align:middle}
.p-table tr:last-child td{border-bottom:0}
.p-table .p-n{text-align:right;font-variant-numeric:tabular-nums;width:3.25em}
.p-table .p-pos{width:3.25em}
.p-place{display:inline-grid;place-items:center;min-width:28px;height:28px;padding:0 6px;border-radius:8px;background:var(--surface-2);
font-weight:700;font-size:14px;font-variant-numeric:tabular-nums}
.p-place[data-place="1"]{background:var(--gold-bg);color:var(--gold)}
.p-place[data-place="2"]{background:var(--silver-bg);color:var(--silver)}
.p-place[data-place="3"]{background:var(--bronze-bg);color:var(--bronze)}
.p-adv td:first-child{box-shadow:inset 3px 0 0 var(--adv)}
.p-table th.p-team{font-size:inherit;font-weight:inherit;color:inherit;text-align:left;padding:9px 8px;border-bottom:1px solid var(--border)}
.p-table tr:last-child th{border-bottom:0}
.p-tname{font-weight:600;overflow-wrap:break-word;min-width:0}
.p-ttag{margin-left:8px;font-size:14px;color:var(--muted);white-space:nowrap}
.p-legend{margin:10px 0 0;font-size:14px;color:var(--muted);display:flex;align-items:center;gap:8px}
.p-legend::before{content:"";width:12px;height:12px;border-radius:3px;background:var(--adv)}
.p-list{list-style:none;margin:0;padding:0;display:grid;gap:10px}
.p-up{border:1px solid var(--border);border-radius:12px;padding:10px 14px;background:var(--surface-2)}
.p-up-top{display:flex;justify-content:space-between;gap:8px;flex-wrap:wrap;font-size:14px;color:var(--muted)}
.p-up-time{font-weight:600;color:var(--text)}
.p-up-time[data-unscheduled]{font-weight:500;color:var(--muted)}
.p-up-team{display:flex;align-items:baseline;gap:8px;padding:4px 0}
.p-up-team+.p-up-team{border-top:1px dashed var(--border)}
.p-up-team .p-ttag{margin-left:auto}
.p-up-top{margin-bottom:4px}
.p-badge{display:inline-block;font-size:14px;font-weight:600;padding:0 8px;border-radius:6px;background:var(--accent-soft);color:var(--accent)}
.p-more{margin:10px 0 0;font-size:14px;color:var(--muted)}
.p-teams{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:8px}
.p-teams li{padding:10px 12px;border:1px solid var(--border);border-radius:10px;background:var(--surface-2)}
.p-notice{text-align:center;padding:48px 20px}
.p-notice h2{font-size:1.4rem;margin-bottom:8px}
.p-notice p{margin:0 auto;max-width:52ch;color:var(--muted)}
.p-notice code{font-size:14px;background:var(--surface-2);padding:2px 6px;border-radius:6px;overflow-wrap:anywhere}
.p-notice-icon{width:56px;height:56px;margin:0 auto 16px;border-radius:50%;display:grid;place-items:center;background:var(--accent-soft);
color:var(--accent);font-size:28px;font-weight:800}
.p-foot{padding-top:8px;padding-bottom:28px;font-size:14px;color:var(--muted);text-align:center}
@media (max-width:600px){.p-card{padding:16px;border-radius:14px}.p-frame{margin:0 -16px}.p-bracket{padding:0 16px 4px}
.p-table td,.p-table th{padding-left:5px;padding-right:5px}.p-table .p-n{width:2.6em}.p-table .p-pos{width:2.6em}}
`;

// The page's script: plain ES2020, no modules. Written without template literals (this file holds
// it in one) and with DOM built by textContent only.
const SCRIPT = String.raw`
(function () {
  "use strict";
  var FORMATS = { single_elimination: "Single elimination", double_elimination: "Double elimination", round_robin: "Round robin", swiss: "Swiss" };
  var STATUS = { registration: "Registration open", ongoing: "In progress", completed: "Completed" };
  var STAGE_STATUS = { pending: "Not started", ongoing: "In progress", completed: "Completed" };
  var SHOWN_UPCOMING = 8;
  var $ = function (id) { return document.getElementById(id); };
  var metaContent = function (name) {
    var m = document.querySelector('meta[name="' + name + '"]');
    return m ? m.getAttribute("content") || "" : "";
  };
  var query = new URLSearchParams(location.search);
  var api = (metaContent("tournament-api") || query.get("api") || "").trim().replace(/\/+$/, "");
  var slug = (metaContent("tournament-slug") || query.get("slug") || "").trim();
  var dark = window.matchMedia("(prefers-color-scheme: dark)");
  var timeFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
  var dayFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "long", year: "numeric" });
  var clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });

  var view = null;      // the PublicView shown
  var chosen = null;    // the stage the viewer picked; null follows the stage being played
  var wanted = 0;       // the newest version the stream announced
  var svgSeq = 0;       // the latest SVG request; older answers are dropped
  var svgText = "";     // the SVG shown, to skip redrawing the same picture
  var timer = 0, busy = false, again = false, gone = false, staleTries = 0;
  var stream = null, streamRetry = 1000, slowTimer = 0;

  function h(tag, props, kids) {
    var el = document.createElement(tag);
    if (props) Object.keys(props).forEach(function (k) {
      var v = props[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "text") el.textContent = String(v);
      else if (k === "class") el.className = v;
      else el.setAttribute(k, v === true ? "" : String(v));
    });
    [].concat(kids === undefined ? [] : kids).forEach(function (c) {
      if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    });
    return el;
  }
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function base() { return api + "/public/tournaments/" + encodeURIComponent(slug); }
  function groupName(g) { return String(g); } // as the SVG names them
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  function setConn(state, text) {
    var el = $("p-conn");
    el.setAttribute("data-state", state);
    $("p-conn-text").textContent = text;
  }

  // GET with revalidation (If-None-Match: a cached copy never hides an update); waits out 429s
  // (Retry-After) and network failures. null once the tournament is gone.
  async function get(url) {
    var backoff = 1000;
    for (;;) {
      if (gone) return null;
      var res = null;
      try { res = await fetch(url, { cache: "no-cache" }); } catch (e) { res = null; }
      if (res && res.status !== 429) return res;
      var wait = backoff;
      if (res && res.status === 429) {
        var after = Number(res.headers.get("Retry-After"));
        wait = isFinite(after) && after > 0 ? after * 1000 : 5000;
      } else {
        backoff = Math.min(backoff * 2, 30000);
        setConn("offline", "Offline, retrying…");
      }
      await sleep(Math.max(wait, 500));
    }
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(refresh, ms);
  }

  async function refresh() {
    if (gone) return;
    if (busy) { again = true; return; }
    busy = true;
    try {
      await load();
    } catch (e) {
      console.error(e);
      schedule(5000);
    } finally {
      busy = false;
      if (again) { again = false; schedule(0); }
    }
  }

  // The stage the page shows: the one picked, else the one being played.
  function currentStage(v) {
    if (typeof v.tournament.stage === "number") return v.tournament.stage;
    var started = v.stages.filter(function (s) { return s.status !== "pending"; });
    return started.length ? started[started.length - 1].number : (v.stages[0] ? v.stages[0].number : 1);
  }
  function selectedStage(v) {
    var n = chosen;
    if (n !== null && v.stages.some(function (s) { return s.number === n && s.status !== "pending"; })) return n;
    return currentStage(v);
  }
  function stageOf(v, n) { return v.stages.filter(function (s) { return s.number === n; })[0] || null; }
  function drawn(v) { return v.tournament.status !== "registration" && v.matches.length > 0; }

  async function load() {
    var guess = view && drawn(view) ? selectedStage(view) : null;
    var svgPromise = guess === null ? null : fetchSvg(guess); // in parallel when the stage is known
    var res = await get(base());
    if (!res) return;
    if (res.status === 404) return notPublic();
    if (!res.ok) throw new Error("GET " + base() + ": HTTP " + res.status);
    var next = (await res.json()).data;
    view = next;
    render();
    if (drawn(next)) {
      var stage = selectedStage(next);
      var svg = svgPromise && stage === guess ? await svgPromise : await fetchSvg(stage);
      if (svg && svg.version !== null && svg.version < next.tournament.version) svg = await fetchSvg(stage);
      if (svg) showSvg(svg);
    } else {
      svgText = "";
      $("p-bracket").removeAttribute("data-stage");
      $("p-bracket").replaceChildren(h("p", { class: "p-empty", text: "The bracket is drawn when the tournament starts." }));
      $("p-hint").hidden = true;
    }
    $("p-main").removeAttribute("aria-busy");
    $("p-updated").textContent = "Updated " + clockFormat.format(new Date());
    // The stream announced a newer version than this answer holds: ask again shortly.
    if (next.tournament.version < wanted && staleTries < 10) { staleTries++; schedule(300); } else staleTries = 0;
    // The stream opens once the page is drawn: on HTTP/1.1 a browser holds 6 connections per
    // host, and a stream keeps one, so the first picture never waits behind other tabs' streams.
    if (!stream) connect();
  }

  async function fetchSvg(stage) {
    var seq = ++svgSeq;
    var theme = dark.matches ? "dark" : "light";
    var res = await get(base() + "/bracket.svg?stage=" + stage + "&theme=" + theme);
    if (!res) return null;
    var tag = /"(\d+)"/.exec(res.headers.get("ETag") || "");
    return { seq: seq, stage: stage, status: res.status, version: tag ? Number(tag[1]) : null, text: res.ok ? await res.text() : "" };
  }

  // Strips anything active from the server's SVG (it has none; a page must not trust that).
  function inert(root) {
    root.querySelectorAll("script, foreignObject, iframe, object, embed, a").forEach(function (el) {
      if (el.localName === "a") el.replaceWith.apply(el, Array.prototype.slice.call(el.childNodes));
      else el.remove();
    });
    [root].concat(Array.prototype.slice.call(root.querySelectorAll("*"))).forEach(function (el) {
      Array.prototype.slice.call(el.attributes).forEach(function (a) {
        var name = a.name.toLowerCase();
        if (name.indexOf("on") === 0 || ((name === "href" || name === "xlink:href" || name === "src") && a.value.charAt(0) !== "#")) {
          el.removeAttribute(a.name);
        }
      });
    });
    root.querySelectorAll("style").forEach(function (s) {
      s.textContent = s.textContent.replace(/@import[^;]*;?/gi, "").replace(/url\(\s*(?!['"]?#)[^)]*\)/gi, "none");
    });
  }

  function showSvg(svg) {
    if (svg.seq !== svgSeq || !view || svg.stage !== selectedStage(view)) return; // a newer request is on its way
    var box = $("p-bracket");
    if (!svg.text) {
      svgText = "";
      box.removeAttribute("data-stage");
      box.replaceChildren(h("p", { class: "p-empty", text: svg.status === 404 ? "This stage has no bracket yet." : "The bracket could not be loaded. Retrying…" }));
      if (svg.status !== 404) schedule(5000);
      return;
    }
    if (svg.text === svgText && box.querySelector("svg")) return;
    var doc = new DOMParser().parseFromString(svg.text, "image/svg+xml");
    var root = doc.documentElement;
    if (root.localName !== "svg" || doc.getElementsByTagName("parsererror").length) {
      box.replaceChildren(h("p", { class: "p-empty", text: "The bracket could not be shown." }));
      return;
    }
    inert(root);
    var node = document.importNode(root, true);
    var stage = stageOf(view, svg.stage);
    node.setAttribute("aria-label", (stage ? stage.name : "Bracket") + " — bracket");
    var title = node.querySelector(":scope > title");
    if (title) title.remove(); // a tooltip over the whole picture; the label below says it
    box.replaceChildren(node);
    cropHeader(node);
    box.setAttribute("data-stage", String(svg.stage));
    svgText = svg.text;
    overflowHint();
  }

  function overflowHint() {
    var box = $("p-bracket");
    var wide = !!box.querySelector("svg") && box.scrollWidth > box.clientWidth + 1;
    $("p-hint").hidden = !wide;
    if (wide && box.scrollLeft + box.clientWidth < box.scrollWidth - 1) $("p-frame").setAttribute("data-more", "");
    else $("p-frame").removeAttribute("data-more");
  }

  // The picture's own header repeats what the page's header says: drop it and crop the picture
  // to its stage drawing (the PNG for chat apps keeps it).
  function cropHeader(svg) {
    var header = svg.querySelector(":scope > g.header"), body = svg.querySelector(":scope > g.stage");
    if (!header || !body || header.querySelector(".clipped")) return;
    var size = svg.viewBox.baseVal, box = body.getBBox();
    if (!size || !size.width || !(box.width > 0)) return;
    header.remove();
    var top = Math.max(0, Math.floor(box.y) - 12);
    var width = Math.min(size.width, Math.ceil(box.x + box.width) + Math.max(0, Math.floor(box.x)));
    var height = size.height - top;
    svg.setAttribute("viewBox", [size.x, top, width, height].join(" "));
    svg.setAttribute("width", String(width));
    svg.setAttribute("height", String(height));
  }

  async function reloadSvg() {
    if (!view || !drawn(view)) return;
    var svg = await fetchSvg(selectedStage(view));
    if (svg) showSvg(svg);
  }

  function teamsById(v) {
    var map = {};
    v.registrations.forEach(function (r) { if (r.teams) map[r.team_id] = r.teams; });
    return map;
  }

  function teamCell(name, tag) {
    return [h("span", { class: "p-tname", text: name }), tag && tag !== name ? h("span", { class: "p-ttag", text: tag }) : null];
  }

  function roundLabel(v, m) {
    var stage = stageOf(v, m.stage);
    var format = stage ? stage.format : v.tournament.format;
    var label;
    if (m.bracket === "third_place") label = "3rd place match";
    else if (m.bracket === "grand_final") label = m.round > 1 ? "Grand final reset" : "Grand final";
    else {
      var last = 0;
      v.matches.forEach(function (x) { if (x.stage === m.stage && x.bracket === m.bracket && x.round > last) last = x.round; });
      if (format === "single_elimination") {
        var left = last - m.round;
        label = left === 0 ? "Final" : left === 1 ? "Semi-final" : left === 2 ? "Quarter-final" : "Round " + m.round;
      } else if (m.bracket === "winners") label = m.round === last ? "Winners final" : "Winners round " + m.round;
      else if (m.bracket === "losers") label = m.round === last ? "Losers final" : "Losers round " + m.round;
      else if (m.group !== null && m.group !== undefined) label = "Group " + groupName(m.group) + " · Round " + m.round;
      else label = "Round " + m.round;
    }
    return v.stages.length > 1 && stage ? stage.name + " · " + label : label;
  }

  function render() {
    var v = view, t = v.tournament;
    var selected = selectedStage(v);
    var stage = stageOf(v, selected);
    var teams = teamsById(v);
    var playing = v.registrations.length;
    document.title = t.name + " — " + (t.status === "completed" ? "results" : "live bracket");
    $("p-name").textContent = t.name;
    var desc = $("p-desc");
    desc.textContent = t.description || "";
    desc.hidden = !t.description;
    var formats = v.stages.length > 1 ? v.stages.map(function (s) { return FORMATS[s.format] || s.format; }).join(" → ") : FORMATS[t.format] || "Tournament";
    $("p-eyebrow").textContent = formats + " · " + plural(playing, "team", "teams");

    var chips = [h("li", { class: "p-chip", "data-kind": t.status, text: STATUS[t.status] || t.status })];
    if (v.stages.length > 1 && stage) {
      chips.push(h("li", { class: "p-chip", text: "Stage " + currentStage(v) + " of " + v.stages.length + " · " + (stageOf(v, currentStage(v)) || stage).name }));
    }
    var bestOf = stage && stage.format_options && Number(stage.format_options.best_of);
    if (bestOf > 1) chips.push(h("li", { class: "p-chip", text: "Best of " + bestOf }));
    if (t.starts_at) {
      var starts = new Date(t.starts_at);
      chips.push(h("li", { class: "p-chip" }, h("time", { datetime: t.starts_at, text: (starts.getTime() > Date.now() ? "Starts " + timeFormat.format(starts) : "Started " + dayFormat.format(starts)) })));
    }
    if (t.status === "completed" && v.standings.length) {
      var champion = v.standings.filter(function (s) { return s.position === 1; });
      if (champion.length === 1) chips.push(h("li", { class: "p-chip", "data-kind": "champion", text: "Champion: " + champion[0].team_name }));
    }
    $("p-chips").replaceChildren.apply($("p-chips"), chips);

    renderTabs(v, selected);
    var what = stage && stage.format === "round_robin" ? "Groups" : stage && stage.format === "swiss" ? "Rounds" : "Bracket";
    $("p-bracket-h").textContent = what;
    $("p-bracket-sub").textContent = stage ? (v.stages.length > 1 ? stage.name + " · " : "") + (FORMATS[stage.format] || "") : "";
    renderStandings(v, stage, teams);
    renderUpcoming(v, teams);
  }

  function renderTabs(v, selected) {
    var tabs = $("p-tabs");
    var started = v.stages.filter(function (s) { return s.status !== "pending"; });
    tabs.hidden = started.length < 2;
    if (tabs.hidden) { tabs.replaceChildren(); return; }
    tabs.replaceChildren.apply(tabs, started.map(function (s) {
      var b = h("button", { type: "button", class: "p-tab", role: "tab", "aria-selected": String(s.number === selected), "aria-controls": "p-bracket", "data-stage": s.number },
        [s.name, h("small", { text: STAGE_STATUS[s.status] || s.status })]);
      b.addEventListener("click", function () {
        chosen = s.number === currentStage(view) ? null : s.number;
        render();
        reloadSvg();
      });
      return b;
    }));
  }

  function standingsTable(entries, marks) {
    var has = function (f) { return entries.some(function (e) { return e[f] !== undefined && e[f] !== null; }); };
    var cols = [["wins", "W", "Wins"], ["losses", "L", "Losses"], ["points", "Pts", "Points"], ["buchholz", "Bhz", "Buchholz"]].filter(function (c) { return has(c[0]); });
    var head = h("tr", null, [h("th", { scope: "col", class: "p-pos", text: "#" }), h("th", { scope: "col", text: "Team" })].concat(
      cols.map(function (c) { return h("th", { scope: "col", class: "p-n" }, h("abbr", { title: c[2], text: c[1], style: "text-decoration:none" })); })));
    var rows = entries.map(function (e) {
      var place = e.group_position !== undefined && e.group_position !== null ? e.group_position : e.position;
      return h("tr", { class: marks && marks(e) ? "p-adv" : null }, [
        h("td", { class: "p-pos" }, h("span", { class: "p-place", "data-place": place, text: place })),
        h("th", { scope: "row", class: "p-team" }, teamCell(e.team_name, e.team_tag)),
      ].concat(cols.map(function (c) { return h("td", { class: "p-n", text: e[c[0]] }); })));
    });
    return h("table", { class: "p-table" }, [h("thead", null, head), h("tbody", null, rows)]);
  }

  function renderStandings(v, stage, teams) {
    var box = $("p-standings");
    var t = v.tournament;
    var heading = $("p-standings-h");
    if (!drawn(v)) {
      heading.textContent = "Teams";
      $("p-standings-sub").textContent = plural(v.registrations.length, "team registered", "teams registered");
      box.replaceChildren(v.registrations.length
        ? h("ul", { class: "p-teams" }, v.registrations.map(function (r) { return h("li", null, teamCell(r.teams.name, r.teams.tag)); }))
        : h("p", { class: "p-empty", text: "No team has registered yet." }));
      return;
    }
    var last = v.stages.length ? v.stages[v.stages.length - 1].number : 1;
    var overall = t.status === "completed" && (!stage || stage.number === last);
    var entries = overall ? v.standings : (stage ? stage.standings : v.standings);
    heading.textContent = overall ? "Final standings" : "Standings";
    $("p-standings-sub").textContent = overall || !stage || v.stages.length < 2 ? "" : stage.name;
    if (!entries.length) {
      var knockout = stage && /elimination/.test(stage.format);
      box.replaceChildren(h("p", { class: "p-empty", text: knockout ? "Places are decided as teams are knocked out." : "Standings appear once matches are played." }));
      return;
    }
    var adv = !overall && stage && stage.advance ? stage.advance : null;
    var next = adv ? stageOf(v, stage.number + 1) : null;
    var marks = adv ? function (e) {
      if (adv.per_group && e.group_position !== undefined) return e.group_position <= adv.per_group;
      if (adv.top) return e.position <= adv.top;
      return false;
    } : null;
    var grouped = entries.some(function (e) { return e.group !== undefined && e.group !== null; });
    var parts = [];
    if (grouped) {
      var groups = [];
      entries.forEach(function (e) { if (groups.indexOf(e.group) < 0) groups.push(e.group); });
      groups.sort(function (a, b) { return a - b; });
      groups.forEach(function (g) {
        parts.push(h("div", { class: "p-group" }, [h("h3", { text: "Group " + groupName(g) }),
          standingsTable(entries.filter(function (e) { return e.group === g; }), marks)]));
      });
    } else parts.push(standingsTable(entries, marks));
    if (marks && next) parts.push(h("p", { class: "p-legend", text: "Advancing to " + next.name }));
    box.replaceChildren.apply(box, parts);
  }

  function renderUpcoming(v, teams) {
    var box = $("p-upcoming");
    var card = $("p-upcoming-card");
    card.hidden = !drawn(v);
    var list = v.matches.filter(function (m) {
      return (m.status === "ready" || m.status === "pending") && m.team1_id && m.team2_id;
    }).sort(function (a, b) {
      var at = a.scheduled_at ? Date.parse(a.scheduled_at) : Infinity, bt = b.scheduled_at ? Date.parse(b.scheduled_at) : Infinity;
      return at - bt || a.stage - b.stage || a.round - b.round || a.position - b.position;
    });
    $("p-upcoming-sub").textContent = list.length ? plural(list.length, "match", "matches") : "";
    if (!list.length) {
      box.replaceChildren(h("p", { class: "p-empty", text: v.tournament.status === "completed" ? "All matches have been played." : "No match is waiting to be played." }));
      return;
    }
    var side = function (id) {
      var team = teams[id];
      return h("div", { class: "p-up-team" }, teamCell(team ? team.name : "TBD", team ? team.tag : ""));
    };
    var items = list.slice(0, SHOWN_UPCOMING).map(function (m) {
      var when = m.scheduled_at
        ? h("time", { class: "p-up-time", datetime: m.scheduled_at, text: timeFormat.format(new Date(m.scheduled_at)) })
        : h("span", { class: "p-up-time", "data-unscheduled": true, text: "Time to be announced" });
      var label = [roundLabel(v, m)];
      if (m.best_of > 1) label.push(" ", h("span", { class: "p-badge", text: "Bo" + m.best_of }));
      return h("li", { class: "p-up", "data-match": m.id }, [
        h("div", { class: "p-up-top" }, [h("span", null, label), when]),
        side(m.team1_id), side(m.team2_id),
      ]);
    });
    var parts = [h("ol", { class: "p-list" }, items)];
    if (list.length > SHOWN_UPCOMING) parts.push(h("p", { class: "p-more", text: "and " + plural(list.length - SHOWN_UPCOMING, "more match", "more matches") }));
    box.replaceChildren.apply(box, parts);
  }

  function notice(icon, title, body) {
    gone = true;
    clearTimeout(timer);
    if (stream) stream.close();
    $("p-conn").hidden = true;
    $("p-chips").replaceChildren();
    $("p-tabs").hidden = true;
    $("p-desc").hidden = true;
    $("p-eyebrow").textContent = "Tournament";
    $("p-name").textContent = title;
    document.title = title;
    var main = $("p-main");
    main.removeAttribute("aria-busy");
    main.replaceChildren(h("section", { class: "p-card p-notice", role: "alert" }, [
      h("div", { class: "p-notice-icon", "aria-hidden": "true", text: icon }), h("h2", { text: title })].concat(body)));
  }

  function notPublic() {
    notice("?", "This tournament is not public or does not exist",
      [h("p", { text: "Check the link, or ask the organiser to make the tournament public." })]);
  }

  function connect() {
    if (gone) return;
    var es = new EventSource(base() + "/stream");
    stream = es;
    es.onopen = function () {
      clearTimeout(slowTimer);
      streamRetry = 1000;
      setConn("live", "Live");
    };
    es.addEventListener("results", function (e) {
      var version = Number(e.lastEventId) || 0;
      if (version > wanted) wanted = version;
      if (view && version > view.tournament.version) schedule(100);
    });
    es.addEventListener("deleted", function () { es.close(); notPublic(); });
    es.onerror = function () {
      if (gone) return;
      if (es.readyState === EventSource.CLOSED) {
        // Refused (404, 429, …): EventSource gives up, so try again later, and look at the JSON.
        setConn("offline", "Offline, retrying…");
        stream = null;
        setTimeout(refresh, streamRetry); // which opens a new stream once the JSON answers
        streamRetry = Math.min(streamRetry * 2, 60000);
      } else {
        // The server ends each stream after a while and EventSource comes back within a second.
        clearTimeout(slowTimer);
        slowTimer = setTimeout(function () { setConn("reconnecting", "Reconnecting…"); }, 4000);
      }
    };
  }

  function setup() {
    notice("i", "Which tournament?", [
      h("p", null, ["This viewer shows a public tournament. Open it with ", h("code", { text: "?api=<API base URL>&slug=<tournament slug>" }), ", for example:"]),
      h("p", { style: "margin-top:12px" }, h("code", { text: "viewer.html?api=https://<project>.supabase.co/functions/v1/api/v1&slug=winter-cup-x1y2z3" })),
    ]);
  }

  var valid = false;
  try { valid = /^https?:$/.test(new URL(api).protocol); } catch (e) { valid = false; }
  if (!valid || !slug) return setup();
  dark.addEventListener("change", function () { svgText = ""; reloadSvg(); });
  window.addEventListener("resize", overflowHint);
  $("p-bracket").addEventListener("scroll", overflowHint, { passive: true });
  // A tab hidden for a minute lets its stream go (it holds a connection); shown again, it catches up.
  var hiddenTimer = 0;
  document.addEventListener("visibilitychange", function () {
    clearTimeout(hiddenTimer);
    if (document.hidden) {
      hiddenTimer = setTimeout(function () {
        if (stream && !gone) { stream.close(); stream = null; setConn("reconnecting", "Paused"); }
      }, 60000);
    } else if (!stream && view && !gone) refresh();
  });
  refresh();
})();
`;
