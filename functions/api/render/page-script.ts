// The share page's client script (page.ts), inlined in its one document.
// The page's script: plain ES2020, no modules. Written without template literals (this file holds
// it in one) and with DOM built by textContent only.
export const SCRIPT = String.raw`
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
    // The picture in parallel with the JSON: of the stage shown, or at first the server's default
    // (the stage being played, as the page's own default); used when it is the stage to show.
    var guess = view ? (drawn(view) ? selectedStage(view) : undefined) : null;
    var svgPromise = guess === undefined ? null : fetchSvg(guess);
    var res = await get(base());
    if (!res) return;
    if (res.status === 404) return notPublic();
    if (!res.ok) throw new Error("GET " + base() + ": HTTP " + res.status);
    var next = (await res.json()).data;
    view = next;
    render();
    if (drawn(next)) {
      var stage = selectedStage(next);
      var svg = svgPromise ? await svgPromise : null;
      if (!svg || svg.stage !== stage) svg = await fetchSvg(stage);
      if (svg && svg.version !== null && svg.version < next.tournament.version) svg = await fetchSvg(stage);
      if (svg) showSvg(svg);
    } else {
      svgText = "";
      $("p-bracket").removeAttribute("data-stage");
      $("p-bracket").replaceChildren(h("p", { class: "p-empty", text: "The bracket is drawn when the tournament starts." }));
      $("p-hint").hidden = true;
    }
    $("p-main").removeAttribute("aria-busy");
    $("p-main").setAttribute("data-version", String(next.tournament.version));
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
    var res = await get(base() + "/bracket.svg?" + (stage === null ? "" : "stage=" + stage + "&") + "theme=" + theme);
    if (!res) return null;
    var tag = /"(\d+)"/.exec(res.headers.get("ETag") || "");
    var text = res.ok ? await res.text() : "";
    if (stage === null) { // the server's choice, which its root element names
      var named = /^[^>]*\sdata-stage="(\d+)"/.exec(text.slice(text.indexOf("<svg")));
      stage = named ? Number(named[1]) : null;
    }
    return { seq: seq, stage: stage, status: res.status, version: tag ? Number(tag[1]) : null, text: text };
  }

  // Strips anything active from the server's SVG (it has none; a page must not trust that).
  // Only what a drawing needs survives: SVG elements, no link, script or foreign content (an API
  // named by viewer.html's ?api= may be anyone's), no event or reference attribute.
  var SVG_NS = "http://www.w3.org/2000/svg";
  var DRAWING = /^(svg|g|rect|line|path|polyline|polygon|circle|ellipse|text|tspan|title|desc|defs|style|lineargradient|stop|clippath|use)$/i;
  function inert(root) {
    root.querySelectorAll("a").forEach(function (el) {
      el.replaceWith.apply(el, Array.prototype.slice.call(el.childNodes));
    });
    Array.prototype.slice.call(root.querySelectorAll("*")).forEach(function (el) {
      if (el.namespaceURI !== SVG_NS || !DRAWING.test(el.localName)) el.remove();
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
    renderStandings(v, stage);
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

  function renderStandings(v, stage) {
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
