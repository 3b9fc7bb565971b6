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

import { STYLE } from "./page-style.ts";
import { LABELS } from "./labels.ts";
import { pageCards } from "./page-cards.ts";
import { pageDraw } from "./page-draw.ts";
import { pageLobbies } from "./page-lobbies.ts";
import { pagePicture } from "./page-picture.ts";
import { pageMain } from "./page-script.ts";
import { pageTeams } from "./page-teams.ts";

/** What the page is built with. */
export interface PageOptions {
  /** The API base URL up to and including /api/v1 (e.g. http://127.0.0.1:54321/functions/v1/api/v1). Unset: viewer.html, which reads ?api=<base>&slug=<slug> from its own URL. */
  apiBase?: string;
  slug?: string;
  /** Open Graph / Twitter card tags for the served page (the route fills them from the tournament). */
  og?: { title: string; description: string; image: string; url: string };
}

/**
 * The page's script: the client's functions by their source text, the labels table (labels.ts)
 * as JSON. Deno transpiles a module to JavaScript when it loads it (deployed too: there is no
 * build step), so a function's source text is plain JavaScript; each function uses only the
 * browser's globals and its parameters (page-script.ts, page-draw.ts, page-cards.ts,
 * page-picture.ts, page-teams.ts, page-lobbies.ts). The directive makes the classic script as strict as the
 * modules the functions were written in; the block keeps `labels` out of the page's globals.
 */
function clientScript(): string {
  const [main, draw, cards, picture, teams, lobbies] = [pageMain, pageDraw, pageCards, pagePicture, pageTeams, pageLobbies].map((f) =>
    f.toString()
  );
  // Inside <script>, "</script" or "<!--" in the text would end or bend the element.
  for (const text of [main, draw, cards, picture, teams, lobbies]) {
    if (/<\/script|<!--/i.test(text)) throw new Error("the page's script holds </script or <!--");
  }
  const labels = JSON.stringify(LABELS).replace(/</g, "\\u003c");
  return `"use strict";\n{\nconst labels = ${labels};\n(${main})((${lobbies})((${teams})(labels, (${draw})(labels, ${cards}))), (${picture})());\n}\n`;
}
const SCRIPT = clientScript();

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
    return url.protocol === "http:" || url.protocol === "https:" ? `'self' ${url.origin}` : "'none'";
  } catch {
    return "'none'";
  }
}

/**
 * The page's Content-Security-Policy, the one policy of the share page and viewer.html: its
 * scripts may talk to the API (and nothing else) and load nothing from elsewhere. The page
 * carries it in a meta tag (a page saved and opened from disk keeps it); served, the same policy
 * is its header, with the two directives a meta tag cannot hold (`PAGE_CSP_SERVED`).
 */
export function pageCsp(apiBase: string | undefined): string {
  return `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; ` +
    `connect-src ${connectSource(apiBase)}; base-uri 'none'; form-action 'none'`;
}

/**
 * Served, the page runs sandboxed in an opaque origin: from the API's own origin it can read
 * nothing of that origin's (the reference page keeps a key in its storage when asked to); it may
 * be framed anywhere (embeds).
 */
export const PAGE_CSP_SERVED = "frame-ancestors *; sandbox allow-scripts allow-popups";

function metaTag(attr: "name" | "property", key: string, content: string): string {
  return `<meta ${attr}="${escapeHtml(key)}" content="${escapeHtml(content)}">`;
}

/** One self-contained HTML document: inline CSS and JS, no framework, no request to any host but the API base. */
export function pageHtml(options: PageOptions): string {
  const { apiBase, slug, og } = options;
  const csp = pageCsp(apiBase);
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
  const lineupHeading = escapeHtml(LABELS.lineup.heading);
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
  <div class="p-columns" id="p-columns">
    <section class="p-card" aria-labelledby="p-standings-h">
      <div class="p-card-head"><h2 id="p-standings-h">Standings</h2><span class="p-sub" id="p-standings-sub"></span></div>
      <div id="p-standings"></div>
    </section>
    <section class="p-card" aria-labelledby="p-upcoming-h" id="p-upcoming-card">
      <div class="p-card-head"><h2 id="p-upcoming-h">Upcoming matches</h2><span class="p-sub" id="p-upcoming-sub"></span></div>
      <div id="p-upcoming"></div>
    </section>
  </div>
  <section class="p-card" aria-labelledby="p-lineups-h">
    <div class="p-card-head"><h2 id="p-lineups-h">${lineupHeading}</h2><span class="p-sub" id="p-lineups-sub"></span></div>
    <div id="p-lineups"></div>
  </section>
</main>
<footer class="p-wrap p-foot"><span id="p-updated"></span></footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
