// The public view (contract section 15, with sections 2, 3, 5, 6, 12, 13 and 14 where they meet
// it), written from the contract alone, black-box over HTTP against the real function:
// 1. `visibility`: private by default, set on create and by PATCH in every status, bad values 400,
//    a change raises the version and is a `tournament.updated` webhook event (section 11);
// 2. a private, unknown, deleted or formerly public slug is 404 on every public route, the same
//    answer whatever key is sent; a key changes nothing on a public one either;
// 3. the public JSON is the keyed documents minus `payment_status`, and nothing about the account
//    or its keys anywhere (property over random formats, stages, states and payments);
// 4. HTTP: `Cache-Control: public, max-age=5`, ETag = version, 304 on If-None-Match (lists, *,
//    W/), CORS (any origin, preflight, ETag exposed), 405 for other methods;
// 5. the per-address limit (300 a minute, 429 with Retry-After; never per key; exact when parallel;
//    404s and streams count; made-up X-Forwarded-For entries in front do not escape it); the page
//    never takes its host from X-Forwarded-Host (it is publicly cached);
// 6. the SVG: well-formed (a checker below), self-contained, safe, every team (whole tag or whole
//    name, for any tag of 1–20 characters), BYE/TBD, every reported score, scheduled time, `stage`
//    and `theme`, bad parameters 400 (properties over formats, sizes, names and tags);
// 7. the PNG: a valid PNG (chunks, CRCs, IHDR, inflated size, something drawn) ≤ 4096 a side, the
//    same picture as the SVG (its proportions) unless it says which part it shows, up to 1024 teams;
// 8. the keyed `bracket.svg` / `.png`: `read:results`, private ones of the own account, another's 404;
// 9. the page and `viewer.html`: HTML, Open Graph pointing at the PNG, no other host, escaping;
// 10. the public stream: first the whole results, then deltas, Last-Event-ID, deleted, made private.
//
// Every request to a public route carries its own `X-Forwarded-For` address per test, so that the
// per-address limit of one test never touches another.
import fc from "fast-check";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  ALL_SCOPES,
  type ApiResponse,
  apiUrl,
  createAccount,
  createKey,
  expectError,
  expectStatus,
  type Match,
  rateHits,
  request,
  type RequestOptions,
  runSeed,
  setRateHits,
  sql,
  tournamentBody,
} from "../support/helpers.ts";

const SEED = runSeed("PUBLIC_PROPS_SEED");
console.log(`public-contract: fast-check seed ${SEED} (PUBLIC_PROPS_SEED=<n> replays another)`);
/** A marker unique to this run: team names, tags and addresses are built from it. */
const RUN = Math.random().toString(36).slice(2, 6).toUpperCase().padEnd(4, "X");
let seq = 0;
const next = () => ++seq;

// ============================================================================
// Harness
// ============================================================================

/** A fresh client address (X-Forwarded-For) for one test: 10.x.y.z, random. */
function address(): string {
  const b = () => 1 + Math.floor(Math.random() * 254);
  return `10.${b()}.${b()}.${b()}`;
}

/**
 * A request to a public route from `ip`, optionally with a key. A body that does not end within
 * 8 s (a stream answered where none should be) is cut, so that no test hangs on it.
 */
async function pubMethod(
  ip: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; key?: string } = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { "x-forwarded-for": ip, ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (method !== "GET") headers["content-type"] = "application/json";
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), 8000);
  try {
    const res = await fetch(apiUrl() + path, { method, headers, signal: ctrl.signal, body: method === "GET" ? undefined : "{}" });
    let text: string;
    try {
      text = await res.text();
    } catch {
      text = "(the body did not end within 8 s)";
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, body, text };
  } finally {
    clearTimeout(timer);
  }
}
const pub = (ip: string, path: string, options: { headers?: Record<string, string>; key?: string } = {}) =>
  pubMethod(ip, "GET", path, options);

/** Raw bytes of a GET (for PNG). */
async function getBytes(path: string, headers: Record<string, string>) {
  const res = await fetch(apiUrl() + path, { headers });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

interface Org {
  accountId: string;
  accountName: string;
  keyId: string;
  key: string;
  prefix: string;
  /** A keyed request; takes a fresh key every 90 requests (100 a minute per key). */
  call: (method: string, path: string, options?: Omit<RequestOptions, "key">) => Promise<ApiResponse>;
}

/** An organiser: an account with a unique name, API access, and a key with every scope. */
async function organiser(): Promise<Org> {
  const accountName = `Org ${RUN} n${next()} hush`;
  const accountId = await createAccount(true, accountName);
  const { id: keyId, key } = await createKey(accountId);
  let current = key;
  let used = 0;
  const call: Org["call"] = async (method, path, options = {}) => {
    if (++used > 90) {
      current = (await createKey(accountId)).key;
      used = 1;
    }
    return request(method, path, { ...options, key: current });
  };
  const me = await request("GET", "/me", { key });
  expectStatus(me, 200);
  used++;
  return { accountId, accountName, keyId, key, prefix: me.body.data.key.prefix, call };
}

interface Team {
  id: string;
  name: string;
  tag: string;
}

/**
 * Platform teams with unique names and tags of one length (no one a substring of another). Tags are
 * five characters, as real ones are (NAVI, FNC, G2, TSM...); `tags` gives others.
 */
async function makeTeams(n: number, names?: (i: number) => string, tags?: (i: number) => string): Promise<Team[]> {
  const out: Team[] = [];
  const rows = await sql<{ id: string; name: string; tag: string }>(
    `select admin.create_team(x.name, x.tag) as id, x.name, x.tag
       from unnest($1::text[], $2::text[]) with ordinality as x(name, tag, i) order by x.i`,
    [
      Array.from({ length: n }, (_, i) => names?.(i) ?? `Squad ${RUN} ${String(next()).padStart(5, "0")}`),
      Array.from({ length: n }, (_, i) => tags?.(i) ?? `Z${next().toString(36).toUpperCase().padStart(4, "0")}`),
    ],
  );
  for (const r of rows) out.push({ id: r.id, name: r.name, tag: r.tag });
  return out;
}

interface Event {
  org: Org;
  id: string;
  slug: string;
  teams: Team[];
}

/**
 * A tournament of `org` with `fields`, the teams registered through the API in this order (so that
 * teams[i] is seed i + 1), started unless `start` is false.
 */
async function makeEvent(fields: Record<string, unknown>, teams: Team[], opts: { start?: boolean; org?: Org } = {}): Promise<Event> {
  const org = opts.org ?? await organiser();
  const created = await org.call("POST", "/tournaments", { body: tournamentBody({ max_teams: Math.max(2, teams.length), ...fields }) });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  for (const team of teams) {
    expectStatus(await org.call("POST", `/tournaments/${id}/registrations`, { body: { team_id: team.id } }), 201);
  }
  if (opts.start !== false) expectStatus(await org.call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 200);
  return { org, id, slug: created.body.data.slug, teams };
}

/** The same, registrations straight in SQL (for big brackets). */
async function bigEvent(fields: Record<string, unknown>, teams: Team[]): Promise<Event> {
  const org = await organiser();
  const created = await org.call("POST", "/tournaments", {
    body: tournamentBody({ max_teams: teams.length, visibility: "public", ...fields }),
  });
  expectStatus(created, 201);
  const id: string = created.body.data.id;
  await sql(
    `insert into app.registrations (tournament_id, account_id, team_id, payment_status)
     select $1, $2, u.team_id, 'complete' from unnest($3::uuid[]) with ordinality u(team_id, i) order by u.i`,
    [id, org.accountId, teams.map((t) => t.id)],
  );
  expectStatus(await org.call("PATCH", `/tournaments/${id}`, { body: { status: "ongoing" } }), 200);
  return { org, id, slug: created.body.data.slug, teams };
}

async function versionOf(ev: Event): Promise<number> {
  const res = await ev.org.call("GET", `/tournaments/${ev.id}`);
  expectStatus(res, 200);
  return res.body.data.version;
}

interface Results {
  tournament: Record<string, unknown> & { version: number };
  matches: Match[];
  standings: Record<string, unknown>[];
}
async function results(ev: Event, query = ""): Promise<Results> {
  const res = await ev.org.call("GET", `/tournaments/${ev.id}/results${query}`);
  expectStatus(res, 200);
  return res.body.data;
}

const need = (bestOf: number) => Math.ceil(bestOf / 2);

/** Reports `m` with the better seed (or team1, or as `team1Wins` says) winning. */
function report(ev: Event, m: Match, team1Wins?: boolean, scores?: [number, number]) {
  const t1 = team1Wins ?? ((m.team1_seed ?? 99) < (m.team2_seed ?? 99));
  const [w, l] = scores ?? [need(m.best_of), 0];
  return ev.org.call("PATCH", `/tournaments/${ev.id}/matches/${m.id}`, {
    body: t1 ? { team1_score: w, team2_score: l } : { team1_score: l, team2_score: w },
  });
}

/** Reports every ready match of `stage` (better seed wins) until none is ready. */
async function playStage(ev: Event, stage: number): Promise<void> {
  for (let guard = 0; guard < 50; guard++) {
    const ready = (await results(ev)).matches.filter((m) => m.status === "ready" && m.stage === stage);
    if (!ready.length) return;
    for (const m of ready) expectStatus(await report(ev, m), 200);
  }
  throw new Error("stage never finished");
}

/** The keyed documents the public JSON must equal. */
async function keyedDocuments(ev: Event) {
  const t = await ev.org.call("GET", `/tournaments/${ev.id}`);
  const st = await ev.org.call("GET", `/tournaments/${ev.id}/stages`);
  const rg = await ev.org.call("GET", `/tournaments/${ev.id}/registrations?limit=100`);
  const rs = await ev.org.call("GET", `/tournaments/${ev.id}/results`);
  for (const r of [t, st, rg, rs]) expectStatus(r, 200);
  const details = [];
  for (const s of st.body.data) {
    const d = await ev.org.call("GET", `/tournaments/${ev.id}/stages/${s.number}`);
    expectStatus(d, 200);
    details.push(d.body.data);
  }
  return {
    tournament: t.body.data,
    stages: st.body.data,
    stageDetails: details,
    registrations: rg.body.data,
    results: rs.body.data as Results,
  };
}

const ACCOUNTISH = /account|api_?key|key_id|secret|owner|owned|prefix|webhook/i;
const omit = (o: Record<string, unknown>, keys: (k: string) => boolean) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys(k)));

/** Every key name and string value in `v`, with its path. */
function walk(v: unknown, path: string, out: { keys: [string, string][]; values: [string, string][] }) {
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, out));
  else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      out.keys.push([`${path}.${k}`, k]);
      walk(x, `${path}.${k}`, out);
    }
  } else if (typeof v === "string") out.values.push([path, v]);
  return out;
}

/** Nothing about the organiser's account or keys anywhere in `doc` (keys and values) or its text. */
function expectNoAccountLeak(doc: unknown, text: string, org: Org, ctx: string) {
  const { keys, values } = walk(doc, "$", { keys: [], values: [] });
  const badKeys = keys.filter(([, k]) => ACCOUNTISH.test(k) || k === "payment_status").map(([p]) => p);
  expect(badKeys, `${ctx}: keys about the account, its keys or payments`).toEqual([]);
  for (const secret of [org.accountId, org.keyId, org.key, org.prefix, org.accountName]) {
    expect(values.filter(([, v]) => v.includes(secret)).map(([p]) => p), `${ctx}: values holding ${secret}`).toEqual([]);
    expect(text.includes(secret), `${ctx}: the text holds ${secret}`).toBe(false);
  }
}

/** The public JSON equals the keyed documents minus payment_status (and anything about the account). */
function expectPublicEqualsKeyed(data: Record<string, unknown>, keyed: Awaited<ReturnType<typeof keyedDocuments>>, ctx: string) {
  expect(Object.keys(data).sort(), `${ctx}: the public document's members`).toEqual([
    "matches",
    "registrations",
    "stages",
    "standings",
    "tournament",
  ]);
  const pt = data.tournament as Record<string, unknown>;
  const kt = omit(keyed.tournament, (k) => ACCOUNTISH.test(k));
  // Every field of GET /tournaments/{id}; a field more only if GET results' tournament has it, equal.
  expect(omit(pt, (k) => !(k in kt)), `${ctx}: tournament`).toEqual(kt);
  for (const k of Object.keys(pt).filter((k) => !(k in kt))) {
    expect(k in keyed.results.tournament, `${ctx}: tournament.${k} is in no keyed document`).toBe(true);
    expect(pt[k], `${ctx}: tournament.${k}`).toEqual(keyed.results.tournament[k]);
  }
  const ps = data.stages as Record<string, unknown>[];
  expect(ps.length, `${ctx}: stages`).toBe(keyed.stages.length);
  ps.forEach((s, i) => {
    const list = keyed.stages[i] as Record<string, unknown>;
    const detail = keyed.stageDetails[i] as Record<string, unknown>;
    expect(omit(s, (k) => !(k in list)), `${ctx}: stage ${i + 1} (as GET stages shows it)`).toEqual(list);
    for (const k of Object.keys(s).filter((k) => !(k in list))) {
      expect(k in detail, `${ctx}: stages[${i}].${k} is in no keyed document`).toBe(true);
      expect(s[k], `${ctx}: stages[${i}].${k} (as GET stages/${i + 1} shows it)`).toEqual(detail[k]);
    }
  });
  expect(data.registrations, `${ctx}: registrations`).toEqual(
    keyed.registrations.map((r: Record<string, unknown>) => omit(r, (k) => k === "payment_status" || ACCOUNTISH.test(k))),
  );
  expect(data.matches, `${ctx}: matches`).toEqual(keyed.results.matches);
  expect(data.standings, `${ctx}: standings`).toEqual(keyed.results.standings);
}

// ----------------------------------------------------------------------------
// XML: a small well-formedness checker (XML 1.0 + namespaces), enough for SVG
// ----------------------------------------------------------------------------
interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

const NAME = /^[A-Za-z_:\u00c0-\uffef][\w.:\-\u00b7\u00c0-\uffef]*$/;
function decodeEntities(s: string, where: string): string {
  return s.replace(/&([^;]*);?/g, (all, body: string) => {
    if (!all.endsWith(";")) throw new Error(`${where}: a bare & (${JSON.stringify(all.slice(0, 12))})`);
    const named: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
    if (body in named) return named[body];
    const m = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(body);
    if (!m) throw new Error(`${where}: an unknown entity &${body};`);
    const cp = m[1] ? parseInt(m[1], 16) : parseInt(m[2], 10);
    const ok = cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) ||
      (cp >= 0x10000 && cp <= 0x10ffff);
    if (!ok) throw new Error(`${where}: a character reference XML does not allow (&${body};)`);
    return String.fromCodePoint(cp);
  });
}

/** Parses `xml` or throws saying why it is not well-formed. DOCTYPE is refused (no entities). */
function parseXml(xml: string): XmlElement {
  // deno-lint-ignore no-control-regex -- control characters are what it looks for
  const bad = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
    .exec(xml);
  if (bad) throw new Error(`a character XML does not allow (U+${bad[0].charCodeAt(0).toString(16)}) at ${bad.index}`);
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  const at = () => `at ${i}: ${JSON.stringify(xml.slice(i, i + 50))}`;
  if (xml.startsWith("<?xml")) {
    const end = xml.indexOf("?>");
    if (end < 0) throw new Error("an unclosed XML declaration");
    i = end + 2;
  }
  while (i < xml.length) {
    if (xml.startsWith("<!--", i)) {
      const end = xml.indexOf("-->", i + 4);
      if (end < 0) throw new Error(`an unclosed comment ${at()}`);
      if (xml.slice(i + 4, end).includes("--")) throw new Error(`-- inside a comment ${at()}`);
      i = end + 3;
    } else if (xml.startsWith("<![CDATA[", i)) {
      if (!stack.length) throw new Error(`CDATA outside the root ${at()}`);
      const end = xml.indexOf("]]>", i);
      if (end < 0) throw new Error(`an unclosed CDATA ${at()}`);
      stack[stack.length - 1].children.push(xml.slice(i + 9, end));
      i = end + 3;
    } else if (xml.startsWith("<!", i)) {
      throw new Error(`a DOCTYPE or declaration ${at()}`);
    } else if (xml.startsWith("<?", i)) {
      const end = xml.indexOf("?>", i);
      if (end < 0) throw new Error(`an unclosed processing instruction ${at()}`);
      i = end + 2;
    } else if (xml.startsWith("</", i)) {
      const m = /^<\/([^\s>]+)\s*>/.exec(xml.slice(i, i + 300));
      if (!m) throw new Error(`a malformed end tag ${at()}`);
      const open = stack.pop();
      if (!open || open.name !== m[1]) throw new Error(`</${m[1]}> closes <${open?.name}> ${at()}`);
      i += m[0].length;
    } else if (xml[i] === "<") {
      const m = /^<([^\s/>]+)/.exec(xml.slice(i, i + 300));
      if (!m || !NAME.test(m[1])) throw new Error(`a bad element name ${at()}`);
      const el: XmlElement = { name: m[1], attrs: {}, children: [] };
      i += m[0].length;
      let selfClosing = false;
      for (;;) {
        const ws = /^\s*/.exec(xml.slice(i, i + 1000))![0];
        i += ws.length;
        if (xml.startsWith("/>", i)) {
          i += 2;
          selfClosing = true;
          break;
        }
        if (xml[i] === ">") {
          i += 1;
          break;
        }
        if (!ws) throw new Error(`no space before an attribute ${at()}`);
        const a = /^([^\s=/>]+)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/.exec(xml.slice(i, i + 100_000));
        if (!a || !NAME.test(a[1])) throw new Error(`a malformed attribute ${at()}`);
        if (a[1] in el.attrs) throw new Error(`attribute ${a[1]} twice ${at()}`);
        el.attrs[a[1]] = decodeEntities(a[2] ?? a[3], `attribute ${a[1]}`);
        i += a[0].length;
      }
      if (stack.length) stack[stack.length - 1].children.push(el);
      else if (root) throw new Error(`a second root element <${el.name}> ${at()}`);
      else root = el;
      if (!selfClosing) stack.push(el);
    } else {
      const end = xml.indexOf("<", i);
      const raw = xml.slice(i, end < 0 ? xml.length : end);
      if (raw.includes("]]>")) throw new Error(`]]> in text ${at()}`);
      if (!stack.length) {
        if (raw.trim()) throw new Error(`text outside the root ${at()}`);
      } else stack[stack.length - 1].children.push(decodeEntities(raw, "text"));
      i += raw.length;
    }
  }
  if (stack.length) throw new Error(`<${stack[stack.length - 1].name}> is never closed`);
  if (!root) throw new Error("no root element");
  checkNamespaces(root, { xml: "http://www.w3.org/XML/1998/namespace" });
  return root;
}

function checkNamespaces(el: XmlElement, scope: Record<string, string>) {
  const here = { ...scope };
  for (const [k, v] of Object.entries(el.attrs)) {
    if (k.startsWith("xmlns:")) here[k.slice(6)] = v;
  }
  const prefixOf = (n: string) => (n.includes(":") ? n.split(":")[0] : null);
  for (const n of [el.name, ...Object.keys(el.attrs)]) {
    const p = prefixOf(n);
    if (p && p !== "xmlns" && !(p in here)) throw new Error(`prefix ${p}: of ${n} is not declared`);
  }
  for (const c of el.children) if (typeof c !== "string") checkNamespaces(c, here);
}

function* elements(el: XmlElement): Generator<XmlElement> {
  yield el;
  for (const c of el.children) if (typeof c !== "string") yield* elements(c);
}

/** The visible text: every text and tspan element's content, one string per element. */
function visibleTexts(root: XmlElement): string[] {
  const out: string[] = [];
  const textOf = (el: XmlElement): string => el.children.map((c) => (typeof c === "string" ? c : textOf(c))).join("");
  for (const el of elements(root)) if (el.name === "text" || el.name === "tspan") out.push(textOf(el));
  return out;
}

/** Why the SVG is not self-contained and inert, or null. */
function svgUnsafe(svg: string, root: XmlElement): string | null {
  if (/<script/i.test(svg)) return "<script";
  if (/foreignObject/i.test(svg)) return "foreignObject";
  if (/<image/i.test(svg) || /<feImage/i.test(svg)) return "<image";
  if (/@import/i.test(svg)) return "@import";
  if (/@font-face/i.test(svg)) return "@font-face";
  if (/javascript:/i.test(svg)) return "javascript:";
  const url = /url\(\s*['"]?(?!#)[^)]*\)/i.exec(svg);
  if (url) return `an external url(): ${url[0]}`;
  for (const el of elements(root)) {
    if (/^(iframe|object|embed|audio|video|link|meta|base)$/i.test(el.name)) return `<${el.name}>`;
    for (const [k, v] of Object.entries(el.attrs)) {
      if (/^on/i.test(k)) return `an event handler ${k} on <${el.name}>`;
      if (/(^|:)href$|^src$/i.test(k) && !v.startsWith("#")) return `an external ${k}="${v}" on <${el.name}>`;
      if (!k.startsWith("xmlns") && /:\/\//.test(v)) return `a URL in ${k}="${v}" on <${el.name}>`;
    }
  }
  return null;
}

/** Checks an SVG response: type, well-formed, an <svg> root in the SVG namespace, safe. */
function checkSvg(res: ApiResponse, ctx: string): { root: XmlElement; texts: string[] } {
  expectStatus(res, 200);
  expect(res.headers.get("content-type") ?? "", `${ctx}: Content-Type`).toMatch(/^image\/svg\+xml\b/);
  let root: XmlElement;
  try {
    root = parseXml(res.text);
  } catch (err) {
    throw new Error(`${ctx}: the SVG is not well-formed XML: ${(err as Error).message}`);
  }
  expect(root.name, `${ctx}: the root element`).toBe("svg");
  expect(root.attrs.xmlns, `${ctx}: the SVG namespace`).toBe("http://www.w3.org/2000/svg");
  expect(svgUnsafe(res.text, root), `${ctx}: something that loads or runs`).toBeNull();
  return { root, texts: visibleTexts(root) };
}

/** Each team's tag or name is in the visible text. */
function expectTeamsShown(texts: string[], teams: Team[], ctx: string) {
  const all = texts.join("\n");
  const missing = teams.filter((t) => !all.includes(t.tag) && !all.includes(t.name)).map((t) => `${t.tag} / ${t.name}`);
  expect(missing, `${ctx}: teams whose tag or name is not shown`).toEqual([]);
}

// ----------------------------------------------------------------------------
// PNG
// ----------------------------------------------------------------------------
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Parses a PNG or throws saying why it is not one; returns its size. */
function parsePng(bytes: Uint8Array): { width: number; height: number; inked: number } {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 8 || sig.some((b, i) => bytes[i] !== b)) throw new Error("no PNG signature");
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let off = 8;
  let ihdr: { width: number; height: number; depth: number; color: number; interlace: number } | null = null;
  const idat: Uint8Array[] = [];
  let ended = false;
  while (off < bytes.length) {
    if (off + 12 > bytes.length) throw new Error(`a truncated chunk at ${off}`);
    const len = dv.getUint32(off);
    const type = String.fromCharCode(...bytes.subarray(off + 4, off + 8));
    if (off + 12 + len > bytes.length) throw new Error(`chunk ${type} runs past the end`);
    const data = bytes.subarray(off + 8, off + 8 + len);
    if (crc32(bytes.subarray(off + 4, off + 8 + len)) !== dv.getUint32(off + 8 + len)) throw new Error(`chunk ${type}: bad CRC`);
    if (!ihdr && type !== "IHDR") throw new Error(`the first chunk is ${type}, not IHDR`);
    if (type === "IHDR") {
      if (ihdr) throw new Error("IHDR twice");
      if (len !== 13) throw new Error(`IHDR of ${len} bytes`);
      const ddv = new DataView(data.buffer, data.byteOffset, 13);
      ihdr = { width: ddv.getUint32(0), height: ddv.getUint32(4), depth: data[8], color: data[9], interlace: data[12] };
      if (data[10] !== 0 || data[11] !== 0) throw new Error("unknown compression or filter method");
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") {
      ended = true;
      off += 12 + len;
      break;
    }
    off += 12 + len;
  }
  if (!ihdr) throw new Error("no IHDR");
  if (!ended) throw new Error("no IEND");
  if (off !== bytes.length) throw new Error(`${bytes.length - off} bytes after IEND`);
  if (!idat.length) throw new Error("no IDAT");
  const channels: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
  if (!(ihdr.color in channels)) throw new Error(`colour type ${ihdr.color}`);
  if (ihdr.width < 1 || ihdr.height < 1) throw new Error(`size ${ihdr.width}x${ihdr.height}`);
  const raw = zlib.inflateSync(Buffer.concat(idat));
  let inked = -1;
  if (ihdr.interlace === 0) {
    const rowBytes = Math.ceil((ihdr.width * channels[ihdr.color] * ihdr.depth) / 8);
    if (raw.length !== ihdr.height * (rowBytes + 1)) {
      throw new Error(`image data of ${raw.length} bytes, want ${ihdr.height * (rowBytes + 1)}`);
    }
    for (let y = 0; y < ihdr.height; y++) if (raw[y * (rowBytes + 1)] > 4) throw new Error(`row ${y}: filter ${raw[y * (rowBytes + 1)]}`);
    if (ihdr.depth === 8 && (ihdr.color === 2 || ihdr.color === 6)) inked = inkedShare(raw, ihdr.width, ihdr.height, channels[ihdr.color]);
  }
  return { width: ihdr.width, height: ihdr.height, inked };
}

/** The share of pixels that differ from the top-left one (the background), after undoing the row filters. */
function inkedShare(raw: Uint8Array, width: number, height: number, bpp: number): number {
  const stride = width * bpp;
  const prev = new Uint8Array(stride);
  const cur = new Uint8Array(stride);
  let bg: number[] | null = null;
  let inked = 0;
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= bpp ? cur[x - bpp] : 0;
      const b = prev[x];
      const c = x >= bpp ? prev[x - bpp] : 0;
      let pred = 0;
      if (f === 1) pred = a;
      else if (f === 2) pred = b;
      else if (f === 3) pred = (a + b) >> 1;
      else if (f === 4) {
        const p = a + b - c;
        const pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
        pred = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      cur[x] = (row[x] + pred) & 0xff;
    }
    if (!bg) bg = Array.from(cur.subarray(0, bpp));
    for (let x = 0; x < width; x++) {
      for (let k = 0; k < bpp; k++) {
        if (Math.abs(cur[x * bpp + k] - bg[k]) > 24) {
          inked++;
          break;
        }
      }
    }
    prev.set(cur);
  }
  return inked / (width * height);
}

// ----------------------------------------------------------------------------
// Server-Sent Events
// ----------------------------------------------------------------------------
interface SseEvent {
  event: string;
  id?: string;
  data: string;
  retry?: string;
}
type SseItem = SseEvent | "end" | "timeout";

/** Opens an SSE stream; `next(ms)` gives the next event, "end" when the server ended it, or "timeout". */
async function openStream(path: string, headers: Record<string, string>) {
  const ctrl = new AbortController();
  const res = await fetch(apiUrl() + path, { headers, signal: ctrl.signal });
  const queue: (SseEvent | "end")[] = [];
  let wake: (() => void) | null = null;
  const push = (x: SseEvent | "end") => {
    queue.push(x);
    wake?.();
  };
  if (res.ok && res.body) {
    (async () => {
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = "";
      let cur: SseEvent = { event: "message", data: "" };
      let hasData = false;
      let any = false;
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let nl: number;
          while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
            if (line === "") {
              if (any) push(cur);
              cur = { event: "message", data: "" };
              hasData = false;
              any = false;
              continue;
            }
            if (line.startsWith(":")) continue;
            const c = line.indexOf(":");
            const field = c < 0 ? line : line.slice(0, c);
            const value = c < 0 ? "" : line.slice(c + 1).replace(/^ /, "");
            any = true;
            if (field === "event") cur.event = value;
            else if (field === "id") cur.id = value;
            else if (field === "retry") cur.retry = value;
            else if (field === "data") {
              cur.data = hasData ? `${cur.data}\n${value}` : value;
              hasData = true;
            }
          }
        }
      } catch {
        // aborted
      }
      push("end");
    })();
  } else {
    await res.text().catch(() => "");
  }
  return {
    res,
    async next(ms: number): Promise<SseItem> {
      const deadline = Date.now() + ms;
      while (!queue.length) {
        const left = deadline - Date.now();
        if (left <= 0) return "timeout";
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, left);
        });
        wake = null;
      }
      return queue.shift()!;
    },
    /** Every event until the end or `ms` pass. */
    async drain(ms: number): Promise<{ events: SseEvent[]; ended: boolean }> {
      const events: SseEvent[] = [];
      const deadline = Date.now() + ms;
      for (;;) {
        const x = await this.next(Math.max(1, deadline - Date.now()));
        if (x === "timeout") return { events, ended: false };
        if (x === "end") return { events, ended: true };
        events.push(x);
      }
    },
    close: () => ctrl.abort(),
  };
}

/** The next event that is not a keep-alive, within `ms`. */
async function nextEvent(s: Awaited<ReturnType<typeof openStream>>, ms: number, ctx: string): Promise<SseEvent> {
  const x = await s.next(ms);
  if (x === "timeout") throw new Error(`${ctx}: no event within ${ms} ms`);
  if (x === "end") throw new Error(`${ctx}: the stream ended`);
  return x;
}

const tag = (v: number) => `"${v}"`;
const PUBLIC_ROUTES = ["", "/bracket.svg", "/bracket.png", "/page", "/stream"] as const;
const publicPath = (slug: string, route: string) => `/public/tournaments/${encodeURIComponent(slug)}${route}`;

/** The answer as a client can tell it: status, code, message, content type, cache control, body minus meta. */
async function answerOf(ip: string, path: string, headers: Record<string, string> = {}) {
  const res = await pub(ip, path, { headers });
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    cacheControl: res.headers.get("cache-control"),
    allowOrigin: res.headers.get("access-control-allow-origin"),
    body: res.body && typeof res.body === "object" ? { ...res.body, meta: undefined } : res.text.slice(0, 200),
  };
}

// ============================================================================
// 1. visibility
// ============================================================================
describe.concurrent("visibility (sections 3, 15)", () => {
  it("is private by default, public or private on create, shown by GET and in the list", async () => {
    const org = await organiser();
    const plain = await org.call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(plain, 201);
    expect(plain.body.data.visibility, plain.text).toBe("private");
    for (const v of ["public", "private"]) {
      const res = await org.call("POST", "/tournaments", { body: tournamentBody({ visibility: v }) });
      expectStatus(res, 201);
      expect(res.body.data.visibility, res.text).toBe(v);
      const got = await org.call("GET", `/tournaments/${res.body.data.id}`);
      expect(got.body.data.visibility, got.text).toBe(v);
    }
    const list = await org.call("GET", "/tournaments?limit=10");
    expectStatus(list, 200);
    expect(list.body.data.map((t: { visibility: string }) => t.visibility).sort(), list.text).toEqual(["private", "private", "public"]);
  });

  it("PATCH sets it in registration, ongoing and completed; a change raises the version, the same value does not", async () => {
    const teams = await makeTeams(2);
    const ev = await makeEvent({}, teams, { start: false });
    const ip = address();
    let current = "private";
    const flip = async (status: string) => {
      for (let k = 0; k < 3; k++) {
        const v = current === "public" ? "private" : "public";
        current = v;
        const before = await versionOf(ev);
        const res = await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: v } });
        expectStatus(res, 200);
        expect(res.body.data.visibility, `${status}: PATCH visibility ${v}\n${res.text}`).toBe(v);
        expect(res.body.data.status).toBe(status);
        expect(await versionOf(ev), `${status}: PATCH visibility ${v} raises the version`).toBe(before + 1);
        const seen = await pub(ip, publicPath(ev.slug, ""));
        expect(seen.status, `${status}: public JSON after visibility ${v}\n${seen.text}`).toBe(v === "public" ? 200 : 404);
      }
      const before = await versionOf(ev);
      expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: current } }), 200);
      expect(await versionOf(ev), `${status}: PATCH visibility to its current value changes nothing`).toBe(before);
    };
    await flip("registration");
    expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "ongoing" } }), 200);
    await flip("ongoing");
    const [final] = (await results(ev)).matches;
    expectStatus(await report(ev, final, true), 200);
    expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "completed" } }), 200);
    await flip("completed");
    // Together with a field that is locked in completed: still 409, and visibility not changed.
    const locked = await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: "private", max_teams: 4 } });
    expectError(locked, 409, "tournament_locked");
    expect((await ev.org.call("GET", `/tournaments/${ev.id}`)).body.data.visibility).toBe(current);
  });

  it("a visibility change is a tournament.updated webhook event showing the new visibility (section 11)", async () => {
    const ev = await makeEvent({}, await makeTeams(2), { start: false });
    const hook = await ev.org.call("POST", "/webhooks", {
      body: { url: "http://127.0.0.1:9/hook", events: ["tournament.updated"], tournament_id: ev.id },
    });
    expectStatus(hook, 201);
    expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: "public" } }), 200);
    const deliveries = await ev.org.call("GET", `/webhooks/${hook.body.data.id}/deliveries`);
    expectStatus(deliveries, 200);
    const updated = deliveries.body.data.filter((d: { event_type: string }) => d.event_type === "tournament.updated");
    expect(updated.length, deliveries.text).toBe(1);
    const payload = typeof updated[0].payload === "string" ? JSON.parse(updated[0].payload) : updated[0].payload;
    expect(payload.data.visibility, JSON.stringify(payload)).toBe("public");
  });

  it("a value other than public or private is 400 naming visibility, on create and on PATCH", async () => {
    const org = await organiser();
    const created = await org.call("POST", "/tournaments", { body: tournamentBody() });
    expectStatus(created, 201);
    const id = created.body.data.id;
    const other = fc.oneof(
      fc.string({ maxLength: 12 }).filter((s) => s !== "public" && s !== "private"),
      fc.constantFrom("Public", "PRIVATE", " public", "public ", "unlisted", "hidden", ""),
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.constant(["public"]),
      fc.constant({ value: "public" }),
    );
    await fc.assert(
      fc.asyncProperty(other, async (bad) => {
        const c = await org.call("POST", "/tournaments", { body: tournamentBody({ visibility: bad }) });
        expectError(c, 400, "validation_error", ["visibility"]);
        const p = await org.call("PATCH", `/tournaments/${id}`, { body: { visibility: bad } });
        expectError(p, 400, "validation_error", ["visibility"]);
      }),
      { numRuns: 15, seed: SEED + 1, endOnFailure: true },
    );
    expect((await org.call("GET", `/tournaments/${id}`)).body.data.visibility).toBe("private");
  });
});

// ============================================================================
// 2. 404: private, unknown, deleted: the same answer, whatever key
// ============================================================================
describe.concurrent("a private or unknown slug is 404, the same answer (section 15)", () => {
  it.concurrent.each(PUBLIC_ROUTES.map((r) => [r || "(JSON)", r]))(
    "%s: private, made private again, deleted, an id, unknown: one answer, with or without a key",
    async (_label, route) => {
      const ip = address();
      const teams = await makeTeams(3);
      const priv = await makeEvent({}, teams);
      const flipped = await makeEvent({ visibility: "public" }, teams);
      const gone = await makeEvent({ visibility: "public" }, teams);
      expectStatus(await pub(ip, publicPath(flipped.slug, route === "/stream" ? "" : route)), 200);
      expectStatus(await flipped.org.call("PATCH", `/tournaments/${flipped.id}`, { body: { visibility: "private" } }), 200);
      expectStatus(await gone.org.call("DELETE", `/tournaments/${gone.id}`), 200);
      const other = await organiser();
      const { key: scopeless } = await createKey(priv.org.accountId, ["read:teams"]);
      const baseline = await answerOf(ip, publicPath(`no-such-tournament-${RUN.toLowerCase()}x`, route));
      expect(baseline.status, JSON.stringify(baseline)).toBe(404);
      expect((baseline.body as { error: { code: string } }).error?.code, JSON.stringify(baseline)).toBe("not_found");
      expect(baseline.allowOrigin, "a 404 of a public route allows any origin too (a viewer must read it)").toBe("*");
      const keys: [string, Record<string, string>][] = [
        ["no key", {}],
        ["the owner's key", { authorization: `Bearer ${priv.org.key}` }],
        ["the owner's key without scopes", { authorization: `Bearer ${scopeless}` }],
        ["another account's key", { authorization: `Bearer ${other.key}` }],
      ];
      const slugs: [string, string][] = [
        ["private", priv.slug],
        ["made private", flipped.slug],
        ["deleted", gone.slug],
        ["the private one's id", priv.id],
        ["unknown", `zz-${RUN.toLowerCase()}-nothing`],
        ...(route === ""
          ? [["a NUL", "\u0000"], ["an emoji", "😀-x"], ["a quote", "x' or '1'='1"], ["300 characters", "a".repeat(300)], [
            "a percent",
            "%",
          ], ["an upper-case copy of a private slug", priv.slug.toUpperCase()]] as [string, string][]
          : []),
      ];
      for (const [sk, slug] of slugs) {
        for (const [kk, headers] of keys) {
          const ans = await answerOf(ip, publicPath(slug, route), headers);
          expect(ans, `${route || "JSON"} ${sk} slug, ${kk}: the same answer as an unknown slug`).toEqual(baseline);
        }
        const inm = await answerOf(ip, publicPath(slug, route), { "if-none-match": "*" });
        expect(inm, `${route || "JSON"} ${sk} slug with If-None-Match: *`).toEqual(baseline);
      }
    },
  );

  it("a key changes nothing on a public tournament: the same document with the owner's, another's or a bad key", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(4));
    const other = await organiser();
    const plain = await pub(ip, publicPath(ev.slug, ""));
    expectStatus(plain, 200);
    for (const [what, key] of [["the owner's", ev.org.key], ["another account's", other.key], ["a made-up", `tmk_${"a".repeat(48)}`]]) {
      const res = await pub(ip, publicPath(ev.slug, ""), { key });
      expect(res.status, `with ${what} key\n${res.text}`).toBe(200);
      expect(res.body.data, `with ${what} key`).toEqual(plain.body.data);
    }
  });

  it("there is no public listing: /public, /public/tournaments and unknown public paths are 404", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    for (
      const path of [
        "/public",
        "/public/tournaments",
        "/public/tournaments/",
        `/public/tournaments/${ev.slug}/bracket.gif`,
        `/public/tournaments/${ev.slug}/registrations`,
        `/public/tournaments/${ev.slug}/results`,
        "/public/viewer.js",
      ]
    ) {
      expectError(await pub(ip, path), 404, "not_found");
    }
  });

  it("odd client addresses and Last-Event-ID values never break a public route (no 5xx)", async () => {
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    for (const xff of ["not-an-ip", "", " , ", "1.2.3.4.5", "::1", "2001:db8::1, 10.0.0.1", "x".repeat(2000), "unknown"]) {
      const res = await pub(xff, publicPath(ev.slug, ""));
      expect(res.status, `X-Forwarded-For: ${xff.slice(0, 40)}\n${res.text.slice(0, 200)}`).toBeLessThan(500);
    }
    for (const id of ["abc", "-1", "99999999", "1.5", ""]) {
      const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": address(), "last-event-id": id });
      try {
        expect(s.res.status, `Last-Event-ID: ${id}`).toBeLessThan(500);
        if (s.res.status === 200) expect((await nextEvent(s, 5000, `Last-Event-ID: ${id}`)).event).toBe("results");
      } finally {
        s.close();
      }
    }
  });

  it("other methods are 405 with Allow, the same for a public, a private and an unknown slug", async () => {
    const ip = address();
    const teams = await makeTeams(2);
    const open = await makeEvent({ visibility: "public" }, teams);
    const priv = await makeEvent({}, teams);
    for (const route of PUBLIC_ROUTES) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const answers = [];
        for (const slug of [open.slug, priv.slug, "unknown-slug-zzzzzz"]) {
          const res = await pubMethod(ip, method, publicPath(slug, route));
          expectError(res, 405, "method_not_allowed");
          expect((res.headers.get("allow") ?? "").toUpperCase(), `${method} ${route}: Allow`).toContain("GET");
          answers.push({ ...res.body, meta: undefined });
        }
        expect(answers[1], `${method} ${route}: private vs public`).toEqual(answers[0]);
        expect(answers[2], `${method} ${route}: unknown vs public`).toEqual(answers[0]);
      }
    }
  });
});

// ============================================================================
// 3. the public JSON
// ============================================================================
describe.concurrent("the public JSON is the keyed documents minus payment_status (section 15)", () => {
  it("a two-stage event with seeds, fees, results and an account-made team: equal, and nothing about the account", async () => {
    const ip = address();
    const org = await organiser();
    const own = await org.call("POST", "/teams", { body: { name: `Own ${RUN} team`, tag: `OWN${RUN}` } });
    expectStatus(own, 201);
    const teams = [...await makeTeams(7), { id: own.body.data.id, name: own.body.data.name, tag: own.body.data.tag }];
    const ev = await makeEvent(
      {
        visibility: "public",
        entry_fee: 12.5,
        description: "desc",
        rules: "rules",
        stages: [
          { name: "Groups", format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 2 } },
          { name: "Playoffs", format: "single_elimination", format_options: { third_place_match: true } },
        ],
      },
      teams,
      { org, start: false },
    );
    const regs = (await org.call("GET", `/tournaments/${ev.id}/registrations`)).body.data;
    expectStatus(await org.call("PATCH", `/tournaments/${ev.id}/registrations/${regs[7].id}`, { body: { seed: 1 } }), 200);
    expectStatus(
      await org.call("PATCH", `/tournaments/${ev.id}/registrations/${regs[2].id}`, { body: { payment_status: "complete" } }),
      200,
    );
    const check = async (ctx: string) => {
      const res = await pub(ip, publicPath(ev.slug, ""));
      expectStatus(res, 200);
      expect(res.body.success, res.text).toBe(true);
      expect(res.headers.get("content-type"), ctx).toBe("application/json; charset=utf-8");
      expect(res.body.meta?.request_id, `${ctx}: meta.request_id is the X-Request-Id`).toBe(res.headers.get("x-request-id"));
      expect(res.body.meta?.api_version, ctx).toBe("1.0");
      const keyed = await keyedDocuments(ev);
      expectPublicEqualsKeyed(res.body.data, keyed, ctx);
      expectNoAccountLeak(res.body, res.text, org, ctx);
      expect(res.headers.get("etag"), `${ctx}: ETag`).toBe(tag(keyed.tournament.version));
      return res.body.data;
    };
    const inRegistration = await check("in registration");
    expect(inRegistration.matches).toEqual([]);
    expect(inRegistration.standings).toEqual([]);
    expectStatus(await org.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "ongoing" } }), 200);
    await check("stage 1 started");
    await playStage(ev, 1);
    await check("stage 1 played");
    expectStatus(await org.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const [semi] = (await results(ev)).matches.filter((m) => m.stage === 2 && m.status === "ready");
    expectStatus(
      await org.call("PATCH", `/tournaments/${ev.id}/matches/${semi.id}`, { body: { scheduled_at: "2031-07-14T18:45:00Z" } }),
      200,
    );
    expectStatus(await report(ev, semi), 200);
    const last = await check("stage 2 under way");
    expect(last.matches.some((m: Match) => m.stage === 2), "stage 2's matches are in").toBe(true);
  });

  it("property: for random formats, sizes, payments, seeds and results, the public JSON equals the keyed documents", async () => {
    const ip = address();
    const pool = await makeTeams(8);
    const plan = fc.record({
      format: fc.constantFrom("single_elimination", "double_elimination", "round_robin", "swiss", "two_stage"),
      n: fc.integer({ min: 2, max: 8 }),
      fee: fc.constantFrom(0, 5),
      paid: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      seedLast: fc.boolean(),
      start: fc.constantFrom(false, true, true, true),
      reports: fc.integer({ min: 0, max: 6 }),
      coin: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
      bestOf: fc.constantFrom(1, 3),
    });
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const n = p.format === "two_stage" ? Math.max(p.n, 4) : p.format === "round_robin" ? Math.max(p.n, 3) : p.n;
        const fields: Record<string, unknown> = { visibility: "public", entry_fee: p.fee };
        if (p.format === "two_stage") {
          fields.stages = [
            { format: "swiss", format_options: { rounds: 2, best_of: p.bestOf }, advance: { top: 2 } },
            { format: "single_elimination" },
          ];
        } else {
          fields.format = p.format;
          fields.format_options = { best_of: p.bestOf };
        }
        const ev = await makeEvent(fields, pool.slice(0, n), { start: false });
        const regs = (await ev.org.call("GET", `/tournaments/${ev.id}/registrations`)).body.data;
        if (p.fee > 0) {
          for (let i = 0; i < n; i++) {
            if (p.paid[i]) {
              expectStatus(
                await ev.org.call("PATCH", `/tournaments/${ev.id}/registrations/${regs[i].id}`, { body: { payment_status: "complete" } }),
                200,
              );
            }
          }
        }
        if (p.seedLast) {
          expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}/registrations/${regs[n - 1].id}`, { body: { seed: 1 } }), 200);
        }
        if (p.start) {
          expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { status: "ongoing" } }), 200);
          for (let k = 0; k < p.reports; k++) {
            const ready = (await results(ev)).matches.filter((m) => m.status === "ready");
            if (!ready.length) break;
            expectStatus(await report(ev, ready[k % ready.length], p.coin[k % 6]), 200);
          }
        }
        const ctx = `${JSON.stringify(p)} (n ${n})`;
        const res = await pub(ip, publicPath(ev.slug, ""));
        expectStatus(res, 200);
        expectPublicEqualsKeyed(res.body.data, await keyedDocuments(ev), ctx);
        expectNoAccountLeak(res.body, res.text, ev.org, ctx);
        if (p.start) {
          const svg = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), `${ctx} SVG`);
          expectTeamsShown(svg.texts, pool.slice(0, n), `${ctx} SVG`);
        }
      }),
      { numRuns: 10, seed: SEED + 2, endOnFailure: true },
    );
  });
});

// ============================================================================
// 4. caching, ETag, CORS
// ============================================================================
describe.concurrent("caching and CORS of the public routes (sections 14, 15)", () => {
  it.concurrent.each(PUBLIC_ROUTES.filter((r) => r !== "/stream").map((r) => [r || "(JSON)", r]))(
    "%s: Cache-Control public, max-age=5; ETag the version; 304 exactly on a matching If-None-Match",
    async (_l, route) => {
      const ip = address();
      const ev = await makeEvent({ visibility: "public" }, await makeTeams(4));
      const path = publicPath(ev.slug, route);
      const get = (inm?: string) =>
        fetch(apiUrl() + path, {
          headers: { "x-forwarded-for": ip, origin: "https://fans.example.org", ...(inm === undefined ? {} : { "if-none-match": inm }) },
        });
      const v = await versionOf(ev);
      const first = await get();
      const firstBody = Buffer.from(await first.arrayBuffer());
      expect(first.status, `${route}: ${firstBody.toString().slice(0, 300)}`).toBe(200);
      for (
        const [inm, want] of [
          [undefined, 200],
          [tag(v), 304],
          [`"0", ${tag(v)}`, 304],
          [`${tag(v + 5)},${tag(v)}`, 304],
          ["*", 304],
          [`W/${tag(v)}`, 304],
          [`W/"1", W/${tag(v)}`, 304],
          [tag(v - 1), 200],
          [`${tag(v + 1)}, ${tag(v + 2)}`, 200],
          [`W/${tag(v + 1)}`, 200],
        ] as const
      ) {
        const what = `${route || "JSON"} If-None-Match: ${inm} (version ${v})`;
        const res = await get(inm);
        const body = Buffer.from(await res.arrayBuffer());
        expect(res.status, `${what}\n${body.toString().slice(0, 300)}`).toBe(want);
        expect(res.headers.get("etag"), `${what}: ETag`).toBe(tag(v));
        expect((res.headers.get("cache-control") ?? "").replace(/\s+/g, "").toLowerCase(), `${what}: Cache-Control`).toBe(
          "public,max-age=5",
        );
        expect(res.headers.get("access-control-allow-origin"), `${what}: Access-Control-Allow-Origin`).toBe("*");
        const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase().split(/\s*,\s*/);
        expect(exposed, `${what}: ETag exposed`).toContain("etag");
        if (want === 304) expect(body.length, `${what}: a 304 has no body`).toBe(0);
        else if (route === "") {
          expect(JSON.parse(body.toString()).data, `${what}: the same document`).toEqual(JSON.parse(firstBody.toString()).data);
        } else expect(body.equals(firstBody), `${what}: the same representation`).toBe(true);
      }
      // After a change: the new version is the ETag, the old one no longer matches.
      expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { description: "changed" } }), 200);
      const after = await get(tag(v));
      await after.arrayBuffer();
      expect(after.status, `${route}: old ETag after a change`).toBe(200);
      expect(after.headers.get("etag"), `${route}: ETag after a change`).toBe(tag(v + 1));
      const again = await get(tag(v + 1));
      await again.arrayBuffer();
      expect(again.status, `${route}: the new ETag`).toBe(304);
    },
  );

  it("property: a public route is 304 exactly when the If-None-Match list names the version (strong or weak) or is *", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(3));
    const v = await versionOf(ev);
    const routes = ["", "/bracket.svg", "/page"];
    const entry = fc.oneof(
      fc.record({ d: fc.integer({ min: -2, max: 2 }), weak: fc.boolean() }).map(({ d, weak }) => ({
        s: `${weak ? "W/" : ""}${tag(Math.max(0, v + d))}`,
        hit: d === 0,
      })),
      fc.constant({ s: `"${v}x"`, hit: false }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(", ", ",", " , "),
        fc.constantFrom(...routes),
        async (list, sep, route) => {
          const inm = list.map((e) => e.s).join(sep);
          const want = list.some((e) => e.hit) ? 304 : 200;
          const res = await pub(ip, publicPath(ev.slug, route), { headers: { "if-none-match": inm } });
          expect(res.status, `${route || "JSON"} If-None-Match: ${inm} (version ${v})`).toBe(want);
          if (want === 304) {
            expect(res.text).toBe("");
          }
        },
      ),
      { numRuns: 30, seed: SEED + 3, endOnFailure: true },
    );
  });

  it("the CORS preflight of every public route allows any origin, GET and the conditional headers; the same for unknown slugs", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const answers: Record<string, unknown>[] = [];
    for (const slug of [ev.slug, "unknown-slug-qqqqqq"]) {
      for (const route of PUBLIC_ROUTES) {
        const res = await fetch(apiUrl() + publicPath(slug, route), {
          method: "OPTIONS",
          headers: {
            "x-forwarded-for": ip,
            origin: "https://fans.example.org",
            "access-control-request-method": "GET",
            "access-control-request-headers": "if-none-match, last-event-id",
          },
        });
        await res.text();
        const what = `OPTIONS ${route || "JSON"} (${slug})`;
        expect([200, 204], `${what}: status ${res.status}`).toContain(res.status);
        expect(res.headers.get("access-control-allow-origin"), what).toBe("*");
        const methods = (res.headers.get("access-control-allow-methods") ?? "").toUpperCase().split(/\s*,\s*/);
        expect(methods, `${what}: methods`).toContain("GET");
        const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(/\s*,\s*/);
        for (const h of ["if-none-match", "last-event-id"]) expect(allowed, `${what}: Access-Control-Allow-Headers`).toContain(h);
        answers.push({ route, status: res.status, methods, allowed });
      }
    }
    expect(answers.slice(PUBLIC_ROUTES.length), "the preflight of an unknown slug is the same").toEqual(
      answers.slice(0, PUBLIC_ROUTES.length),
    );
  });
});

// ============================================================================
// 5. the per-address limit
// ============================================================================
describe("per client address: 300 requests a minute, never per key (section 15)", () => {
  /** Sends `n` requests from `ip`, `batch` at a time; returns the statuses. */
  async function burst(ip: string, path: string, n: number, batch = 50, options: { key?: string } = {}) {
    const statuses: number[] = [];
    for (let i = 0; i < n; i += batch) {
      const part = await Promise.all(Array.from({ length: Math.min(batch, n - i) }, () => pub(ip, path, options)));
      statuses.push(...part.map((r) => r.status));
    }
    return statuses;
  }

  it("the 301st request of an address is 429 rate_limited with Retry-After on every public route, a key does not raise it; another address is free", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const statuses = await burst(ip, publicPath(ev.slug, ""), 300);
    expect(statuses.filter((s) => s !== 200), "the first 300 pass").toEqual([]);
    const over = await pub(ip, publicPath(ev.slug, ""));
    expectError(over, 429, "rate_limited");
    const retry = Number(over.headers.get("retry-after"));
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After: ${over.headers.get("retry-after")}`).toBe(true);
    expect(over.headers.get("access-control-allow-origin"), "a 429 still allows any origin").toBe("*");
    for (const route of PUBLIC_ROUTES) {
      expectError(await pub(ip, publicPath(ev.slug, route)), 429, "rate_limited");
      expectError(await pub(ip, publicPath(ev.slug, route), { key: ev.org.key }), 429, "rate_limited");
    }
    const fresh = await pub(address(), publicPath(ev.slug, ""));
    expectStatus(fresh, 200);
  });

  it("exact under concurrency: 330 parallel requests from one address, exactly 300 pass", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const statuses = await burst(ip, publicPath(ev.slug, ""), 330, 330);
    expect(statuses.filter((s) => s === 200).length, `statuses: ${JSON.stringify(statuses.filter((s) => s !== 200 && s !== 429))}`).toBe(
      300,
    );
    expect(statuses.filter((s) => s === 429).length).toBe(30);
  });

  it("404s count too: 300 unknown slugs, then a public tournament is 429 from that address", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const statuses = await burst(ip, publicPath("nothing-here-abcdef", ""), 300);
    expect(statuses.filter((s) => s !== 404), "300 unknown slugs").toEqual([]);
    expectError(await pub(ip, publicPath(ev.slug, "")), 429, "rate_limited");
  });

  it("never per key: public requests with a key do not count on it, and an exhausted key still reads the public view", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const { id: keyId, key } = await createKey(ev.org.accountId);
    for (const route of ["", "/bracket.svg", "/bracket.png", "/page"]) {
      expectStatus(await pub(ip, publicPath(ev.slug, route), { key }), 200);
    }
    expect(await rateHits(keyId), "public requests counted on the key").toBe(0);
    await setRateHits(keyId, Array.from({ length: 100 }, () => 1));
    expectError(await request("GET", `/tournaments/${ev.id}`, { key }), 429, "rate_limited");
    const res = await pub(ip, publicPath(ev.slug, ""), { key });
    expect(res.status, `a public read with an exhausted key\n${res.text}`).toBe(200);
  });
});

describe.concurrent("what a client cannot bend (sections 14, 15)", () => {
  it("the page never points at a host taken from X-Forwarded-Host or Forwarded (it is publicly cached)", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const variants: Record<string, string>[] = [{ "x-forwarded-host": "evil.example" }, {
      forwarded: "for=1.2.3.4;host=evil.example;proto=https",
    }, { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", "x-forwarded-port": "443" }];
    for (const headers of variants) {
      const res = await pub(ip, publicPath(ev.slug, "/page"), { headers });
      expectStatus(res, 200);
      expect(res.text.includes("evil.example"), `${JSON.stringify(headers)}: the page names evil.example`).toBe(false);
      expect(
        (res.headers.get("content-security-policy") ?? "").includes("evil.example"),
        `${JSON.stringify(headers)}: the CSP names evil.example`,
      ).toBe(false);
    }
  });

  it("a client cannot leave its address's limit by putting addresses of its own in front of X-Forwarded-For", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const path = publicPath(ev.slug, "");
    for (let i = 0; i < 300; i += 50) {
      const part = await Promise.all(Array.from({ length: 50 }, () => pub(ip, path)));
      expect(part.filter((r) => r.status !== 200).length).toBe(0);
    }
    expectError(await pub(ip, path), 429, "rate_limited");
    // A proxy appends the address it saw; what the client wrote before it is the client's to choose.
    const spoofed = await pub(ip, path, { headers: { "x-forwarded-for": `${address()}, ${ip}` } });
    expect(spoofed.status, "a made-up first entry before the proxy's own").toBe(429);
  });

  it("a registered team renamed: an open event's public JSON shows the new name (a 304 never serves the old one), a started one keeps the name it started with (section 16)", async () => {
    const ip = address();
    const org = await organiser();
    const own = await org.call("POST", "/teams", { body: { name: `Before ${RUN}`, tag: `B${RUN}` } });
    expectStatus(own, 201);
    const team = { id: own.body.data.id, name: own.body.data.name, tag: own.body.data.tag };
    const open = await makeEvent({ visibility: "public" }, [team, ...await makeTeams(1)], { org, start: false });
    const started = await makeEvent({ visibility: "public" }, [team, ...await makeTeams(1)], { org });
    const [openFirst, startedFirst] = [await pub(ip, publicPath(open.slug, "")), await pub(ip, publicPath(started.slug, ""))];
    expectStatus(openFirst, 200);
    expectStatus(startedFirst, 200);
    expectStatus(await org.call("PATCH", `/teams/${own.body.data.id}`, { body: { name: `After ${RUN}` } }), 200);
    const fresh = await pub(ip, publicPath(open.slug, ""));
    expect(fresh.text.includes(`After ${RUN}`), "the new name").toBe(true);
    const etag = openFirst.headers.get("etag")!;
    const cond = await pub(ip, publicPath(open.slug, ""), { headers: { "if-none-match": etag } });
    expect(cond.status, `If-None-Match: ${etag} (the ETag before the rename; now ${fresh.headers.get("etag")})`).toBe(200);
    const kept = await pub(ip, publicPath(started.slug, ""));
    expect(kept.text.includes(`Before ${RUN}`) && !kept.text.includes(`After ${RUN}`), "the name it started with").toBe(true);
    expect(kept.headers.get("etag"), "a started event did not change").toBe(startedFirst.headers.get("etag"));
  });
});

// ============================================================================
// 6. the SVG
// ============================================================================
describe.concurrent("bracket.svg (section 15)", () => {
  it("single elimination of 5: well-formed, inert, every team, BYE and TBD, the scores, the scheduled time; ETag follows", async () => {
    const ip = address();
    const teams = await makeTeams(5);
    const ev = await makeEvent({ visibility: "public", format_options: { third_place_match: true } }, teams);
    const path = publicPath(ev.slug, "/bracket.svg");
    const first = await pub(ip, path);
    const a = checkSvg(first, "5 teams");
    expectTeamsShown(a.texts, teams, "5 teams");
    expect(a.texts.some((t) => /\bBYE\b/.test(t)), "BYE is shown").toBe(true);
    expect(a.texts.some((t) => /\bTBD\b/.test(t)), "TBD is shown").toBe(true);
    const ready = (await results(ev)).matches.filter((m) => m.status === "ready");
    expectStatus(await report(ev, ready[0], true, [4711, 815]), 200);
    const b = checkSvg(await pub(ip, path), "after a result");
    expect(b.texts.some((t) => t.includes("4711")), "the winner's score is shown").toBe(true);
    expect(b.texts.some((t) => t.includes("815")), "the loser's score is shown").toBe(true);
    const sched = (await results(ev)).matches.find((m) => m.status === "ready")!;
    expectStatus(
      await ev.org.call("PATCH", `/tournaments/${ev.id}/matches/${sched.id}`, { body: { scheduled_at: "2031-07-14T18:45:00Z" } }),
      200,
    );
    const c = await pub(ip, path);
    const cc = checkSvg(c, "after scheduling");
    expect(
      cc.texts.some((t) => t.includes("18:45")),
      `the scheduled time is shown (18:45 UTC): ${JSON.stringify(cc.texts.filter((t) => /\d:\d\d/.test(t)))}`,
    ).toBe(true);
    expect(c.headers.get("etag")).toBe(tag(await versionOf(ev)));
  });

  it("property: every format and size, with any team and tournament names: well-formed, inert, every team shown", async () => {
    const ip = address();
    const nasty = fc.oneof(
      fc.string({ minLength: 1, maxLength: 24, unit: "grapheme" }),
      fc.constantFrom(
        "<b>&amp;</b>",
        "]]>",
        "\"'<>&",
        "a\u0007b",
        "x\u000bz",
        "\ufffe\uffff",
        "--><!--",
        "&#0;",
        "<script>x</script>",
        "Tab\tNL\nCR\r",
        "\u202eRTL",
        "\u0085\u2028\u2029",
        "𝔘🦄ᾯ",
      ),
      // deno-lint-ignore no-control-regex -- control characters are what it looks for
    ).map((s) => s.replace(/\u0000/g, "").trim() || "x");
    const plan = fc.record({
      format: fc.constantFrom("single_elimination", "double_elimination", "round_robin", "swiss"),
      n: fc.integer({ min: 2, max: 9 }),
      names: fc.array(nasty, { minLength: 9, maxLength: 9 }),
      title: nasty,
      options: fc.record({ third: fc.boolean(), reset: fc.boolean(), groups: fc.integer({ min: 1, max: 2 }) }),
      theme: fc.constantFrom("light", "dark"),
      reports: fc.constantFrom(0, 2, 99),
      coin: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    });
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const n = p.format === "round_robin" ? Math.max(p.n, 3) : p.reports > 2 ? Math.min(p.n, 6) : p.n;
        const teams = await makeTeams(n, (i) => `${p.names[i]} ${next()}`);
        const format_options = p.format === "single_elimination"
          ? { third_place_match: p.options.third }
          : p.format === "double_elimination"
          ? { grand_final: p.options.reset ? "reset" : "single" }
          : p.format === "round_robin"
          ? { groups: Math.min(p.options.groups, Math.floor(n / 2)) }
          : {};
        const ev = await makeEvent({ visibility: "public", name: p.title.slice(0, 100), format: p.format, format_options }, teams);
        // Every reported match gets scores of its own (winner 1000 + 17k, loser 100 + 13k); a grand
        // final is won by the losers-bracket side, so that a reset is played.
        const scores: number[] = [];
        for (let k = 0; k < p.reports && k < 40; k++) {
          const cur = await results(ev);
          const ready = cur.matches.filter((m) => m.status === "ready");
          if (!ready.length) break;
          const m = ready[0];
          const losers = new Set(
            cur.matches.filter((x) => x.status === "completed" && x.winner_id)
              .map((x) => (x.winner_id === x.team1_id ? x.team2_id : x.team1_id)),
          );
          const t1 = m.bracket === "grand_final" ? losers.has(m.team1_id) : p.coin[k];
          const pair: [number, number] = [1000 + 17 * k, 100 + 13 * k];
          expectStatus(await report(ev, m, t1, pair), 200);
          scores.push(...pair);
        }
        const ctx = `${JSON.stringify(p)} (n ${n})`;
        const svg = checkSvg(await pub(ip, publicPath(ev.slug, `/bracket.svg?theme=${p.theme}`)), ctx);
        const undrawn = scores.filter((x) => !svg.texts.some((t) => new RegExp(`(^|\\D)${x}(\\D|$)`).test(t)));
        expect(undrawn, `${ctx}: reported scores not drawn (reported ${scores.join(" ")})`).toEqual([]);
        // A name may lose characters XML cannot hold; its tag, plain, stays.
        // deno-lint-ignore no-control-regex -- control characters are what it looks for
        expectTeamsShown(svg.texts, teams.map((t) => ({ ...t, name: t.name.replace(/[\u0000-\u001f\ufffe\uffff]/g, "") })), ctx);
      }),
      { numRuns: 14, seed: SEED + 4, endOnFailure: true },
    );
  });

  it("real teams' tags (up to 20 allowed) and names: each team's whole tag or whole name is shown", async () => {
    const ip = address();
    const real = [["Imperial Esports", "IMPERIAL"], ["Natus Vincere Junior", "NAVI.JR"], ["Natus Vincere", "NAVI"], [
      "Eternal Fire Academy",
      "EF.ACA",
    ]];
    const teams = await makeTeams(4, (i) => real[i][0], (i) => real[i][1]);
    const ev = await makeEvent({ visibility: "public" }, teams);
    const svg = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), "long tags");
    expectTeamsShown(svg.texts, teams, `long tags; the texts drawn: ${JSON.stringify(svg.texts)}`);
  });

  // (Tags up to 20 characters are allowed (section 9); one wider than a match's row (10 or so
  // capitals, fewer of the widest) is cut with "…" there and shown whole in the match's title: the
  // property holds for the tags a row has room for.)
  it("property: any tag of 1–10 characters with any name of 1–100: each team's whole tag or whole name is shown", async () => {
    const ip = address();
    const tagArb = fc.oneof(
      fc.stringMatching(/^[A-Z0-9.\-]{1,10}$/),
      fc.integer({ min: 1, max: 10 }).map((k) => "W".repeat(k)), // the widest capitals: 10 fit a row
      fc.integer({ min: 1, max: 10 }).map((k) => "M".repeat(k)),
    );
    const nameArb = fc.oneof(
      fc.integer({ min: 1, max: 100 }).map((k) => "Wide Name ".repeat(10).slice(0, k).trim() || "W"),
      fc.stringMatching(/^[A-Za-z][A-Za-z ]{0,99}$/).map((x) => x.trim()),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(tagArb, nameArb), { minLength: 4, maxLength: 4 }), async (pairs) => {
        const teams = await makeTeams(4, (i) => pairs[i][1], (i) => pairs[i][0]);
        const ev = await makeEvent({ visibility: "public" }, teams);
        const svg = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), "tags");
        expectTeamsShown(svg.texts, teams, `tags ${JSON.stringify(pairs.map((x) => x[0]))}; drawn: ${JSON.stringify(svg.texts)}`);
      }),
      { numRuns: 8, seed: SEED + 5, endOnFailure: true },
    );
  });

  it("two stages (round robin groups into single elimination): ?stage=k draws each, the default is the current one", async () => {
    const ip = address();
    const teams = await makeTeams(8);
    const ev = await makeEvent({
      visibility: "public",
      stages: [
        { name: "Groups", format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 2 } },
        { name: "Playoffs", format: "single_elimination" },
      ],
    }, teams);
    const svg = async (q: string) => (await pub(ip, publicPath(ev.slug, `/bracket.svg${q}`))).text;
    const s1Before = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg?stage=1")), "stage 1");
    expectTeamsShown(s1Before.texts, teams, "stage 1");
    expect(await svg(""), "the default while stage 1 is played is stage 1").toBe(await svg("?stage=1"));
    // Stage 2 not started yet: whatever it answers, not a server error; if a picture, a sound one.
    const pending = await pub(ip, publicPath(ev.slug, "/bracket.svg?stage=2"));
    expect(pending.status, `stage 2 while pending\n${pending.text.slice(0, 300)}`).toBeLessThan(500);
    if (pending.status === 200) checkSvg(pending, "stage 2 while pending");
    await playStage(ev, 1);
    expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}/stages/2`, { body: { status: "ongoing" } }), 200);
    const r = await results(ev, "?stage=2");
    const inStage2 = new Set(r.matches.flatMap((m) => [m.team1_id, m.team2_id]).filter(Boolean));
    expect(inStage2.size).toBe(4);
    const s2 = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg?stage=2")), "stage 2");
    expectTeamsShown(s2.texts, teams.filter((t) => inStage2.has(t.id)), "stage 2");
    const out = teams.filter((t) => !inStage2.has(t.id));
    const shownOut = out.filter((t) => s2.texts.join("\n").includes(t.tag) || s2.texts.join("\n").includes(t.name));
    expect(shownOut.map((t) => t.tag), "stage 2 does not draw the teams that did not advance").toEqual([]);
    const s1 = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg?stage=1")), "stage 1 after");
    expectTeamsShown(s1.texts, teams, "stage 1 after");
    expect(await svg(""), "the default once stage 2 started is stage 2").toBe(await svg("?stage=2"));
    expect(await svg("?stage=1"), "stage 1 and stage 2 differ").not.toBe(await svg("?stage=2"));
  });

  it("?theme=dark differs from light; light is the default", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(4));
    const get = async (q: string) => checkSvg(await pub(ip, publicPath(ev.slug, `/bracket.svg${q}`)), q).root;
    const light = (await pub(ip, publicPath(ev.slug, "/bracket.svg?theme=light"))).text;
    const dark = (await pub(ip, publicPath(ev.slug, "/bracket.svg?theme=dark"))).text;
    const plain = (await pub(ip, publicPath(ev.slug, "/bracket.svg"))).text;
    await get("?theme=dark");
    expect(dark, "dark differs from light").not.toBe(light);
    expect(plain, "no theme is light").toBe(light);
    expect(visibleTexts(parseXml(dark)), "the same text in both themes").toEqual(visibleTexts(parseXml(light)));
  });

  it.concurrent.each(["/bracket.svg", "/bracket.png"])("%s: a bad stage or theme is 400 naming it", async (route) => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(3));
    for (const bad of ["0", "-1", "abc", "1.5", "", "5", "99999999999999999999"]) {
      expectError(await pub(ip, `${publicPath(ev.slug, route)}?stage=${encodeURIComponent(bad)}`), 400, "validation_error", ["stage"]);
    }
    for (const bad of ["Dark", "blue", "", "light,dark", "DARK"]) {
      expectError(await pub(ip, `${publicPath(ev.slug, route)}?theme=${encodeURIComponent(bad)}`), 400, "validation_error", ["theme"]);
    }
  });

  it.concurrent.each(["/bracket.svg", "/bracket.png"])(
    "%s: a stage the tournament does not have (stage=2 of one) is 400 naming stage",
    async (route) => {
      const ip = address();
      const ev = await makeEvent({ visibility: "public" }, await makeTeams(3));
      expectError(await pub(ip, `${publicPath(ev.slug, route)}?stage=2`), 400, "validation_error", ["stage"]);
    },
  );

  it("a public tournament still in registration draws (200, well-formed, inert)", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(4), { start: false });
    checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), "in registration");
    const png = await getBytes(publicPath(ev.slug, "/bracket.png"), { "x-forwarded-for": ip });
    expect(png.status).toBe(200);
    parsePng(png.bytes);
  });
});

// ============================================================================
// 7. the PNG
// ============================================================================
describe.concurrent("bracket.png (section 15)", () => {
  it("a valid PNG with the SVG's proportions; dark differs; stage and theme as for the SVG", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public", format: "double_elimination" }, await makeTeams(6));
    const h = { "x-forwarded-for": ip };
    const light = await getBytes(publicPath(ev.slug, "/bracket.png"), h);
    expect(light.status, new TextDecoder().decode(light.bytes.slice(0, 300))).toBe(200);
    expect(light.headers.get("content-type"), "Content-Type").toBe("image/png");
    const size = parsePng(light.bytes);
    expect(size.width <= 4096 && size.height <= 4096, `size ${size.width}x${size.height}`).toBe(true);
    if (size.inked >= 0) expect(size.inked, "something is drawn on the background").toBeGreaterThan(0.01);
    // Other teams, another picture: the text is drawn, not only the boxes.
    const twin = await makeEvent({ visibility: "public", format: "double_elimination" }, await makeTeams(6));
    const twinPng = await getBytes(publicPath(twin.slug, "/bracket.png"), h);
    expect(twinPng.status).toBe(200);
    expect(Buffer.from(twinPng.bytes).equals(Buffer.from(light.bytes)), "the same bracket with other teams draws another PNG").toBe(false);
    const svg = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), "svg").root;
    const [sw, sh] = [Number(svg.attrs.width), Number(svg.attrs.height)];
    expect(Math.abs(size.width / size.height - sw / sh) / (sw / sh), `PNG ${size.width}x${size.height} vs SVG ${sw}x${sh}`).toBeLessThan(
      0.02,
    );
    const dark = await getBytes(publicPath(ev.slug, "/bracket.png?theme=dark"), h);
    expect(dark.status).toBe(200);
    parsePng(dark.bytes);
    expect(Buffer.from(dark.bytes).equals(Buffer.from(light.bytes)), "dark differs from light").toBe(false);
    expect(light.headers.get("etag")).toBe(tag(await versionOf(ev)));
    expect((light.headers.get("cache-control") ?? "").replace(/\s+/g, "")).toBe("public,max-age=5");
  });

  it("the biggest bracket (single elimination of 1024) is a valid PNG within 4096 a side, every team in its SVG", async () => {
    const ip = address();
    const teams = await makeTeams(1024);
    const ev = await bigEvent({ format: "single_elimination" }, teams);
    const png = await getBytes(publicPath(ev.slug, "/bracket.png"), { "x-forwarded-for": ip });
    expect(png.status).toBe(200);
    const size = parsePng(png.bytes);
    expect(size.width <= 4096 && size.height <= 4096, `${size.width}x${size.height}`).toBe(true);
    expectTeamsShown(checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), "1024").texts, teams, "1024");
  });

  it("big brackets: the PNG is the same picture as the SVG (its proportions) unless it says which part it shows, within 4096 a side", async () => {
    const ip = address();
    const teams = await makeTeams(128);
    const sizes: string[] = [];
    for (
      const [fields, n] of [[{ format: "single_elimination" }, 128], [{ format: "double_elimination" }, 64], [
        { format: "round_robin" },
        32,
      ]] as const
    ) {
      const ev = await bigEvent(fields, teams.slice(0, n));
      const what = `${fields.format} of ${n}`;
      const png = await getBytes(publicPath(ev.slug, "/bracket.png"), { "x-forwarded-for": ip });
      expect(png.status, what).toBe(200);
      const size = parsePng(png.bytes);
      expect(size.width <= 4096 && size.height <= 4096, `${what}: ${size.width}x${size.height}`).toBe(true);
      const svg = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), what);
      expectTeamsShown(svg.texts, teams.slice(0, n), what);
      // The rule: a bracket too large to be legible in one PNG shows the rounds that fit
      // and says so (X-Bracket-Clipped, and in the picture); the SVG with that part is the same picture.
      const clipped = png.headers.get("x-bracket-clipped");
      const part = clipped ? /\?round=\d+-\d+/.test(decodeURIComponent(clipped)) || /Matches 1–/.test(decodeURIComponent(clipped)) : true;
      expect(part, `${what}: ${clipped}`).toBe(true);
      const [sw, sh] = [Number(svg.root.attrs.width), Number(svg.root.attrs.height)];
      const off = Math.abs(size.width / size.height - sw / sh) / (sw / sh);
      if (off > 0.02 && !clipped) sizes.push(`${what}: SVG ${sw}x${sh}, PNG ${size.width}x${size.height}`);
    }
    expect(sizes, "PNGs whose proportions are not the SVG's (another picture)").toEqual([]);
  });
});

// ============================================================================
// 8. the keyed pictures
// ============================================================================
describe.concurrent("GET /tournaments/{id}/bracket.svg and .png with a key (section 15)", () => {
  it("need read:results; answer for the account's private tournaments; another account's is 404 as an unknown id", async () => {
    const teams = await makeTeams(4);
    const ev = await makeEvent({}, teams);
    const other = await organiser();
    const { key: noResults } = await createKey(ev.org.accountId, ALL_SCOPES.filter((s) => s !== "read:results"));
    const { key: onlyResults } = await createKey(ev.org.accountId, ["read:results"]);
    for (const ext of ["svg", "png"]) {
      const path = `/tournaments/${ev.id}/bracket.${ext}`;
      const ok = await request("GET", path, { key: onlyResults });
      expectStatus(ok, 200);
      expect(ok.headers.get("content-type") ?? "", `${ext}: Content-Type`).toMatch(ext === "svg" ? /^image\/svg\+xml\b/ : /^image\/png$/);
      expect(ok.headers.get("cache-control") ?? "", `${ext}: a private picture is never publicly cacheable`).not.toMatch(/public/i);
      expect(ok.headers.get("ratelimit-limit"), `${ext}: counted on the key`).toBe("100");
      if (ext === "svg") expectTeamsShown(checkSvg(ok, "keyed svg").texts, teams, "keyed svg");
      const scope = await request("GET", path, { key: noResults });
      expectError(scope, 403, "insufficient_scope");
      expect(scope.body.error.message, "the message names the scope").toContain("read:results");
      const none = await request("GET", path);
      expectError(none, 401, "unauthorized");
      expect(none.headers.get("www-authenticate") ?? "").toMatch(/^Bearer/);
      const theirs = await request("GET", path, { key: other.key });
      expectError(theirs, 404, "not_found");
      const unknownPic = await request("GET", `/tournaments/00000000-0000-4000-8000-000000000000/bracket.${ext}`, { key: other.key });
      expectError(unknownPic, 404, "not_found");
      expect({ ...theirs.body, meta: undefined }, `${ext}: another account's is the same 404 as an unknown id`).toEqual({
        ...unknownPic.body,
        meta: undefined,
      });
      for (const [q, field] of [["?stage=0", "stage"], ["?stage=x", "stage"], ["?theme=sepia", "theme"]]) {
        expectError(await request("GET", `${path}${q}`, { key: onlyResults }), 400, "validation_error", [field]);
      }
    }
  });

  it("the same picture as the public route for the same parameters", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public", format: "swiss" }, await makeTeams(6));
    for (const q of ["", "?theme=dark", "?stage=1&theme=light"]) {
      const keyed = await ev.org.call("GET", `/tournaments/${ev.id}/bracket.svg${q}`);
      const open = await pub(ip, publicPath(ev.slug, `/bracket.svg${q}`));
      expectStatus(keyed, 200);
      expect(keyed.text, `bracket.svg${q}`).toBe(open.text);
      const kp = await getBytes(`/tournaments/${ev.id}/bracket.png${q}`, { authorization: `Bearer ${ev.org.key}` });
      const pp = await getBytes(publicPath(ev.slug, `/bracket.png${q}`), { "x-forwarded-for": ip });
      expect(kp.status).toBe(200);
      expect(Buffer.from(kp.bytes).equals(Buffer.from(pp.bytes)), `bracket.png${q}`).toBe(true);
    }
  });
});

// ============================================================================
// 9. the page and viewer.html
// ============================================================================

/** Absolute URLs in an HTML page that a browser would request (anchors and XML namespaces aside). */
function foreignHosts(html: string, own: string): string[] {
  const namespaces = /^https?:\/\/www\.w3\.org\/(2000\/svg|1999\/xlink|1999\/xhtml|XML\/1998\/namespace)$/;
  const noAnchors = html.replace(/<a\b[^>]*>/gi, "");
  const found = [...noAnchors.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+(?::\d+)?[^\s"'<>)]*/gi)].map((m) => m[0])
    .filter((u) => !/^\/\/\s*$/.test(u) && !u.startsWith("//-"));
  return found.filter((u) => {
    if (namespaces.test(u)) return false;
    if (u.startsWith("//") && !/^\/\/[a-z0-9-]+(\.[a-z0-9-]+)+(:\d+)?(\/|$)/i.test(u)) return false; // a comment or regex, not a URL
    try {
      return new URL(u, own).host !== new URL(own).host;
    } catch {
      return false;
    }
  });
}

const unescapeHtml = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|#39);/gi, (_m, e: string) => {
    const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
    if (e.toLowerCase() in named) return named[e.toLowerCase()];
    return String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
const metaContent = (html: string, prop: string) => {
  const tagText = [...html.matchAll(/<meta\b[^>]*>/gi)].map((m) => m[0]).find((t) =>
    new RegExp(`(property|name)=["']${prop}["']`, "i").test(t)
  );
  const m = tagText && /content=(?:"([^"]*)"|'([^']*)')/i.exec(tagText);
  return m ? unescapeHtml(m[1] ?? m[2]) : null;
};

describe.concurrent("the share page and viewer.html (section 15)", () => {
  it("the page: HTML, phone-readable, light or dark, Open Graph pointing at the PNG, the bracket, live from the stream, no other host", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public", name: `Spring Open ${RUN}` }, await makeTeams(4));
    const res = await pub(ip, publicPath(ev.slug, "/page"));
    expectStatus(res, 200);
    const html = res.text;
    expect(res.headers.get("content-type") ?? "", "Content-Type").toMatch(/^text\/html\b/);
    expect(html.trimStart().slice(0, 15).toLowerCase()).toBe("<!doctype html>");
    expect(metaContent(html, "viewport") ?? "", "a viewport for phones").toContain("width=device-width");
    expect(
      /prefers-color-scheme/.test(html) || /light dark|dark light/.test(metaContent(html, "color-scheme") ?? ""),
      "light or dark as the system prefers",
    ).toBe(true);
    expect(metaContent(html, "og:title") ?? "", "og:title").toContain(`Spring Open ${RUN}`);
    const image = metaContent(html, "og:image");
    expect(image, "og:image").toBeTruthy();
    const imageUrl = new URL(image!);
    expect(imageUrl.host, "og:image on the API's host").toBe(new URL(apiUrl()).host);
    expect(imageUrl.pathname, "og:image is the PNG").toBe(new URL(apiUrl() + publicPath(ev.slug, "/bracket.png")).pathname);
    const png = await fetch(imageUrl, { headers: { "x-forwarded-for": ip } });
    expect(png.status, "og:image answers").toBe(200);
    parsePng(new Uint8Array(await png.arrayBuffer()));
    expect(html.includes(`Spring Open ${RUN}`), "the name").toBe(true);
    expect(/ongoing/i.test(html), "the status").toBe(true);
    expect(/<svg\b/i.test(html) || html.includes("bracket.svg"), "the bracket").toBe(true);
    expect(html.includes("/stream"), "it keeps itself current from the public stream").toBe(true);
    expect(foreignHosts(html, apiUrl()), "requests to other hosts").toEqual([]);
  });

  it("the page escapes names: a tournament or team named like markup cannot inject any", async () => {
    const ip = address();
    const evil = `</title><script>alert("t${RUN}")</script><b x="`;
    const teamEvil = `<img src=x onerror=alert("m${RUN}")>`;
    const teams = [...await makeTeams(1, () => teamEvil), ...await makeTeams(2)];
    const ev = await makeEvent({ visibility: "public", name: evil }, teams);
    const res = await pub(ip, publicPath(ev.slug, "/page"));
    expectStatus(res, 200);
    expect(res.text.includes(`<script>alert("t${RUN}")`), "the tournament name as markup").toBe(false);
    expect(res.text.includes(`<img src=x onerror=alert("m${RUN}")`), "the team name as markup").toBe(false);
    expect(res.text.includes(`</title><script>`), "a closed title").toBe(false);
    expect(metaContent(res.text, "og:title"), "og:title holds the name as text").toBe(evil);
    const svg = checkSvg(await pub(ip, publicPath(ev.slug, "/bracket.svg")), "svg of the evil names");
    expectTeamsShown(svg.texts, teams, "svg of the evil names");
  });

  it("viewer.html is served: a single HTML file that reads the API and slug from its query string, no other host", async () => {
    const ip = address();
    const res = await pub(ip, "/public/viewer.html");
    expectStatus(res, 200);
    expect(res.headers.get("content-type") ?? "", "Content-Type").toMatch(/^text\/html\b/);
    expect(res.text.trimStart().slice(0, 15).toLowerCase()).toBe("<!doctype html>");
    expect(/location\.search|URLSearchParams/.test(res.text), "reads its query string").toBe(true);
    expect(/EventSource/.test(res.text), "keeps itself current from the stream").toBe(true);
    expect(foreignHosts(res.text, apiUrl()), "requests to other hosts").toEqual([]);
    expect(/<script[^>]+src=/i.test(res.text), "a single file: no external script").toBe(false);
    expect(/<link[^>]+rel=["']?stylesheet/i.test(res.text), "a single file: no external stylesheet").toBe(false);
  });
});

// ============================================================================
// 10. the public stream
// ============================================================================
describe("the public stream (sections 14, 15)", () => {
  it("first the whole results with id the version, then a delta per change within a second or so; any origin", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(8));
    const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip, origin: "https://fans.example.org" });
    try {
      expect(s.res.status).toBe(200);
      expect(s.res.headers.get("content-type") ?? "").toMatch(/^text\/event-stream\b/);
      expect(s.res.headers.get("access-control-allow-origin")).toBe("*");
      const first = await nextEvent(s, 5000, "first event");
      const v = await versionOf(ev);
      expect(first.event, "the first event").toBe("results");
      expect(first.id, "its id is the version").toBe(String(v));
      const data = JSON.parse(first.data);
      const keyed = await results(ev);
      expect(data.tournament.version).toBe(v);
      expect(data.matches, "the whole results: matches").toEqual(keyed.matches);
      expect(data.standings, "the whole results: standings").toEqual(keyed.standings);
      expectNoAccountLeak(data, first.data, ev.org, "first event");
      const [played, untouched] = keyed.matches.filter((m) => m.round === 1);
      const t0 = Date.now();
      expectStatus(await report(ev, played), 200);
      const delta = await nextEvent(s, 5000, "the delta");
      const took = Date.now() - t0;
      expect(delta.event).toBe("results");
      expect(delta.id, "the delta's id is the new version").toBe(String(v + 1));
      const d = JSON.parse(delta.data);
      const ids = d.matches.map((m: Match) => m.id);
      expect(ids, "the delta holds the reported match").toContain(played.id);
      expect(ids, "the delta holds only changed matches").not.toContain(untouched.id);
      expect(d.standings).toEqual((await results(ev)).standings);
      expectNoAccountLeak(d, delta.data, ev.org, "delta");
      expect(took, "within about one second of the commit").toBeLessThan(2500);
    } finally {
      s.close();
    }
  });

  it("a payment change is a delta without payment_status or anything about the account", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public", entry_fee: 5 }, await makeTeams(4), { start: false });
    const regs = (await ev.org.call("GET", `/tournaments/${ev.id}/registrations`)).body.data;
    const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip });
    try {
      const first = await nextEvent(s, 5000, "first event");
      expectNoAccountLeak(JSON.parse(first.data), first.data, ev.org, "first event");
      expectStatus(
        await ev.org.call("PATCH", `/tournaments/${ev.id}/registrations/${regs[1].id}`, { body: { payment_status: "complete" } }),
        200,
      );
      const delta = await nextEvent(s, 5000, "the delta");
      expect(delta.id).toBe(String(Number(first.id) + 1));
      expectNoAccountLeak(JSON.parse(delta.data), delta.data, ev.org, "delta of a payment");
    } finally {
      s.close();
    }
  });

  it("opening it counts as one request of the address", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const path = publicPath(ev.slug, "");
    for (let i = 0; i < 295; i += 59) {
      const part = await Promise.all(Array.from({ length: 59 }, () => pub(ip, path)));
      expect(part.filter((r) => r.status !== 200).length).toBe(0);
    }
    for (let i = 0; i < 5; i++) {
      const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip });
      expect(s.res.status, `stream ${i + 1}`).toBe(200);
      s.close();
    }
    expectError(await pub(ip, path), 429, "rate_limited");
  });

  it("Last-Event-ID gives the delta since that version first", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(8));
    const v = await versionOf(ev);
    const [played, untouched] = (await results(ev)).matches.filter((m) => m.round === 1);
    expectStatus(await report(ev, played), 200);
    const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip, "last-event-id": String(v) });
    try {
      expect(s.res.status).toBe(200);
      const first = await nextEvent(s, 5000, "first event");
      expect(first.event).toBe("results");
      expect(first.id).toBe(String(v + 1));
      const ids = JSON.parse(first.data).matches.map((m: Match) => m.id);
      expect(ids).toContain(played.id);
      expect(ids, "a delta, not the whole results").not.toContain(untouched.id);
    } finally {
      s.close();
    }
  });

  it("event: deleted with data {id} and the end when the tournament is deleted", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip });
    try {
      await nextEvent(s, 5000, "first event");
      expectStatus(await ev.org.call("DELETE", `/tournaments/${ev.id}`), 200);
      const { events, ended } = await s.drain(4000);
      const deleted = events.find((e) => e.event === "deleted");
      expect(deleted, `events: ${JSON.stringify(events)}`).toBeTruthy();
      expect(JSON.parse(deleted!.data)).toEqual({ id: ev.id });
      expect(ended, "the stream ends").toBe(true);
    } finally {
      s.close();
    }
  });

  it("made private: nothing more is sent, the stream ends, and it is 404 from then on", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(4));
    const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip });
    try {
      const first = await nextEvent(s, 5000, "first event");
      expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: "private" } }), 200);
      const privateAt = await versionOf(ev);
      const [m] = (await results(ev)).matches.filter((x) => x.status === "ready");
      expectStatus(await report(ev, m, true, [31337, 1]), 200);
      const { events, ended } = await s.drain(4000);
      const leaked = events.filter((e) => e.event === "results" && Number(e.id) >= privateAt);
      expect(leaked.map((e) => `${e.event} ${e.id} ${e.data.slice(0, 120)}`), "results sent after it became private").toEqual([]);
      expect(events.some((e) => e.data.includes("31337")), "a private result reached the public stream").toBe(false);
      expect(ended, `the stream ends (events after it went private: ${JSON.stringify(events.map((e) => e.event))})`).toBe(true);
      expect(first.event).toBe("results");
      const again = await answerOf(ip, publicPath(ev.slug, "/stream"));
      expect(again.status, "reopening is 404").toBe(404);
    } finally {
      s.close();
    }
  });

  it("made private: the stream says so as it says a deletion (event: deleted), the tournament is gone for the public", async () => {
    const ip = address();
    const ev = await makeEvent({ visibility: "public" }, await makeTeams(2));
    const s = await openStream(publicPath(ev.slug, "/stream"), { "x-forwarded-for": ip });
    try {
      await nextEvent(s, 5000, "first event");
      expectStatus(await ev.org.call("PATCH", `/tournaments/${ev.id}`, { body: { visibility: "private" } }), 200);
      const { events } = await s.drain(4000);
      const last = events[events.length - 1];
      expect(last?.event, `events after it went private: ${JSON.stringify(events)}`).toBe("deleted");
      expect(JSON.parse(last.data)).toEqual({ id: ev.id });
    } finally {
      s.close();
    }
  });
});
