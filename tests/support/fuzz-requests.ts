// The fuzzer's request generator (fast-check arbitraries) and how a generated request goes on
// the wire. A Spec is pure data drawn from the seed; `materialize` turns it into bytes, picking
// fixture ids and rotating API keys (100 requests per key per minute) as it goes. The participant
// routes (contract section 17, `route.participant`) get participant tokens (`tpt_`) instead, each
// with its own limit, picked by what the token acts for (see PToken); every other credential
// kind is refused on them as on the organiser's routes, an API key included, and a token is
// refused on the organiser's routes.
import fc from "fast-check";
import { routes as allRoutes } from "../../functions/api/routes.ts";

/**
 * The routes this fuzzer generates. A participant's report routes (contract section 18: report,
 * confirm, dispute) are left to their own suites, which drive them through every state of the
 * report: tests/participants/reporting-contract.test.ts (a property-based model of the state
 * machine among them) and the security suite's checks of every route (tests/keys/security.test.ts).
 */
export const routes = allRoutes.filter((r) => !r.path.startsWith("/participant/matches/{match_id}/report"));
import type { Route } from "../../functions/api/route.ts";
import { base62, crc32 } from "../../functions/api/keys.ts";
import { ALL_SCOPES, type Scope } from "./helpers.ts";
import { EVENT_TYPES, PARTICIPANT_SCOPES, REGISTRATION_TOKEN_SCOPES } from "../../functions/api/contract.ts";

export interface Key {
  id: string;
  key: string;
  scopes: readonly string[];
}
/** `state`: a tournament of aCore that started while the fixtures were made: never back in registration, never deleted. */
export interface TournamentFx {
  id: string;
  regs: string[];
  matches: string[];
  state?: "started" | "completed";
  /** Its status when the last batch ended (a hint for picking targets, not an oracle). */
  status?: string;
  /**
   * How many stages it has (section 12), as the last batch left it: exact for one of `state`
   * (stages are locked once ongoing), a hint for the others (a PATCH may give them stages).
   */
  stages?: number;
  /** Its matches' games as the last batch left them (match id → how many): a hint for a game's number. */
  games?: Record<string, number>;
  /**
   * Its participant tokens that a DELETE .../tokens/{token_id} may take (section 17): those the fixtures
   * made for that and those the fuzz minted, as the last batch left them; never a token the fuzz sends.
   */
  tokens?: string[];
}
/**
 * A participant token the fuzz sends (section 17), and what it acts for, which decides what its requests
 * answer past the checks every request gets:
 * - `locked`: a registration token of a registration of a tournament of aCore that started while the
 *   fixtures were made (its registration lasts: a started tournament's cannot be withdrawn or deleted,
 *   and its teams are the platform's): every change is refused by the tournament's state;
 * - `live`: a registration token of a registration in the participants' tournament (in registration,
 *   check-in open, out of the organiser fuzz's reach): its requests are taken, until the fuzz withdraws
 *   the registration; then the token is gone (401) (the pool drops it after the batch);
 * - `closed`: a sign-up token of a started tournament of aCore (registration_closed);
 * - `open`: a sign-up token of the participants' tournament (unlimited uses).
 */
export interface PToken {
  id: string;
  key: string;
  scopes: readonly string[];
  tid: string;
  /** Its registration and that registration's team; null for a sign-up token. */
  reg: string | null;
  team: string | null;
  kind: "locked" | "live" | "closed" | "open";
}
/** How a team named in a path stands to the fuzz account (what GET, PATCH and DELETE of it must answer). */
export type TeamRole = "core" | "inUse" | "disposable" | "platform" | "other";
/** How a webhook endpoint named in a path stands to the fuzz account: `core` ones are never a DELETE target. */
export type HookRole = "core" | "disposable";
/**
 * How a player named in a path stands to the fuzz account (section 16): its own (`core`: never a
 * DELETE target; `inUse`: in the lineup of a started tournament, so DELETE is player_in_use for
 * good; `disposable`: may be gone), or another account's (private: as a player that exists nowhere).
 */
export type PlayerRole = "core" | "inUse" | "disposable" | "other";
export interface Fixtures {
  /** Platform teams (operator-made, no owner). */
  teams: string[];
  /** The fuzz account's own teams: `core` ones are never a DELETE target; `inUse` ones are registered in a
   * started tournament of aCore (DELETE: team_in_use, for good); `disposable` ones and those the fuzz
   * created (`created`) may be deleted. */
  own: { core: string[]; inUse: string[]; disposable: string[]; created: string[] };
  /** Teams owned by another account: readable and registrable by all, never writable by the fuzz account. */
  otherTeams: string[];
  /** The fuzz account (GET /me must name it). */
  accountId: string;
  /** The fuzz account's tournaments in every state, and the spares that DELETE may remove. */
  aCore: TournamentFx[];
  aDisposable: TournamentFx[];
  /** Tournaments the fuzz created (DELETE targets them too; the latest few are targets of every route). */
  created: TournamentFx[];
  /** Another account's tournaments: never reachable with the fuzz account's keys. */
  b: TournamentFx[];
  /** The fuzz account's webhook endpoints (`core`: never deleted; `disposable` and the ones the fuzz created may be),
   * and some deliveries of each (refreshed after each batch). Their URLs point where nothing listens. */
  hooks: { core: string[]; disposable: string[]; created: string[]; deliveries: Record<string, string[]> };
  /** Another account's endpoints and their deliveries: never reachable with the fuzz account's keys. */
  bHooks: { id: string; deliveries: string[] }[];
  /** The fuzz account's players (see PlayerRole; `created`: made by the fuzz, deletable), and another account's. */
  players: { core: string[]; inUse: string[]; disposable: string[]; created: string[] };
  otherPlayers: string[];
  /** The rosters of the fuzz account's teams as the last batch left them (team id → player ids): a hint for roster paths. */
  rosters: Record<string, string[]>;
  keys: { full: Key[]; limited: Key[]; disabled: string; revoked: string; expired: string };
  /**
   * Participant tokens (see PToken): by kind, and `limited` ones (locked registration tokens with one
   * registration scope, or all but one); a token of a disabled account's tournament, a revoked (deleted)
   * one and an expired one; the participants' tournament (the live and open tokens').
   */
  tokens: {
    locked: PToken[];
    live: PToken[];
    closed: PToken[];
    open: PToken[];
    limited: PToken[];
    disabled: string;
    revoked: string;
    expired: string;
    participants: string;
  };
  /** Accounts whose every row is fingerprinted. */
  accounts: string[];
  /** Strings of the other account that no response to the fuzz account may contain. */
  secrets: string[];
}

type ContentType = string | string[] | null;
// ("otherKind": an API key on a participant route, a participant token on an organiser route: both 401)
type Auth =
  | { kind: "full"; format: string; which: number }
  | { kind: "limited"; lacks: boolean; scope: Scope }
  | { kind: "none" | "badChecksum" | "revoked" | "expired" | "disabled" | "duplicate" | "otherKind" }
  | { kind: "unknown"; body: string }
  | { kind: "malformed"; header: string };
type PlayerPick = "own" | "other" | "wrongKind" | "unknown";
type Target =
  | { mode: "A" | "A-cross" | "B" | "AB" | "bad"; t: number; c: number; segment?: string; enc: string }
  // (a roster path's player: `player`, picked among the team's members half the time)
  | { mode: "team"; pick: "own" | "platform" | "other" | "wrongKind"; i: number; enc: string; player?: { pick: PlayerPick; i: number } }
  | { mode: "player"; pick: PlayerPick; i: number; enc: string }
  | { mode: "hook"; pick: "own" | "other" | "wrongKind"; child: "own" | "cross"; i: number; c: number; enc: string }
  | { mode: "unknown"; ids: string[] };
interface Body {
  label: string;
  data: string | Uint8Array;
  chunked?: boolean;
  type?: ContentType;
}

/** One generated request, before fixture ids and keys are filled in. */
export interface Spec {
  template: string;
  method: string;
  target: Target;
  mutation: string | null;
  pathKind: "canonical" | "unknown" | "other";
  query: string;
  auth: Auth;
  contentType: ContentType;
  body: Body | null;
  idem: string | null;
  label: string;
}

/** A request as sent, with what the oracle needs to know about it. */
export interface Wire {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  chunks?: Buffer[];
  /** Sent on its own connection (the server may answer before reading it). */
  fresh: boolean;
  /** The scopes of the key sent, or null when the key must be refused. */
  scopes: readonly string[] | null;
  keyId: string | null;
  owner: "A" | "B" | "none" | "bad";
  /** The path's ids name one resource chain of the fuzz account. */
  coherent: boolean;
  /** The fuzz account's tournament the request is about, if any. */
  tid: string | null;
  /** For a coherent path into aCore: the tournament's lasting state (see TournamentFx). */
  tstate: TournamentFx["state"] | null;
  /** The team a /teams/{team_id} path names (a real one), and how it stands to the fuzz account. */
  team: string | null;
  teamRole: TeamRole | null;
  /** The fuzz account's webhook endpoint a /webhooks/{webhook_id} path names, and how it stands. */
  hook?: string | null;
  hookRole?: HookRole | null;
  /** A /stages/{number} path: the stage number it names (null: a segment the function refuses, 404). */
  stage?: number | null;
  /** For a coherent path into the fuzz account's tournament: its number of stages (see TournamentFx.stages). */
  stages?: number | null;
  /** The player a /players/{player_id} or roster path names (a real one), and how it stands to the fuzz account. */
  player?: string | null;
  playerRole?: PlayerRole | null;
  /** On a participant route: the participant token sent, when it is one the route may take (see PToken). */
  token?: PToken | null;
}

export const MAX_BODY = 64 * 1024;
/** How many of the tournaments the fuzz made join the fixtures as targets of every route. */
const RECENT = 6;
const GAME = "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
const PREFIX = "/functions/v1/api/v1";

/** The route a method and path template reach; HEAD reaches the GET route (RFC 9110). */
export function routeOf(template: string, method: string): Route | undefined {
  const wanted = method === "HEAD" ? "GET" : method;
  return routes.find((r) => r.path === template && r.method === wanted);
}

// ---------------------------------------------------------------------------------------------
// hostile material

export const SQL = [
  "'; drop table app.tournaments; --",
  "' or '1'='1",
  "1; select pg_sleep(5)",
  '" or 1=1 --',
  "$$; drop schema app cascade; $$",
  "'||(select key_hash from app.api_keys limit 1)||'",
  "%' or account_id is not null --",
  "'; set role postgres; --",
  "1) or (1=1",
  "/**/union/**/select * from app.api_keys--",
  "'; update app.accounts set api_access_enabled = true; --",
  "\\'; truncate app.api_keys cascade; --",
];
const WEIRD = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff",
  "x\ud83dy",
  "\u202e",
  "\ufeff",
  "\u2028",
  "Ünïcödé",
  "💥💥💥",
  "\\",
  "\n\r\t",
  "<script>alert(1)</script>",
  "${jndi:ldap://x/a}",
  "{{7*7}}",
  "%00",
  "%s%n",
  "null",
  "NaN",
  "x".repeat(101),
  "x".repeat(5001),
  "\u0301".repeat(50),
];
/** Valid JSON values that no field accepts, or accepts only at the edge. */
const HOSTILE_LITERALS = [
  "1e400",
  "-1e400",
  "1e-400",
  "-0",
  "0.0",
  "1E2",
  "123456789012345678901234567890",
  "-9007199254740993",
  "4.9e-324",
  "1.7976931348623157e308",
  "0.1",
  "0.005",
  "1.005",
  "2.675",
  "1000000.01",
  "100000000.001",
  "true",
  "false",
  "null",
  "[]",
  "{}",
  "[1,2]",
  '{"$gt":""}',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"x\\ud83d"',
  '"\\u0000\\u0000"',
  '"1"',
  '"2"',
  '"0"',
  '"-1"',
  '"1e3"',
];
/** Not JSON at all: the whole body becomes invalid JSON. */
const INVALID_LITERALS = [
  "NaN",
  "-NaN",
  "Infinity",
  "-Infinity",
  "undefined",
  "01",
  "+1",
  ".5",
  "1.",
  "0x10",
  "'x'",
  '"\\x00"',
  "1e",
  "--1",
  '"\u0000"',
  '"\t"',
  '"\\u12"',
  "tru",
  "nul",
  "1_000",
  "∞",
];
const deep = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

const INVALID_UTF8 = [
  [0xff],
  [0xfe, 0xff],
  [0xc3, 0x28],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x80],
  [0xc3],
];

const EXTRA_KEYS = [
  "id",
  "slug",
  "account_id",
  "created_at",
  "updated_at",
  "__proto__",
  "constructor",
  "prototype",
  "name ",
  "Name",
  "",
  "x'; drop table app.tournaments; --",
  "\u0000",
  "team_ids",
  "winner_id",
  "api_key",
  "status ",
  "seq",
];

const MALFORMED_SEGMENTS = [
  "1",
  "0",
  "-1",
  "null",
  "undefined",
  "true",
  "NaN",
  "Infinity",
  "'%20OR%20'1'='1",
  "1;DROP%20TABLE%20app.tournaments",
  "%27%3B%20drop%20table%20app.tournaments%3B%20--",
  "%00",
  "%",
  "%zz",
  "%ff",
  "%c3%28",
  "%ed%a0%80",
  "%2F",
  "x".repeat(5000),
  "6f1c2b1a3c4d4e5f8a9b0c1d2e3f4a5b",
  "{6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b}",
  "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5",
  "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5bb",
  "g6f1c2b1-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
  "%F0%9F%98%80",
  "$(reboot)",
  "${jndi:ldap:%2F%2Fx}",
  "<script>",
  "*",
  "~",
  "tmk_",
  "__proto__",
  "constructor",
  "%ID%%00",
  "%ID%x",
  "%ID%.json",
  "%ID%%20",
  "%20%ID%",
  "%ID%;",
  "%ID%'",
  "%ID%%0a",
  "%ID%,%ID%",
  "(%ID%)",
  "'%ID%'",
  "%ID%--",
  "%ID%%2F..",
];

/**
 * A stage route's `{number}`: mostly a stage of the tournament (1..its stage count), else a number
 * past them, or a segment the function refuses (not ^[1-9][0-9]{0,3}$ once decoded: 404) or takes
 * (`%32` is 2).
 */
const STAGE_SEGMENTS = [
  "5",
  "9",
  "9999",
  "10000",
  "0",
  "00",
  "01",
  "-1",
  "+1",
  "1.0",
  "1e0",
  "%32",
  "%31%30",
  "1%20",
  "%201",
  "%00",
  "%EF%BC%91",
  "one",
  "2a",
  "4294967297",
];
const STAGE_NUMBER = /^[1-9][0-9]{0,3}$/;

/** The stage number a path segment names, as the function reads it (decoded), or null: refused with a 404. */
export function stageNumber(segment: string): number | null {
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch { /* left as it is: names nothing */ }
  return STAGE_NUMBER.test(decoded) ? Number(decoded) : null;
}

/** The path mutations, and whether the path still names the route, names nothing, or may name another. */
const MUTATIONS: Record<string, "canonical" | "unknown" | "other"> = {
  "trailing-slash": "canonical",
  "api-prefix": "canonical",
  "dot-segment": "canonical",
  "encoded-dot": "canonical",
  "double-slash": "unknown",
  "upper-case": "unknown",
  "traversal": "unknown",
  "encoded-traversal": "unknown",
  "encoded-slash": "other",
  "v2": "unknown",
  "no-prefix": "unknown",
  "prefix-junk": "unknown",
  "suffix": "other",
  "semicolon": "other",
};

const MALFORMED_AUTH = [
  "%KEY%",
  "Bearer",
  "Bearer ",
  "Token %KEY%",
  "Basic dG1rXzp4",
  "Bearer %KEY%x",
  "Bearer x%KEY%",
  "Bearer %TRUNC%",
  "Bearer tmk_",
  `Bearer tmk_${"0".repeat(49)}`,
  "Bearer ' or '1'='1",
  "Bearer %KEY% %KEY%",
  "Bearer\t%KEY%",
  "Bearer %UPPER%",
  "Bearer %LOWER%",
  "Bearer sk_%BODY%",
  "Bearer \xff\xfe",
  "Bearer %KEY%;",
  "Bearer <%KEY%>",
  `Bearer ${"A".repeat(5000)}`,
  "Bearer=%KEY%",
  "%KEY% Bearer",
  "Bearer %KEY%,",
  "Bearer tmk_%BODY%%BODY%",
];

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "application/json;charset=UTF-8",
  "application/json ; charset=utf-8",
];
const OTHER_TYPES: ContentType[] = [
  null,
  "",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/jsonx",
  "application/json-patch+json",
  "application/vnd.api+json",
  "text/json",
  "json",
  "*/*",
  "application/*",
  ["application/json", "text/plain"],
  "application/json\xff",
  "text/plain; application/json",
];

// ---------------------------------------------------------------------------------------------
// arbitraries

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const j = (a: fc.Arbitrary<unknown>) => a.map((v) => JSON.stringify(v));

/** Percent-encodes everything but unreserved characters (lone surrogates become U+FFFD). */
export function pct(s: string): string {
  let out = "";
  for (const b of Buffer.from(s, "utf8")) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** Percent-encodes only what cannot go on the wire, leaving quotes, semicolons and the like raw. */
function light(s: string): string {
  return [...s].map((c) => (/[\x21-\x7e]/.test(c) && !/[#&=+%]/.test(c) ? c : pct(c))).join("");
}

const hostileValue: fc.Arbitrary<string> = fc.oneof(
  w(5, fc.constantFrom(...HOSTILE_LITERALS)),
  w(3, fc.constantFrom(...SQL, ...WEIRD).map((s) => JSON.stringify(s))),
  w(2, j(fc.jsonValue({ maxDepth: 2 }))),
  w(1, fc.constantFrom(...INVALID_LITERALS)),
  w(1, fc.constantFrom(deep(100), deep(10_000), deepObject(100))),
);

/** A date-time: mostly valid and in the future; some past, without offset, out of range or not a date. */
const dateTime: fc.Arbitrary<string> = fc.oneof(
  w(
    9,
    fc.record({
      days: fc.oneof(fc.integer({ min: 1, max: 60 }), fc.integer({ min: -30, max: 3650 })),
      secs: fc.integer({ min: 0, max: 86_399 }),
      offset: fc.constantFrom("Z", "Z", "+00:00", "+05:30", "-08:00", "+14:00", "-12:00", "+15:59", "+23:59", "-23:59", "", "+0530"),
      frac: fc.constantFrom("", "", ".5", ".123", ".123456789"),
    }).map(({ days, secs, offset, frac }) => {
      const m = /^([+-])(\d{2}):?(\d{2})$/.exec(offset);
      const minutes = m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
      const local = new Date(Date.now() + days * 86_400_000 + secs * 1000 + minutes * 60_000);
      return JSON.stringify(local.toISOString().slice(0, 19) + frac + offset);
    }),
  ),
  w(
    2,
    fc.constantFrom(
      "9999-12-31T23:59:59Z",
      "9999-12-31T23:59:59-14:00",
      "9999-12-31T23:59:59.999999999-23:59",
      "0001-01-01T00:00:00Z",
      "2027-02-29T00:00:00Z",
      "2028-02-29T12:00:00Z",
      "2027-04-31T00:00:00Z",
      "2027-13-01T00:00:00Z",
      "2027-01-01",
      "2027-01-01T00:00:00",
      "2027-01-01 00:00:00Z",
      "20270101T000000Z",
      "275760-09-13T00:00:00Z",
      "+275760-09-13T00:00:00Z",
      "2027-W01-1",
      "now",
      "infinity",
      "epoch",
      "tomorrow",
      "2027-06-01T12:00:00+24:00",
      "2027-06-01T12:00:00.Z",
    ).map((s) => JSON.stringify(s)),
  ),
);

function pairs(entries: [string, string][]): string {
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
}

/** The value in `percent` of draws, else null. */
const maybe = <T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | null> =>
  percent === 0 ? fc.constant(null) : fc.oneof(w(100 - percent, fc.constant(null)), w(percent, arb));

/**
 * Entries drawn field by field: `required` present most of the time, `optional` less often,
 * sometimes with an unknown or duplicate key. A clean object has every required field and no
 * unknown or duplicate key.
 */
function objectOf(
  required: Record<string, fc.Arbitrary<string>>,
  optional: Record<string, fc.Arbitrary<string>>,
  { optionalPercent = 50, clean = false } = {},
): fc.Arbitrary<[string, string][]> {
  const rec: Record<string, fc.Arbitrary<string | null>> = {};
  for (const [k, a] of Object.entries(required)) rec[k] = clean ? a : maybe(a, 92);
  for (const [k, a] of Object.entries(optional)) rec[k] = maybe(a, optionalPercent);
  return fc.tuple(
    fc.record(rec),
    maybe(fc.tuple(fc.constantFrom(...EXTRA_KEYS), hostileValue), clean ? 0 : 8),
    maybe(fc.tuple(fc.nat(), hostileValue, fc.boolean()), clean ? 0 : 5),
  )
    .map(([values, extra, dup]) => {
      const entries = Object.entries(values).filter((e): e is [string, string] => e[1] !== null);
      if (extra !== null) entries.push(extra);
      if (dup !== null && entries.length > 0) {
        const [k] = entries[dup[0] % entries.length];
        if (dup[2]) entries.unshift([k, dup[1]]);
        else entries.push([k, dup[1]]);
      }
      return entries;
    });
}

/** Stands for one of the fuzz account's deletable teams in a body: `${OWN_TEAM}<n>@@`, resolved by materialize. */
const OWN_TEAM = "@@own-team:";
/** Stands for one of the fuzz account's deletable players in a body (those the fuzz made among them), resolved likewise. */
const OWN_PLAYER = "@@own-player:";

/** Game account providers (section 16), and some it refuses. */
const PROVIDERS = ["steam", "riot", "epic", "battlenet", "psn", "xbox", "nintendo", "discord", "ea", "ubisoft", "faceit", "other"];
const COUNTRIES = ["SE", "US", "GB", "DE", "BR", "KR", "JP", "NO"];
const hoursFromNow = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString();

/** Logo URLs the contract accepts (http(s), at most 2,048 characters). */
const LOGO_URLS = [
  "https://example.com/logo.png",
  "http://x",
  "https://cdn.example.org/a/b.svg?v=2#top",
  "http://127.0.0.1:8080/l.png",
  "https://例え.jp/ロゴ.png",
  "https://xn--r8jz45g.jp/x",
  "http://[::1]/l.png",
  "https://example.com/%00",
  "https://example.com/" + "a".repeat(2048 - 20),
  "https://user:pass@example.com/l.png",
  "https://example.com/😀.png",
  "https://example.com/'; drop table app.teams; --",
];
/** Logo URLs it refuses: another scheme, no host, too long, not a URL. */
const BAD_LOGO_URLS = [
  "",
  "ftp://example.com/l.png",
  "javascript:alert(1)",
  "data:image/png;base64,AAAA",
  "https://",
  "https:// x",
  "//example.com/l.png",
  "example.com/l.png",
  "HTTPS://EXAMPLE.COM/L.PNG",
  "https://example.com/" + "a".repeat(2048 - 19),
  "https://exa mple.com/",
  "https://example.com/a\u0000",
  "http:/x",
  "file:///etc/passwd",
  "https://\u00a0x",
  "https://example.com/a\ud800", // a lone surrogate: refused as invalid text (it was a 500)
];

/** Webhook URLs: all where nothing listens (port 9 of the loopback), since a test dispatcher may attempt them. */
const HOOK_URLS = [
  "http://127.0.0.1:9/x",
  "https://127.0.0.1:9/hooks/fuzz",
  "http://127.0.0.1:9/a/b?c=d#e",
  "https://127.0.0.1:9/%E2%9C%93",
  "http://127.0.0.1:9/" + "a".repeat(2048 - 20),
  "http://[::1]:9/v6",
  "https://127.0.0.1:9/'; drop table app.webhook_endpoints; --",
  "http://127.0.0.1:9/😀",
];
/** URLs the contract refuses: not absolute, user-info, another scheme, too long, not a URL. */
const BAD_HOOK_URLS = [
  "",
  "/hooks",
  "127.0.0.1:9/x",
  "//127.0.0.1:9/x",
  "ftp://127.0.0.1:9/x",
  "javascript:alert(1)",
  "https://",
  "https://user:pass@127.0.0.1:9/x",
  "https://user@127.0.0.1:9/x",
  "http://127.0.0.1:9/" + "a".repeat(2048 - 19),
  "https://127.0.0.1:9/a b",
  "https://127.0.0.1:9/a\u0000",
  "https://127.0.0.1:9/a\ud800",
  "file:///etc/passwd",
];

const FORMAT_NAMES = ["single_elimination", "double_elimination", "round_robin", "swiss"] as const;

/**
 * One stage of `stages` (section 12): valid by the schema, the SQL rules (K, best_next) left to
 * chance. Series stay best of one (section 13's best_of, sent or not): the fuzz reports results
 * on its own tournaments' matches, where a best of three would make a 2-1 the only valid score
 * (tests/series*.test.ts cover the series).
 */
function stageArb(last: boolean): fc.Arbitrary<Record<string, unknown>> {
  const options = {
    single_elimination: fc.record({ third_place_match: fc.boolean(), best_of: fc.constant(1), final_best_of: fc.constant(1) }, {
      requiredKeys: [],
    }),
    double_elimination: fc.record({
      grand_final: fc.constantFrom("single", "reset"),
      best_of: fc.constant(1),
      final_best_of: fc.constant(1),
    }, { requiredKeys: [] }),
    round_robin: fc.record({
      groups: fc.integer({ min: 1, max: 4 }),
      points: fc.record({ win: fc.integer({ min: -3, max: 5 }), loss: fc.integer({ min: -3, max: 3 }) }, { requiredKeys: [] }),
      best_of: fc.constant(1),
    }, { requiredKeys: [] }),
    swiss: fc.record({ rounds: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 6 })), best_of: fc.constant(1) }, {
      requiredKeys: [],
    }),
  };
  return fc.constantFrom(...FORMAT_NAMES).chain((format) =>
    fc.record({
      name: fc.option(fc.constantFrom("Groups", "Playoffs", "  Swiss Stage  ", "Ünïcödé", "😀".repeat(60), "n".repeat(60)), {
        nil: undefined,
      }),
      format: fc.constant(format),
      format_options: fc.option(options[format] as fc.Arbitrary<Record<string, unknown>>, { nil: undefined }),
      advance: last
        ? fc.constant(undefined)
        : format === "round_robin"
        ? fc.record({ per_group: fc.integer({ min: 1, max: 4 }), best_next: fc.integer({ min: 0, max: 3 }) }, {
          requiredKeys: ["per_group"],
        })
        : fc.record({ top: fc.integer({ min: 2, max: 8 }) }),
    })
  );
}

/** `stages`: 1-4 stages, clean or not; unclean, also each way the contract refuses them. */
function stagesArb(clean: boolean): fc.Arbitrary<string> {
  const valid = fc.integer({ min: 1, max: 4 }).chain((n) =>
    fc.tuple(...Array.from({ length: n }, (_, i) => stageArb(i === n - 1))).map((list) => JSON.stringify(list))
  );
  if (clean) return valid;
  const se = { format: "single_elimination" };
  return fc.oneof(
    w(70, valid),
    w(
      30,
      fc.constantFrom(
        "[]",
        "null",
        "{}",
        '"single_elimination"',
        "[null]",
        '["swiss"]',
        JSON.stringify(Array(5).fill({ ...se, advance: { top: 2 } })),
        JSON.stringify([se, se]),
        JSON.stringify([{ ...se, advance: { top: 2 } }]),
        JSON.stringify([{ ...se, foo: 1 }]),
        JSON.stringify([{ format: "round_robin", format_options: { groups: 0 } }]),
        JSON.stringify([{ format: "round_robin", advance: { top: 2 } }, se]),
        JSON.stringify([{ format: "round_robin", format_options: { groups: 2 }, advance: { per_group: 1, best_next: 3 } }, se]),
        JSON.stringify([{ format: "round_robin", advance: { per_group: 1 } }, se]),
        JSON.stringify([{ ...se, advance: { top: 4 } }, { format: "swiss", format_options: { rounds: 4 } }]),
        JSON.stringify([{ ...se, advance: { top: 5 } }, { format: "round_robin", format_options: { groups: 3 } }]),
        JSON.stringify([{ ...se, advance: { top: 1e9 } }, se]),
        JSON.stringify([{ ...se, name: "" }, se]),
        JSON.stringify([{ ...se, name: "\u0000" }]),
        JSON.stringify([{ ...se, format_options: { rounds: 2 } }]),
        JSON.stringify([{ ...se, advance: { top: 2, per_group: 1 } }, se]),
        JSON.stringify([{ ...se, advance: null }]),
        JSON.stringify([{ ...se, advance: { top: "2" } }, se]),
      ),
    ),
  );
}

/** Bodies shaped by the route's schema: clean ones (valid field values) reach the SQL rules. */
function schemaBody(route: Route, fx: Fixtures, clean: boolean): fc.Arbitrary<Body> {
  const field = (valid: fc.Arbitrary<string>) => (clean ? valid : fc.oneof(w(85, valid), w(15, hostileValue)));
  /** Like field, with values at and past the field's own edges among the unclean ones. */
  const edgy = (
    valid: fc.Arbitrary<string>,
    edges: string[],
  ) => (clean ? valid : fc.oneof(w(70, valid), w(15, fc.constantFrom(...edges)), w(15, hostileValue)));
  const future = j(fc.integer({ min: 2, max: 3650 * 24 }).map((h) => new Date(Date.now() + h * 3_600_000).toISOString()));
  // At the limit in code points: 5,000 "😀" are 10,000 UTF-16 units and 20,000 bytes.
  const text = (max: number) =>
    j(fc.oneof(
      fc.constant(""),
      fc.string({ maxLength: 60, unit: "grapheme" }),
      fc.constantFrom("d".repeat(max), "é".repeat(max), "😀".repeat(max)),
    ));
  const tournament = {
    name: field(
      j(fc.oneof(
        fc.constantFrom("Fuzz Cup", "  Padded Cup  ", "Ünïcödé Çüp ß", "x".repeat(100), "🏆 Cup", "a", "Øresund Łódź Æther", "   "),
        fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }),
      )),
    ),
    description: field(text(5000)),
    game_id: field(j(fc.oneof(fc.constant(GAME), fc.uuid(), fc.constant(GAME.toUpperCase())))),
    format: field(j(fc.constantFrom("single_elimination", "double_elimination"))),
    team_size: field(j(fc.integer({ min: 0, max: 101 }))),
    max_teams: field(j(fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 2, max: 1025 })))),
    entry_fee: field(
      j(fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 100_000_000 }).map((c) => c / 100),
        fc.constantFrom(0.01, 12.5, 1_000_000, 0.3, 0.1 + 0.2),
      )),
    ),
    prize_pool: field(j(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10_000_000_000 }).map((c) => c / 100)))),
    starts_at: clean ? future : field(dateTime),
    registration_closes: clean ? future : field(dateTime),
    rules: field(text(20_000)),
    // mostly none or already open (valid whatever starts_at is); sometimes later, maybe after the start
    check_in_opens: clean
      ? j(
        fc.oneof(
          w(3, fc.constant(null)),
          w(3, fc.integer({ min: -96, max: -1 }).map(hoursFromNow)),
          w(1, fc.integer({ min: 1, max: 3650 * 24 }).map(hoursFromNow)),
        ),
      )
      : field(fc.oneof(w(3, dateTime), w(1, fc.constant("null")))),
    // (half as often as the other optional fields: a tournament of one stage stays the common case)
    stages: fc.oneof(fc.constant(null), field(stagesArb(clean))) as fc.Arbitrary<string>,
    // section 16: substitutes a lineup may hold (0-50), and whether a full lineup is required
    substitutes_max: edgy(j(fc.oneof(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 50 }))), ["51", "-1", "1.5", '"2"', "null"]),
    lineups: edgy(j(fc.oneof(w(4, fc.constant("off")), w(1, fc.constant("required")))), ['"on"', '"Required"', '""', "null", "true"]),
  };
  /** A clean body does not send stages with format (400 for any tournament): stages win. */
  const oneShape = (entries: fc.Arbitrary<[string, string][]>) =>
    clean ? entries.map((e) => (e.some(([k]) => k === "stages") ? e.filter(([k]) => k !== "format") : e)) : entries;
  const { name, game_id, team_size, max_teams, starts_at, ...rest } = tournament;
  /** A team's fields (a team's create and update, a sign-up's team). */
  const teamFields = () => ({
    name: edgy(
      j(fc.oneof(
        fc.constantFrom(
          "Fuzz Own Team",
          "  Padded Team  ",
          "Ünïcödé ß",
          "x".repeat(100),
          "😀".repeat(100),
          "a",
          "Fuzz",
          "%_\\",
          "Bravo",
          "Øresund Łódź Æther",
        ),
        fc.string({ minLength: 1, maxLength: 40, unit: "grapheme" }),
      )),
      ['""', '"   "', `"${"x".repeat(101)}"`, `"${"😀".repeat(101)}"`, '"a\\u0000b"', '"\\ud800"', '"\\u00a0"'],
    ),
    tag: edgy(
      j(fc.oneof(
        fc.constantFrom("FUZ", "x".repeat(20), "é".repeat(20), "😀".repeat(20), "t", " T "),
        fc.string({ minLength: 1, maxLength: 20, unit: "grapheme" }),
      )),
      ['""', '" "', `"${"x".repeat(21)}"`, '"\\udfff"'],
    ),
    logo_url: edgy(
      j(fc.oneof(w(6, fc.constantFrom(...LOGO_URLS)), w(2, fc.webUrl({ validSchemes: ["http", "https"] })), w(2, fc.constant(null)))),
      BAD_LOGO_URLS.map((u) => JSON.stringify(u)),
    ),
  });
  /** A player's fields (a player's create and update; a participant's new player takes handle, country and external_id). */
  const playerFields = () => ({
    handle: edgy(
      j(fc.oneof(
        fc.constantFrom("frost", "  padded  ", "Ünïcödé", "h".repeat(50), "😀".repeat(50), "a", "Bravo", "%_\\", "Fuzz Core 1"),
        fc.string({ minLength: 1, maxLength: 30, unit: "grapheme" }),
      )),
      ['""', '"   "', `"${"h".repeat(51)}"`, `"${"😀".repeat(51)}"`, '"a\\u0000b"', '"\\ud800"', "null", "5"],
    ),
    name: edgy(j(fc.oneof(fc.constant(null), fc.constantFrom("Erik Lind", "n".repeat(100)), fc.string({ maxLength: 40 }))), [
      `"${"n".repeat(101)}"`,
      '"a\\u0000b"',
      "5",
    ]),
    country: edgy(j(fc.oneof(w(4, fc.constantFrom(...COUNTRIES)), w(1, fc.constant(null)))), [
      '"se"',
      '"XX"',
      '"SWE"',
      '"S"',
      '""',
      "1",
      '"UK"',
    ]),
    // a few ids over and over, so that external_id_taken happens
    external_id: edgy(
      j(fc.oneof(
        w(4, fc.integer({ min: 1, max: 12 }).map((n) => `fuzz-ext-${n}`)),
        w(2, fc.constant(null)),
        w(1, fc.constant("e".repeat(200))),
      )),
      ['""', `"${"e".repeat(201)}"`, '"a\\u0000b"', "5", "true"],
    ),
    game_accounts: edgy(
      j(fc.oneof(
        fc.constant({}),
        fc.dictionary(
          fc.constantFrom(...PROVIDERS),
          fc.oneof(fc.constantFrom("76561198000000000", "i".repeat(100)), fc.string({ minLength: 1, maxLength: 20 })),
          {
            maxKeys: 3,
          },
        ),
      )),
      ['{"myspace":"1"}', '{"steam":""}', '{"steam":1}', `{"steam":"${"i".repeat(101)}"}`, "[]", "null", '"steam"', '{"Steam":"x"}'],
    ),
  });
  let entries: fc.Arbitrary<[string, string][]>;
  switch (route.op) {
    case "tournaments.create":
      entries = oneShape(objectOf({ name, game_id, team_size, max_teams, starts_at }, rest, { clean }));
      break;
    case "tournaments.update":
      entries = oneShape(
        objectOf({}, { ...tournament, status: field(j(fc.constantFrom("registration", "ongoing", "completed", "cancelled"))) }, {
          optionalPercent: 15,
          clean,
        }),
      );
      break;
    case "stages.update": {
      // The teams of the fixtures' tournaments (the first of fx.teams), so that a hand-picked
      // `advancing` sometimes names exactly the K teams of the stage before; else teams that played
      // nothing, ids of another kind, or none.
      const played = fx.teams.slice(0, 4);
      const team = fc.oneof(
        w(8, fc.constantFrom(...fx.teams.slice(0, 8))),
        w(1, fc.constantFrom(...fx.teams.slice(8))),
        w(1, fc.uuid()),
        w(1, fc.constantFrom(...fx.aCore.map((t) => t.id))),
      );
      entries = objectOf({
        status: edgy(j(fc.oneof(w(6, fc.constant("ongoing")), w(2, fc.constant("pending")), w(2, fc.constant("completed")))), [
          '"started"',
          '"ONGOING"',
          '"ongoing "',
          '""',
          "null",
          "1",
          "true",
          '"registration"',
          '["ongoing"]',
        ]),
      }, {
        advancing: edgy(
          j(fc.oneof(
            w(6, fc.shuffledSubarray(played, { minLength: 2, maxLength: 4 })),
            w(3, fc.array(team, { minLength: 1, maxLength: 5 })),
          )),
          [
            "[]",
            "null",
            '"x"',
            '["x"]',
            "[1]",
            `[${JSON.stringify(played[0])},${JSON.stringify(played[0])}]`,
            `[${JSON.stringify(played[0])},${JSON.stringify(played[0].toUpperCase())}]`,
            JSON.stringify(Array(1025).fill(played[0])),
            "[[]]",
          ],
        ),
      }, { optionalPercent: 30, clean });
      break;
    }
    case "registrations.create":
      // Any team may be registered: platform teams, the account's own (the deletable ones by a
      // placeholder that materialize resolves, so that teams the fuzz made get registered too) and
      // another account's; or an id that names no team.
      entries = objectOf(
        {
          team_id: field(fc.oneof(
            w(6, j(fc.constantFrom(...fx.teams))),
            w(2, j(fc.uuid())),
            w(1, j(fc.constantFrom(...fx.aCore.map((t) => t.id)))),
            w(1, j(fc.constantFrom(...fx.own.core, ...fx.own.inUse))),
            w(2, fc.nat().map((n) => JSON.stringify(`${OWN_TEAM}${n}@@`))),
            w(1, j(fc.constantFrom(...fx.otherTeams))),
          )),
        },
        {},
        { clean },
      );
      break;
    case "registrations.update":
      entries = objectOf({}, {
        // small seeds, so that seed_taken happens
        seed: edgy(j(fc.oneof(w(6, fc.integer({ min: 1, max: 4 })), w(2, fc.integer({ min: 1, max: 1024 })), w(2, fc.constant(null)))), [
          "0",
          "1025",
          "-1",
          "1.5",
          "1.0",
          '"1"',
          "true",
          "1e3",
          "2147483648",
          "-2147483649",
        ]),
        payment_status: edgy(j(fc.constantFrom("pending", "complete", "refunded")), [
          '"paid"',
          '"COMPLETE"',
          '"complete "',
          '""',
          "null",
          '"registration"',
        ]),
        checked_in: edgy(j(fc.boolean()), ["null", '"true"', "1", "0", '"yes"']),
      }, { optionalPercent: 50, clean });
      break;
    case "teams.create":
    case "teams.update": {
      const team = teamFields();
      entries = route.op === "teams.create"
        ? objectOf({ name: team.name, tag: team.tag }, { logo_url: team.logo_url }, { clean })
        : objectOf({}, team, { optionalPercent: 40, clean });
      break;
    }
    case "matches.report": {
      const score = field(j(fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: -1, max: 1_000_001 }))));
      const forfeit = edgy(j(fc.constantFrom("team1", "team2")), ['"team3"', '"TEAM1"', '" team1"', '""', "null", "1", "true", '"team"']);
      const scheduled = clean
        ? j(
          fc.oneof(
            w(4, fc.integer({ min: -72, max: 24 * 365 }).map(hoursFromNow)),
            w(1, fc.constantFrom("2030-01-01T00:00:00+15:59", "2027-06-01T12:00:00.123-08:00", "9999-12-31T23:59:59Z")),
            w(2, fc.constant(null)),
          ),
        )
        : field(fc.oneof(w(4, dateTime), w(1, fc.constant("null"))));
      // A result (both scores, or a forfeit), a schedule, or both; and, unclean, any mix of the four.
      const shapes = [
        w(5, objectOf({ team1_score: score, team2_score: score }, { scheduled_at: scheduled }, { optionalPercent: 15, clean })),
        w(2, objectOf({ forfeit }, { scheduled_at: scheduled }, { optionalPercent: 25, clean })),
        w(2, objectOf({ scheduled_at: scheduled }, {}, { clean })),
      ];
      if (!clean) {
        shapes.push(
          w(2, objectOf({}, { team1_score: score, team2_score: score, forfeit, scheduled_at: scheduled }, { optionalPercent: 50 })),
        );
      }
      entries = fc.oneof(...shapes);
      break;
    }
    case "games.put": {
      // a game's scores (0..1,000,000, unequal) and its map (a string of at most 100 characters, or null)
      const score = field(j(fc.oneof(w(4, fc.integer({ min: 0, max: 16 })), w(1, fc.integer({ min: -1, max: 1_000_001 })))));
      const map = edgy(
        j(fc.oneof(fc.constant(null), fc.constantFrom("Mirage", "Inferno", "Nuke"), fc.string({ maxLength: 100, unit: "grapheme" }))),
        [`"${"m".repeat(101)}"`, "5", "true", '["Mirage"]', '"a\\u0000b"'],
      );
      // who played (section 16): team_size ids a side from its lineup; the fixtures' lineups hold the
      // account's players in use (Alpha Lineups, team_size 1), so a side of one of them is sometimes right
      const side = fc.oneof(
        w(6, fc.array(fc.constantFrom(...fx.players.inUse), { minLength: 1, maxLength: 1 })),
        w(2, fc.uniqueArray(fc.constantFrom(...fx.players.inUse, ...fx.players.core), { minLength: 0, maxLength: 5 })),
        w(1, fc.array(fc.uuid(), { minLength: 1, maxLength: 5 })),
      );
      const lineups = edgy(j(fc.oneof(w(2, fc.constant(null)), w(3, fc.record({ team1: side, team2: side })))), [
        "{}",
        '{"team1":[]}',
        `{"team1":${JSON.stringify([fx.players.inUse[0], fx.players.inUse[0]])},"team2":[]}`,
        '{"team1":["x"],"team2":[]}',
        '{"team1":[],"team2":[],"team3":[]}',
        "[]",
        '"team1"',
        `{"team1":${JSON.stringify(fx.otherPlayers.slice(0, 1))},"team2":${JSON.stringify(fx.otherPlayers.slice(1, 2))}}`,
      ]);
      // (a fifth of them with lineups: most lineups name players of no side, and a game is seldom accepted as it is)
      entries = fc.oneof(
        w(4, objectOf({ team1_score: score, team2_score: score }, { map }, { optionalPercent: 40, clean })),
        w(1, objectOf({ team1_score: score, team2_score: score, lineups }, { map }, { optionalPercent: 40, clean })),
      );
      break;
    }
    case "players.create":
    case "players.update": {
      const player = playerFields();
      const { handle, ...rest } = player;
      entries = route.op === "players.create"
        ? objectOf({ handle }, rest, { clean })
        : objectOf({}, player, { optionalPercent: 35, clean });
      break;
    }
    case "roster.put":
      entries = objectOf(
        {
          role: edgy(j(fc.oneof(w(5, fc.constant("player")), w(2, fc.constant("substitute")), w(2, fc.constant("coach")))), [
            '"Player"',
            '"captain"',
            '""',
            "null",
            "1",
            '["player"]',
          ]),
        },
        { captain: edgy(j(fc.boolean()), ['"true"', "1", "null"]) },
        { optionalPercent: 40, clean },
      );
      break;
    case "lineups.put": {
      // The account's players (lasting ones, or deletable ones by a placeholder), another account's,
      // or none; mostly players, as many as a team_size of 5 takes, at most one captain.
      const id = fc.oneof(
        w(5, fc.constantFrom(...fx.players.core)),
        w(1, fc.constantFrom(...fx.players.inUse)),
        w(3, fc.nat().map((n) => `${OWN_PLAYER}${n}@@`)),
        w(1, fc.constantFrom(...fx.players.core).map((id) => id.toUpperCase())),
        w(1, fc.constantFrom(...fx.otherPlayers)),
        w(1, fc.uuid()),
      );
      const entry = fc.record({
        player_id: id,
        // (the fixtures' tournaments take 5 players and no substitute: a lineup past the caps now and then, not
        // most of the time, so that the route accepts a few in every run now that it has a smaller share of it)
        role: fc.oneof(w(10, fc.constant("player")), w(1, fc.constant("substitute")), w(1, fc.constant("coach"))),
        captain: fc.option(fc.boolean(), { nil: undefined }),
      }, { requiredKeys: ["player_id", "role"] });
      const list = fc.uniqueArray(entry, { maxLength: 5, selector: (e) => e.player_id.toLowerCase() }).map((es) => {
        let captains = 0;
        // one captain at most (a clean body; the unclean ones may have two)
        return es.map((e) => (e.captain && ++captains > 1 ? { ...e, captain: false } : e));
      });
      const players = edgy(
        list.map((es) => `[${es.map((e) => JSON.stringify(e)).join(",")}]`),
        [
          "null",
          '"x"',
          "[{}]",
          '[{"player_id":"x","role":"player"}]',
          `[${JSON.stringify({ player_id: fx.players.core[0], role: "player" })},${
            JSON.stringify({ player_id: fx.players.core[0], role: "coach" })
          }]`,
          `[${JSON.stringify({ player_id: fx.players.core[0], role: "player", captain: true })},${
            JSON.stringify({ player_id: fx.players.core[1], role: "player", captain: true })
          }]`,
          `[${JSON.stringify({ player_id: fx.players.core[0], role: "starter" })}]`,
          `[${JSON.stringify({ player_id: fx.players.core[0], role: "player", extra: 1 })}]`,
          JSON.stringify(Array.from({ length: 160 }, () => ({ player_id: fx.players.core[0], role: "coach" }))),
        ],
      );
      entries = objectOf({ players }, {}, { clean });
      break;
    }
    case "webhooks.create":
    case "webhooks.update": {
      const hook = {
        url: edgy(j(fc.constantFrom(...HOOK_URLS)), BAD_HOOK_URLS.map((u) => JSON.stringify(u).replaceAll("\\\\u", "\\u"))),
        events: edgy(j(fc.oneof(w(3, fc.constant(["*"])), w(5, fc.shuffledSubarray([...EVENT_TYPES], { minLength: 1 })))), [
          "[]",
          '["*","match.ready"]',
          '["match.ready","match.ready"]',
          '["match.finished"]',
          '["webhook.test"]',
          '"*"',
          "null",
          "[1]",
          '["*","*"]',
        ]),
        // the account's lasting tournaments, or none; unclean: another account's, or one that exists nowhere (400, in SQL)
        tournament_id: clean ? j(fc.oneof(w(3, fc.constant(null)), w(2, fc.constantFrom(...fx.aCore.map((t) => t.id))))) : field(j(fc.oneof(
          w(3, fc.constant(null)),
          w(2, fc.constantFrom(...fx.aCore.map((t) => t.id))),
          w(1, fc.constantFrom(...fx.b.map((t) => t.id))),
          w(1, fc.uuid()),
        ))),
        description: edgy(
          j(fc.oneof(
            fc.constant(null),
            fc.string({ maxLength: 60, unit: "grapheme" }),
            fc.constantFrom("d".repeat(200), "😀".repeat(200)),
          )),
          [`"${"d".repeat(201)}"`, `"${"😀".repeat(201)}"`, "5", "true", '"a\\u0000b"'],
        ),
        enabled: edgy(j(fc.boolean()), ["null", '"true"', "1", "0"]),
      };
      const { enabled: _enabled, url, events, ...optional } = hook;
      entries = route.op === "webhooks.create"
        ? objectOf({ url, events }, optional, { clean })
        : objectOf({}, hook, { optionalPercent: 35, clean });
      break;
    }
    // Section 17: the organiser's participant tokens. A name, an expiry (a past one is a 400, in SQL), scopes of the
    // registration kind (participant:register is the sign-up token's alone) and a sign-up token's max_uses.
    case "tokens.create":
    case "signup_tokens.create": {
      const token = {
        name: edgy(
          j(fc.oneof(fc.constantFrom("Captain", "  Discord bot  ", "n".repeat(100), "😀".repeat(100)), fc.string({ maxLength: 30 }))),
          [
            '""',
            '"   "',
            `"${"n".repeat(101)}"`,
            '"a\\u0000b"',
            "null",
            "5",
          ],
        ),
        expires_at: clean ? future : field(dateTime),
        scopes: edgy(
          j(fc.shuffledSubarray([...REGISTRATION_TOKEN_SCOPES], { minLength: 1 })),
          [
            "[]",
            '["participant:register"]',
            '["participant:lineup","participant:lineup"]',
            '["read:registrations"]',
            '"participant:lineup"',
            "null",
          ],
        ),
        max_uses: edgy(j(fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 10_000 }), fc.constant(null))), [
          "0",
          "10001",
          "-1",
          "1.5",
          '"5"',
          "true",
        ]),
      };
      const { scopes, max_uses, ...both } = token;
      entries = objectOf({}, route.op === "tokens.create" ? { ...both, scopes } : { ...both, max_uses }, { optionalPercent: 40, clean });
      break;
    }
    // Section 17: the participant's. A sign-up's team and lineup (new players, or the account's by external_id), a
    // lineup of players by id (of the registration's lineup or roster) or new, a check-in.
    case "participant.signup":
    case "participant.lineup": {
      const player = playerFields();
      const role = edgy(j(fc.oneof(w(6, fc.constant("player")), w(1, fc.constant("substitute")), w(1, fc.constant("coach")))), [
        '"Player"',
        '""',
        "null",
      ]);
      const newPlayer = objectOf(
        { handle: player.handle, role },
        // (external_id: no null here; a few ids over and over, players.create's among them, so that an account's player
        // is taken, or is in two lineups of a tournament)
        { country: player.country, external_id: edgy(j(fc.integer({ min: 1, max: 30 }).map((n) => `fuzz-ext-${n}`)), ['""', "null", "5"]) },
        { optionalPercent: 35, clean },
      );
      const byId = objectOf(
        {
          player_id: field(j(fc.oneof(
            w(3, fc.constantFrom(...fx.players.core, ...fx.players.inUse)),
            w(2, fc.nat().map((n) => `${OWN_PLAYER}${n}@@`)),
            w(1, fc.constantFrom(...fx.otherPlayers)),
            w(1, fc.uuid()),
          ))),
          role,
        },
        {},
        { clean },
      );
      const entry = route.op === "participant.signup" ? newPlayer : fc.oneof(w(6, newPlayer), w(1, byId));
      // (at most one captain, a clean body's: drawn as a position; out of range, none. The participants' tournament takes
      // 5 players, 2 substitutes and 2 coaches: mostly lineups it takes, sometimes one past its caps)
      const list = fc.tuple(fc.array(entry, { maxLength: 4 }), fc.nat({ max: 6 })).map(([es, captain]) =>
        `[${es.map((e, i) => pairs(i === captain ? [...e.filter(([k]) => k !== "captain"), ["captain", "true"]] : e)).join(",")}]`
      );
      const lineup = edgy(list, [
        "null",
        "{}",
        "[{}]",
        '[{"handle":"x"}]',
        `[${'{"handle":"x","role":"player","captain":true},'.repeat(2)}{}]`,
      ]);
      if (route.op === "participant.lineup") {
        entries = objectOf({ players: lineup }, {}, { clean });
      } else {
        const team = teamFields();
        const teamObject = edgy(
          objectOf({ name: team.name, tag: team.tag }, { logo_url: team.logo_url }, { clean }).map(pairs),
          ["null", "{}", '"Aurora"', "[]"],
        );
        entries = objectOf({ team: teamObject }, { lineup }, { optionalPercent: 60, clean });
      }
      break;
    }
    case "participant.check_in":
      entries = objectOf({ checked_in: edgy(j(fc.boolean()), ["null", '"true"', "1", "0"]) }, {}, { clean });
      break;
    default:
      throw new Error(`no body generator for ${route.op}: add one to fuzz-requests.ts`);
  }
  return entries.map((e) => ({ label: clean ? "schema, clean" : "schema", data: pairs(e) }));
}

/** A well-formed body for the route, to be spoilt by the targeted cases. */
function validBase(route: Route, fx: Fixtures): [string, string][] {
  switch (route.op) {
    case "tournaments.create":
      return [["name", '"Fuzz Base Cup"'], ["game_id", JSON.stringify(GAME)], ["team_size", "5"], ["max_teams", "8"], [
        "starts_at",
        JSON.stringify(new Date(Date.now() + 30 * 86_400_000).toISOString()),
      ]];
    case "tournaments.update":
      return [["name", '"Fuzz Renamed"']];
    case "registrations.create":
      return [["team_id", JSON.stringify(fx.teams[fx.teams.length - 1])]];
    case "matches.report":
      return [["team1_score", "2"], ["team2_score", "1"]];
    case "registrations.update":
      return [["payment_status", '"complete"'], ["seed", "null"]];
    case "teams.create":
      return [["name", '"Fuzz Base Team"'], ["tag", '"FBT"'], ["logo_url", '"https://example.com/fbt.png"']];
    case "teams.update":
      return [["tag", '"FBU"']];
    case "webhooks.create":
      return [["url", '"http://127.0.0.1:9/base"'], ["events", '["*"]']];
    case "webhooks.update":
      return [["description", '"Fuzz base hook"']];
    case "stages.update":
      return [["status", '"ongoing"']];
    case "games.put":
      return [["team1_score", "13"], ["team2_score", "7"], ["map", '"Mirage"']];
    case "players.create":
      return [["handle", '"Fuzz Base Player"'], ["country", '"SE"'], ["game_accounts", '{"steam":"765"}']];
    case "players.update":
      return [["name", '"Fuzz Base Name"']];
    case "roster.put":
      return [["role", '"player"']];
    case "lineups.put":
      return [["players", `[${JSON.stringify({ player_id: fx.players.core[2], role: "player" })}]`]];
    case "tokens.create":
      return [["name", '"Fuzz base token"'], ["scopes", '["participant:check_in"]']];
    case "signup_tokens.create":
      return [["name", '"Fuzz base sign-ups"'], ["max_uses", "3"]];
    case "participant.signup":
      return [["team", '{"name":"Fuzz Signed","tag":"FSU"}'], ["lineup", '[{"handle":"signer","role":"player","captain":true}]']];
    case "participant.lineup":
      return [["players", '[{"handle":"lined","role":"player"}]']];
    case "participant.check_in":
      return [["checked_in", "true"]];
    default:
      throw new Error(`no base body for ${route.op}`);
  }
}

/** Hostile bodies aimed at the body reader and the schemas. */
function targetedBody(route: Route, fx: Fixtures): fc.Arbitrary<Body> {
  const base = () => validBase(route, fx);
  const first = () => base()[0][0];
  const numeric = ({
    "matches.report": "team1_score",
    "registrations.create": "team_id",
    "registrations.update": "seed",
    "teams.create": "tag",
    "teams.update": "tag",
    "webhooks.create": "events",
    "webhooks.update": "description",
    "stages.update": "status",
    "games.put": "team1_score",
    "players.create": "handle",
    "players.update": "name",
    "roster.put": "role",
    "lineups.put": "players",
    "tokens.create": "scopes",
    "signup_tokens.create": "max_uses",
    "participant.signup": "team",
    "participant.lineup": "players",
    "participant.check_in": "checked_in",
  } as Record<string, string>)[route.op] ?? "max_teams";
  const withValue = (key: string, value: string) => pairs([...base().filter(([k]) => k !== key), [key, value]]);
  const bytes = (...parts: (string | number[])[]) =>
    new Uint8Array(Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p)))));
  const padded = (size: number) => {
    const start = `${pairs(base()).slice(0, -1)},"padding":"`;
    return start + "x".repeat(Math.max(0, size - start.length - 2)) + '"}';
  };
  const cases: fc.Arbitrary<Body>[] = [
    fc.constantFrom(...INVALID_UTF8).map((seq) => ({
      label: "invalid UTF-8",
      data: bytes(`${pairs(base()).slice(0, -1)},"${first()}":"a`, seq, 'b"}'),
    })),
    fc.constantFrom(...INVALID_UTF8).map((seq) => ({
      label: "invalid UTF-8 in a key",
      data: bytes('{"', seq, `":1,${pairs(base()).slice(1)}`),
    })),
    fc.constantFrom('"\\ud800"', '"a\\u0000b"', '"\\udfff"', '"\\u0000"').map((v) => ({
      label: "escaped NUL or lone surrogate",
      data: withValue(first(), v),
    })),
    fc.constantFrom("\u0000", "\u0001", "\u001f", "\n").map((c) => ({
      label: "raw control character in a string",
      data: withValue(first(), `"a${c}b"`),
    })),
    fc.constantFrom("1e400", "-1e400", "1e-400", "NaN", "Infinity", "-0", "123456789012345678901234567890", "9007199254740993")
      .map((v) => ({ label: "extreme number", data: withValue(numeric, v) })),
    fc.constantFrom(10_000, 30_000).map((n) => ({ label: "deep arrays", data: deep(n) })),
    fc.constant({ label: "deep objects", data: deepObject(10_000) }),
    fc.constant({ label: "deep value", data: withValue(first(), deep(10_000)) }),
    fc.constantFrom(MAX_BODY - 1, MAX_BODY).map((n) => ({ label: "at the size limit", data: padded(n) })),
    fc.constantFrom(MAX_BODY + 1, MAX_BODY + 2, 200_000).map((n) => ({ label: "over the size limit", data: padded(n) })),
    fc.constant({ label: "over the size limit, chunked", data: padded(70_000), chunked: true }),
    fc.constant({ label: "chunked", data: pairs(base()), chunked: true }),
    hostileValue.map((v) => ({ label: "duplicate key, valid last", data: pairs([[first(), v], ...base()]) })),
    hostileValue.map((v) => ({ label: "duplicate key, hostile last", data: pairs([...base(), [first(), v]]) })),
    fc.constantFrom("\ufeff", " \n\t", "\r\n").map((p) => ({
      label: "BOM or whitespace around",
      data: `${p}${pairs(base())}${p === "\ufeff" ? "" : p}`,
    })),
    fc.constantFrom("[]", "null", "0", '"x"', "true", `[${pairs(base())}]`).map((d) => ({ label: "not an object", data: d })),
    fc.constantFrom("", " ", "\n").map((d) => ({ label: "empty", data: d })),
    fc.constant({ label: "form encoded", data: "name=x&max_teams=2&team_id=1", type: "application/x-www-form-urlencoded" }),
    fc.constant({ label: "form encoded as JSON", data: "name=x&max_teams=2&team_id=1" }),
    fc.constantFrom("__proto__", "constructor", "prototype").map((k) => ({
      label: "prototype key",
      data: pairs([[k, '{"admin":true}'], ...base()]),
    })),
    fc.constant({ label: "2,000 keys", data: pairs(Array.from({ length: 2000 }, (_, i) => [`k${i}`, "1"] as [string, string])) }),
    fc.constant({ label: "60,000-character key", data: pairs([["k".repeat(60_000), "1"], ...base()]) }),
    fc.constant({ label: "UTF-16", data: new Uint8Array(Buffer.from(pairs(base()), "utf16le")) }),
    fc.constantFrom(
      `{/* c */${pairs(base()).slice(1)}`,
      `${pairs(base())}garbage`,
      `${pairs(base())}${pairs(base())}`,
      pairs(base()).slice(0, -1),
      `${pairs(base()).slice(0, -1)},}`,
    ).map((d) => ({ label: "broken JSON", data: d })),
    fc.constant({
      label: "escaped but valid",
      data: pairs(
        base().map(([k, v]) => [
          k,
          v.startsWith('"') ? `"${v.slice(1, -1).replace(/[0-9a-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)}"` : v,
        ]),
      ),
    }),
    fc.constantFrom(...SQL).map((s) => ({ label: "SQL key", data: pairs([[s, "1"], ...base()]) })),
    fc.constantFrom(...SQL).map((s) => ({ label: "SQL value", data: withValue(first(), JSON.stringify(s)) })),
  ];
  if (route.op.startsWith("webhooks.")) {
    // what a URL may carry that the database cannot store
    cases.push(
      fc.constantFrom("\\ud800", "\\udfff", "\\u0000", "%00", "\\u202e").map((e) => ({
        label: "NUL or lone surrogate in a URL",
        data: withValue("url", `"http://127.0.0.1:9/a${e}b"`),
      })),
    );
  }
  if (route.op.startsWith("teams.")) {
    // what a URL may carry that the database cannot store
    cases.push(
      fc.constantFrom("\\ud800", "\\udfff", "\\ud83d", "\\u0000", "%00", "\\u202e").map((e) => ({
        label: "NUL or lone surrogate in a URL",
        data: withValue("logo_url", `"https://example.com/a${e}b"`),
      })),
    );
  }
  if (route.op === "matches.report") {
    // the result's two shapes at once, and a forfeit's edges
    cases.push(
      fc.constantFrom(
        '{"forfeit":"team1","team1_score":2,"team2_score":1}',
        '{"forfeit":"team2","team2_score":0}',
        '{"forfeit":null,"team1_score":2,"team2_score":1}',
        '{"forfeit":"team1","scheduled_at":null}',
        '{"forfeit":"team1","forfeit":"team2"}',
        '{"scheduled_at":"2027-06-01T12:00:00"}',
        '{"scheduled_at":""}',
        '{"scheduled_at":null,"team1_score":1}',
        "{}",
      )
        .map((data) => ({ label: "result shapes", data })),
    );
  }
  return fc.oneof(...cases);
}

const arbitraryBody: fc.Arbitrary<Body> = fc.oneof(
  fc.json({ maxDepth: 3 }).map((data) => ({ label: "fc.json", data })),
  fc.dictionary(fc.string({ unit: "binary", maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
    .map((d) => ({ label: "fc.dictionary", data: JSON.stringify(d) })),
  fc.string({ unit: "binary", maxLength: 200 }).map((data) => ({ label: "fc.string", data })),
  fc.uint8Array({ maxLength: 200 }).map((data) => ({ label: "fc.uint8Array", data })),
  fc.anything({ maxDepth: 3 }).map((v) => {
    let data: string;
    try {
      data = JSON.stringify({ v }) ?? "{}";
    } catch {
      data = String(v);
    }
    return { label: "fc.anything", data };
  }),
);

const QUERY_NAMES = ["page", "limit", "status", "game_id"];
const QUERY_VALUES = [
  "1",
  "2",
  "3",
  "20",
  "100",
  "101",
  "0",
  "-1",
  "1e3",
  "01",
  "1.5",
  "999999999",
  "1000000",
  "1000001",
  "9999999999",
  "",
  " ",
  "+1",
  "0x10",
  "registration",
  "ongoing",
  "completed",
  "pending",
  "complete",
  "refunded",
  "REGISTRATION",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "%00",
  "\u0000",
  GAME,
  GAME.toUpperCase(),
  "b0b0b0b0-0000-4000-8000-00000000b0b0",
  "not-a-uuid",
  ...SQL,
];
const RAW_QUERIES = [
  "%",
  "%zz",
  "%ff%fe",
  "page=%00",
  "&&&",
  "=",
  "page",
  "page=1&page=2",
  "status=registration%00",
  "page[]=1",
  "limit=100&limit=0",
  `a=${"x".repeat(4000)}`,
  "status=%27%3B%20drop%20table%20app.tournaments%3B%20--",
  "page=1%20",
  "page=%EF%BC%91",
  "page=%D9%A1",
  "limit=1e2",
  `game_id=%7B${GAME}%7D`,
  "status=ongoing&status=bogus",
  "page=2&limit=1",
];
/** GET /teams: `search` (≤ 100 characters, `%` and `_` literal) and `owned`. */
const TEAM_QUERY_NAMES = ["page", "limit", "search", "owned"];
const TEAM_QUERY_VALUES = [
  "1",
  "2",
  "20",
  "100",
  "101",
  "0",
  "-1",
  "01",
  "1.5",
  "999999999",
  "1000000000",
  "",
  " ",
  "true",
  "false",
  "TRUE",
  "False",
  "yes",
  "null",
  "Fuzz",
  "fuzz",
  "FUZZ 00",
  "Own",
  "ünï",
  "ÜNÏ",
  "😀",
  "%",
  "_",
  "%_",
  "\\",
  "'",
  "x".repeat(100),
  "x".repeat(101),
  "é".repeat(100),
  "😀".repeat(100),
  "😀".repeat(101),
  "\u0000",
  "a\u0000b",
  "Bravo",
  GAME,
  ...SQL,
];
const TEAM_RAW_QUERIES = [
  "owned=true&owned=false",
  "owned=false&owned=true",
  "search=%25",
  "search=%5F",
  "search=%5C",
  "search=%00",
  "owned=",
  "search=",
  "search=%ff",
  "search=%ED%A0%80",
  `search=${"%F0%9F%98%80".repeat(100)}`,
  `search=${"x".repeat(4000)}`,
  "search[]=x",
  "owned[]=true",
  "search=a&search=",
  "page=2&limit=1&owned=false",
  "limit=100&owned=true&search=fuzz",
];

/** GET .../results: `stage` (1 to the tournament's stages; the schema takes 1-4), other names ignored. */
const RESULT_STAGES = ["1", "2", "3", "4"];
const RESULT_STAGE_ODD = [
  "5",
  "0",
  "01",
  "004",
  "-1",
  "1.5",
  "1e0",
  "",
  " ",
  "+1",
  "x",
  "null",
  "%EF%BC%91",
  "999999999",
  "1000000000",
  ...SQL.slice(0, 3),
];

function queryArb(route: Route): fc.Arbitrary<string> {
  if (route.op === "results.get") {
    const value = fc.oneof(
      w(6, fc.constantFrom(...RESULT_STAGES)),
      w(3, fc.constantFrom(...RESULT_STAGE_ODD)),
      w(1, fc.integer().map(String)),
    );
    const name = fc.oneof(
      w(8, fc.constant("stage")),
      w(1, fc.constantFrom("Stage", "stage[]", "page", "since")),
      w(1, fc.string({ maxLength: 8, unit: "binary" })),
    );
    return fc.oneof(
      w(4, fc.constant("")),
      w(
        6,
        fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 3 })
          .map((list) => list.map(([k, v]) => `${pct(k)}=${v.startsWith("%") ? v : pct(v)}`).join("&")),
      ),
      w(1, fc.constantFrom("stage=1&stage=5", "stage=5&stage=2", "stage", "stage=", "stage=%00", "stage=%ff")),
    );
  }
  if (route.op === "deliveries.list" || route.op === "webhooks.list") {
    const names = route.op === "deliveries.list" ? ["page", "limit", "status"] : ["page", "limit"];
    const values = [
      "1",
      "2",
      "20",
      "100",
      "101",
      "0",
      "-1",
      "01",
      "1.5",
      "",
      "pending",
      "succeeded",
      "failed",
      "exhausted",
      "Pending",
      "done",
      "null",
      ...SQL,
    ];
    return fc.oneof(
      w(4, fc.constant("")),
      w(
        5,
        fc.array(
          fc.tuple(
            fc.oneof(w(9, fc.constantFrom(...names)), w(1, fc.string({ maxLength: 8, unit: "binary" }))),
            fc.oneof(w(6, fc.constantFrom(...values)), w(2, fc.integer().map(String))),
          ),
          { maxLength: 4 },
        )
          .map((list) => list.map(([k, v]) => `${pct(k)}=${pct(v)}`).join("&")),
      ),
      w(1, fc.constantFrom("page=1&page=2", "status=%00", "limit=1e2", "status=succeeded&status=bogus", "page=2&limit=1")),
    );
  }
  if (route.op === "players.list") {
    // search (≤ 100 characters, `%` and `_` literal) and external_id (exact, ≤ 200)
    const values = [
      ...TEAM_QUERY_VALUES,
      "fuzz-ext-1",
      "fuzz-ext-12",
      "FUZZ-EXT-1",
      "fuzz-core-1",
      "e".repeat(200),
      "e".repeat(201),
      "Core",
      "frost",
    ];
    return fc.oneof(
      w(4, fc.constant("")),
      w(
        5,
        fc.array(
          fc.tuple(
            fc.oneof(
              w(9, fc.constantFrom("page", "limit", "search", "external_id")),
              w(1, fc.constantFrom("Search", "handle", "owned", "")),
            ),
            fc.oneof(
              w(6, fc.constantFrom(...values)),
              w(2, fc.integer().map(String)),
              w(2, fc.string({ maxLength: 30, unit: "grapheme" })),
            ),
          ),
          { maxLength: 4 },
        ).map((list) => list.map(([k, v]) => `${pct(k)}=${pct(v)}`).join("&")),
      ),
      w(1, fc.constantFrom("external_id=&search=", "external_id=%00", "search=%25", "search=%5F", "page=2&limit=1", "external_id[]=x")),
    );
  }
  const teams = route.op === "teams.list";
  return fc.oneof(
    w(4, fc.constant("")),
    w(
      5,
      fc.array(
        fc.tuple(
          fc.oneof(
            w(9, fc.constantFrom(...(teams ? TEAM_QUERY_NAMES : QUERY_NAMES))),
            w(
              1,
              fc.constantFrom(
                "PAGE",
                "page[]",
                "__proto__",
                "constructor",
                "toString",
                "api_key",
                "",
                ...(teams ? ["Search", "status"] : []),
              ),
            ),
            w(1, fc.string({ maxLength: 8, unit: "binary" })),
          ),
          fc.oneof(
            w(6, fc.constantFrom(...(teams ? TEAM_QUERY_VALUES : QUERY_VALUES))),
            w(2, fc.integer().map(String)),
            w(2, fc.string({ maxLength: teams ? 40 : 12, unit: teams ? "grapheme" : "binary" })),
          ),
          fc.boolean(),
        ),
        { maxLength: 5 },
      ).map((list) => list.map(([k, v, full]) => `${full ? pct(k) : light(k)}=${full ? pct(v) : light(v)}`).join("&")),
    ),
    w(1, fc.constantFrom(...(teams ? TEAM_RAW_QUERIES : RAW_QUERIES))),
  );
}

const authArb: fc.Arbitrary<Auth> = fc.oneof(
  w(
    80,
    fc.tuple(fc.constantFrom("Bearer %s", "bearer %s", "BEARER  %s", "Bearer %s  "), fc.nat())
      .map(([format, which]) => ({ kind: "full" as const, format, which })),
  ),
  w(5, fc.record({ kind: fc.constant("limited" as const), lacks: fc.boolean(), scope: fc.constantFrom(...ALL_SCOPES) })),
  w(
    3,
    fc.constantFrom("none", "badChecksum", "revoked", "expired", "disabled", "duplicate", "otherKind").map((kind) => ({ kind }) as Auth),
  ),
  w(
    2,
    fc.oneof(fc.constantFrom(...MALFORMED_AUTH), fc.string({ unit: printable, maxLength: 60 }))
      .map((header) => ({ kind: "malformed" as const, header })),
  ),
  w(
    1,
    fc.string({ unit: fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"), minLength: 43, maxLength: 43 })
      .map((body) => ({ kind: "unknown" as const, body })),
  ),
);

function targetArb(route: Route): fc.Arbitrary<Target> {
  const names = [...route.path.matchAll(/\{(\w+)\}/g)];
  if (names.length === 0) return fc.constant({ mode: "unknown", ids: [] });
  const enc = fc.oneof(w(90, fc.constant("plain")), w(5, fc.constant("upper")), w(5, fc.constant("percent")));
  const idx = fc.tuple(fc.nat(), fc.nat(), enc);
  const segment = fc.oneof(
    w(3, fc.constantFrom(...MALFORMED_SEGMENTS)),
    w(1, fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).map(pct)),
  );
  if (names[0][1] === "webhook_id") {
    // an endpoint of the account (and one of its deliveries, or another endpoint's), another account's,
    // an id of another kind, an unknown id, a malformed segment
    const hook = (pick: "own" | "other" | "wrongKind", child: "own" | "cross") =>
      fc.tuple(fc.nat(), fc.nat(), enc).map(([i, c, e]) => ({ mode: "hook" as const, pick, child, i, c, enc: e }));
    return fc.oneof(
      w(55, hook("own", "own")),
      w(names.length > 1 ? 6 : 0, hook("own", "cross")),
      w(12, hook("other", "own")),
      w(5, hook("wrongKind", "own")),
      w(8, fc.array(fc.uuid(), { minLength: names.length, maxLength: names.length }).map((ids) => ({ mode: "unknown" as const, ids }))),
      w(14, fc.tuple(fc.nat(), fc.nat(), segment).map(([t, c, s]) => ({ mode: "bad" as const, t, c, segment: s, enc: "plain" }))),
    );
  }
  /** A player: the account's, another account's (private to it), an id of another kind, or one that exists nowhere. */
  const playerPick = fc.tuple(
    fc.oneof(
      w(70, fc.constant("own" as const)),
      w(12, fc.constant("other" as const)),
      w(6, fc.constant("wrongKind" as const)),
      w(12, fc.constant("unknown" as const)),
    ),
    fc.nat(),
  ).map(([pick, i]) => ({ pick, i }));
  if (names[0][1] === "player_id") {
    return fc.oneof(
      w(83, fc.tuple(playerPick, enc).map(([p, e]) => ({ mode: "player" as const, pick: p.pick, i: p.i, enc: e }))),
      w(17, fc.tuple(fc.nat(), fc.nat(), segment).map(([t, c, s]) => ({ mode: "bad" as const, t, c, segment: s, enc: "plain" }))),
    );
  }
  if (names[0][1] === "team_id") {
    // a team of the account, a platform team, another account's (both readable, neither writable),
    // an id of another kind, an unknown id, a malformed segment; on a roster path, a player too
    const roster = names.length > 1;
    const team = (pick: "own" | "platform" | "other" | "wrongKind") =>
      fc.tuple(fc.nat(), enc, playerPick).map(([i, e, player]) => ({
        mode: "team" as const,
        pick,
        i,
        enc: e,
        ...(roster ? { player } : {}),
      }));
    return fc.oneof(
      w(46, team("own")),
      w(12, team("platform")),
      w(12, team("other")),
      w(5, team("wrongKind")),
      w(
        8,
        fc.array(
          fc.oneof(w(9, fc.uuid()), w(1, fc.constantFrom("00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"))),
          { minLength: names.length, maxLength: names.length },
        ).map((ids) => ({ mode: "unknown" as const, ids })),
      ),
      w(17, fc.tuple(fc.nat(), fc.nat(), segment).map(([t, c, s]) => ({ mode: "bad" as const, t, c, segment: s, enc: "plain" }))),
    );
  }
  return fc.oneof(
    w(50, idx.map(([t, c, e]) => ({ mode: "A" as const, t, c, enc: e }))),
    w(6, idx.map(([t, c, e]) => ({ mode: "A-cross" as const, t, c, enc: e }))),
    w(14, idx.map(([t, c, e]) => ({ mode: "B" as const, t, c, enc: e }))),
    // (a stage number belongs to no account: no such mix for the stage routes)
    w(names.length > 1 && names[1][1] !== "number" ? 5 : 0, idx.map(([t, c, e]) => ({ mode: "AB" as const, t, c, enc: e }))),
    w(
      8,
      fc.array(
        fc.oneof(w(9, fc.uuid()), w(1, fc.constantFrom("00000000-0000-0000-0000-000000000000", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"))),
        { minLength: names.length, maxLength: names.length },
      )
        .map((ids) => ({ mode: "unknown" as const, ids })),
    ),
    w(17, fc.tuple(fc.nat(), fc.nat(), segment).map(([t, c, s]) => ({ mode: "bad" as const, t, c, segment: s, enc: "plain" }))),
  );
}

function specArb(route: Route, fx: Fixtures): fc.Arbitrary<Spec> {
  const body: fc.Arbitrary<Body | null> = route.body
    ? fc.oneof(
      w(25, schemaBody(route, fx, true)),
      w(35, schemaBody(route, fx, false)),
      w(22, targetedBody(route, fx)),
      w(18, arbitraryBody),
    )
    : fc.oneof(w(9, fc.constant(null)), w(1, arbitraryBody));
  return fc.record({
    method: fc.oneof(
      w(85, fc.constant(route.method)),
      w(15, fc.constantFrom("GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS", "TRACE", "PROPFIND")),
    ),
    target: targetArb(route),
    mutation: fc.oneof(w(88, fc.constant(null)), w(12, fc.constantFrom(...Object.keys(MUTATIONS)))),
    query: route.query ? queryArb(route) : fc.oneof(w(9, fc.constant("")), w(1, queryArb(route))),
    auth: authArb,
    contentType: fc.oneof(w(85, fc.constantFrom(...JSON_TYPES)), w(15, fc.constantFrom(...OTHER_TYPES))),
    body,
    idem: fc.oneof(
      w(85, fc.constant(null)),
      w(10, fc.string({ unit: printable, minLength: 1, maxLength: 40 })),
      w(5, fc.constantFrom("", " ", "x".repeat(256), "\xff\xfe", "a\tb", "tmk_", SQL[0])),
    ),
  }).map((s) => ({
    ...s,
    template: route.path,
    pathKind: s.mutation ? MUTATIONS[s.mutation] : "canonical",
    label: s.body?.label ?? "no body",
  }));
}

/** A request to any route. */
export function requestArb(fx: Fixtures): fc.Arbitrary<Spec> {
  return fc.oneof(...routes.map((route) => specArb(route, fx)));
}

// ---------------------------------------------------------------------------------------------
// on the wire

const usage = new Map<string, number>();
let turn = 0;
let spare = 0;

/** How many requests the fuzz has sent with a key or token (each has 100 a minute). */
export const usedBy = (id: string) => usage.get(id) ?? 0;

/** The next key (or participant token) of a pool with room left in its rate-limit window (95 of 100, for safety). */
function takeKey<K extends Key>(pool: K[]): K {
  for (let i = 0; i < pool.length; i++) {
    const key = pool[(turn + i) % pool.length];
    const used = usage.get(key.id) ?? 0;
    if (used < 95) {
      turn = (turn + i + 1) % 1_000_000;
      usage.set(key.id, used + 1);
      return key;
    }
  }
  throw new Error("the fuzzer ran out of API keys: make more in fixtures()");
}

function unknownKey(body: string, prefix = "tmk_"): string {
  const head = `${prefix}${body}`;
  return head + base62(crc32(new TextEncoder().encode(head)), 6);
}

/** A participant route's template (section 17): its path starts so, and no organiser route's does. */
export const isParticipantPath = (template: string) => template === "/participant" || template.startsWith("/participant/");

/**
 * The token a participant request with a valid token sends: a sign-up one for a sign-up (half of them on a
 * started tournament), a registration one for the registration's routes (locked or live; fewer live ones for a
 * withdrawal, which takes the token with it), any kind for the reads. A live token only while the pool has one
 * with room left (else a locked one).
 */
function participantToken(route: Route | undefined, fx: Fixtures, which: number): PToken {
  const t = fx.tokens;
  const signups = () => takeKey(which % 4 < 2 ? t.closed : t.open);
  if (route?.op === "participant.signup") return signups();
  const reads = route?.op === "participant.get" || route?.op === "participant.matches";
  const r = (which >> 2) % 10;
  if (reads && r >= 8) return signups();
  if (r < (route?.op === "participant.withdraw" ? 3 : 5)) {
    const live = t.live.filter((k) => usedBy(k.id) < 95);
    if (live.length) return takeKey(live);
  }
  return takeKey(t.locked);
}

function authHeader(
  spec: Spec,
  fx: Fixtures,
): { header?: string | string[]; key: Key | null; scopes: readonly string[] | null; token?: PToken } {
  const auth = spec.auth;
  const participant = isParticipantPath(spec.template);
  // the credential a refused kind is made from: a token on a participant route, a key on the others (refused before the rate limit)
  const any =
    () => (participant ? pick([...fx.tokens.locked, ...fx.tokens.closed], spare++).key : fx.keys.full[spare++ % fx.keys.full.length].key);
  switch (auth.kind) {
    case "full": {
      if (participant) {
        const token = participantToken(routeOf(spec.template, spec.method), fx, auth.which);
        return { header: auth.format.replace("%s", token.key), key: token, scopes: token.scopes, token };
      }
      const key = takeKey(fx.keys.full);
      return { header: auth.format.replace("%s", key.key), key, scopes: key.scopes };
    }
    case "limited": {
      if (participant) {
        // the participant scope in the place of the organiser one drawn: a token lacking it, or holding it alone
        const scope = PARTICIPANT_SCOPES[ALL_SCOPES.indexOf(auth.scope) % PARTICIPANT_SCOPES.length];
        const pool = [...fx.tokens.limited, ...fx.tokens.closed].filter((k) => k.scopes.includes(scope) !== auth.lacks);
        const token = takeKey(pool.filter((k) => auth.lacks || k.scopes.length === 1));
        return { header: `Bearer ${token.key}`, key: token, scopes: token.scopes, token };
      }
      const pool = fx.keys.limited.filter((k) => k.scopes.includes(auth.scope) !== auth.lacks);
      const fit = pool.filter((k) => auth.lacks || k.scopes.length === 1);
      const key = takeKey(fit);
      return { header: `Bearer ${key.key}`, key, scopes: key.scopes };
    }
    case "otherKind": // refused by its prefix, before any lookup: not charged
      return {
        header: `Bearer ${participant ? fx.keys.full[spare++ % fx.keys.full.length].key : pick(fx.tokens.locked, spare++).key}`,
        key: null,
        scopes: null,
      };
    case "none":
      return { key: null, scopes: null };
    case "badChecksum": {
      const key = any();
      const i = key.length - 2;
      return { header: `Bearer ${key.slice(0, i)}${key[i] === "0" ? "1" : "0"}${key.slice(i + 1)}`, key: null, scopes: null };
    }
    case "revoked":
      return { header: `Bearer ${participant ? fx.tokens.revoked : fx.keys.revoked}`, key: null, scopes: null };
    case "expired":
      return { header: `Bearer ${participant ? fx.tokens.expired : fx.keys.expired}`, key: null, scopes: null };
    case "disabled":
      return { header: `Bearer ${participant ? fx.tokens.disabled : fx.keys.disabled}`, key: null, scopes: null };
    case "duplicate": {
      const key = any();
      return { header: [`Bearer ${key}`, `Bearer ${key}`], key: null, scopes: null };
    }
    case "unknown":
      return { header: `Bearer ${unknownKey(auth.body, participant ? "tpt_" : "tmk_")}`, key: null, scopes: null };
    case "malformed": {
      const key = any();
      const header = auth.header.replaceAll("%KEY%", key).replaceAll("%TRUNC%", key.slice(0, -1))
        .replaceAll("%UPPER%", key.toUpperCase()).replaceAll("%LOWER%", key.toLowerCase()).replaceAll("%BODY%", key.slice(4));
      return { header, key: null, scopes: null };
    }
  }
}

interface Resolved {
  segments: string[];
  owner: Wire["owner"];
  coherent: boolean;
  tid: string | null;
  tstate?: Wire["tstate"];
  team?: string;
  teamRole?: TeamRole;
  hook?: string;
  hookRole?: HookRole;
  stage?: number | null;
  stages?: number | null;
  player?: string;
  playerRole?: PlayerRole;
}

const pick = <T>(list: T[], i: number) => list[i % list.length];

/** A player id that names nothing, drawn from the seed. */
const nowherePlayer = (i: number) => `00000000-0000-4000-8000-${(i % 2 ** 48).toString(16).padStart(12, "0")}`;

/** How a player of the fuzz account stands (a created one is as deletable as a disposable one). */
function playerRoleOf(fx: Fixtures, id: string): PlayerRole {
  return fx.players.core.includes(id) ? "core" : fx.players.inUse.includes(id) ? "inUse" : "disposable";
}

/**
 * A player by its pick: the account's (half the time one that stays, unless it is DELETE's target:
 * never a core one), another account's, an id of another kind (a team of the account), or one that
 * exists nowhere. `members`: the team's roster (a roster path), from which half the own picks come.
 */
function pickPlayer(
  spec: Spec,
  fx: Fixtures,
  which: PlayerPick,
  i: number,
  members: string[] = [],
): { id: string; role: PlayerRole | null; owner: Wire["owner"] } {
  switch (which) {
    case "other":
      return { id: pick(fx.otherPlayers, i), role: "other", owner: "B" };
    case "wrongKind":
      return { id: pick([...fx.own.core, ...fx.aCore.map((t) => t.id)], i), role: null, owner: "none" };
    case "unknown":
      return { id: nowherePlayer(i), role: null, owner: "none" };
    case "own": {
      if (members.length && i % 4 < 2) {
        const id = pick(members, i >> 2);
        return { id, role: playerRoleOf(fx, id), owner: "A" };
      }
      const deletable = [...fx.players.disposable, ...fx.players.created];
      const deleting = spec.method === "DELETE" && spec.template === "/players/{player_id}";
      const lasting: [string, PlayerRole][] = [
        ...(deleting ? [] : fx.players.core.map((p): [string, PlayerRole] => [p, "core"])),
        ...fx.players.inUse.map((p): [string, PlayerRole] => [p, "inUse"]),
      ];
      const [id, role] = i % 2 ? [pick(deletable, i >> 1), "disposable" as const] : pick(lasting, i >> 1);
      return { id, role, owner: "A" };
    }
  }
}

/** A /players/{player_id} path: the player by its standing, or a malformed segment. */
function resolvePlayer(spec: Spec, fx: Fixtures): Resolved {
  const target = spec.target;
  if (target.mode === "bad") {
    let segment = target.segment!.replaceAll("%ID%", pick(fx.players.core, target.t));
    if (/^(\.|%2e){1,2}$/i.test(segment) || segment === "") segment = `x${segment}`;
    return { segments: [segment], owner: "bad", coherent: false, tid: null };
  }
  if (target.mode !== "player") throw new Error(`a player path with target mode ${target.mode}`);
  const encode = (id: string) => target.enc === "upper" ? id.toUpperCase() : target.enc === "percent" ? pct(id) : id;
  const { id, role, owner } = pickPlayer(spec, fx, target.pick, target.i);
  return role && role !== "other"
    ? { segments: [encode(id)], owner, coherent: true, tid: null, player: id, playerRole: role }
    : { segments: [encode(id)], owner, coherent: false, tid: null, ...(role ? { player: id, playerRole: role } : {}) };
}

/**
 * A /teams/{team_id} path (and a roster's, /teams/{team_id}/players[/{player_id}]): the team by its
 * standing (own, platform, another account's), or no team at all; then the player, as for a player path.
 */
function resolveTeam(spec: Spec, fx: Fixtures, names: string[]): Resolved {
  const target = spec.target;
  const withPlayer = names[1] === "player_id";
  if (target.mode === "unknown") return { segments: target.ids.slice(0, names.length), owner: "none", coherent: false, tid: null };
  if (target.mode === "bad") {
    const segments = [pick(fx.own.core, target.t), ...(withPlayer ? [pick(fx.players.core, target.c)] : [])];
    const at = target.c % segments.length;
    segments[at] = target.segment!.replaceAll("%ID%", segments[at]);
    if (/^(\.|%2e){1,2}$/i.test(segments[at]) || segments[at] === "") segments[at] = `x${segments[at]}`;
    return { segments, owner: "bad", coherent: false, tid: null };
  }
  if (target.mode !== "team") throw new Error(`a team path with target mode ${target.mode}`);
  const encode = (id: string) => target.enc === "upper" ? id.toUpperCase() : target.enc === "percent" ? pct(id) : id;
  const deletable = [...fx.own.disposable, ...fx.own.created];
  let id: string;
  let role: TeamRole;
  switch (target.pick) {
    case "own": {
      // Half the time a team that stays (DELETE never reaches the core teams, so that GET and
      // PATCH of them always find them; one in use cannot go), else one that may be gone.
      const deleting = spec.method === "DELETE" && !withPlayer;
      const lasting: [string, TeamRole][] = [
        ...(deleting ? [] : fx.own.core.map((t): [string, TeamRole] => [t, "core"])),
        ...fx.own.inUse.map((t): [string, TeamRole] => [t, "inUse"]),
      ];
      [id, role] = target.i % 2 ? [pick(deletable, target.i >> 1), "disposable"] : pick(lasting, target.i >> 1);
      break;
    }
    case "platform":
      [id, role] = [pick(fx.teams, target.i), "platform"];
      break;
    case "other":
      [id, role] = [pick(fx.otherTeams, target.i), "other"];
      break;
    case "wrongKind": // a tournament, registration or match id of the account: no team
      return {
        segments: [
          encode(pick(fx.aCore.flatMap((t) => [t.id, ...t.regs, ...t.matches]), target.i)),
          ...(withPlayer ? [encode(fx.players.core[0])] : []),
        ],
        owner: "none",
        coherent: false,
        tid: null,
      };
  }
  const team = { team: id, teamRole: role };
  const owner: Wire["owner"] = role === "other" ? "B" : role === "platform" ? "none" : "A";
  if (!withPlayer) return { segments: [encode(id)], owner, coherent: true, tid: null, ...team };
  const p = target.player ?? { pick: "own" as const, i: target.i };
  const player = pickPlayer(spec, fx, p.pick, p.i, fx.rosters[id] ?? []);
  return {
    segments: [encode(id), encode(player.id)],
    owner,
    coherent: true,
    tid: null,
    ...team,
    ...(player.role ? { player: player.id, playerRole: player.role } : {}),
  };
}

/** A /webhooks/{webhook_id}[/deliveries/{delivery_id}] path: an endpoint by whose it is, or none at all. */
function resolveHook(spec: Spec, fx: Fixtures, names: string[]): Resolved {
  const target = spec.target;
  const child = names.length > 1;
  if (target.mode === "unknown") return { segments: target.ids.slice(0, names.length), owner: "none", coherent: false, tid: null };
  const deliveriesOf = (id: string) => fx.hooks.deliveries[id] ?? [];
  if (target.mode === "bad") {
    const id = pick(fx.hooks.core, target.t);
    const segments = [id, ...(child ? [pick(deliveriesOf(id).length ? deliveriesOf(id) : [id], target.c)] : [])];
    const at = target.c % segments.length;
    segments[at] = target.segment!.replaceAll("%ID%", segments[at]);
    if (/^(\.|%2e){1,2}$/i.test(segments[at]) || segments[at] === "") segments[at] = `x${segments[at]}`;
    return { segments, owner: "bad", coherent: false, tid: null };
  }
  if (target.mode !== "hook") throw new Error(`a webhook path with target mode ${target.mode}`);
  const encode = (id: string) => target.enc === "upper" ? id.toUpperCase() : target.enc === "percent" ? pct(id) : id;
  if (target.pick === "wrongKind") {
    // a tournament, registration or match id of the account, or a delivery id: no endpoint
    const ids = fx.aCore.flatMap((t) => [t.id, ...t.regs, ...t.matches]);
    const segments = [encode(pick(ids, target.i)), ...(child ? [encode(pick(ids, target.c))] : [])];
    return { segments, owner: "none", coherent: false, tid: null };
  }
  if (target.pick === "other") {
    const h = pick(fx.bHooks, target.i);
    return { segments: [encode(h.id), ...(child ? [encode(pick(h.deliveries, target.c))] : [])], owner: "B", coherent: false, tid: null };
  }
  // Half the time an endpoint that stays (DELETE never reaches the core ones), else one that may be gone.
  const deletable = [...fx.hooks.disposable, ...fx.hooks.created];
  const lasting = spec.method === "DELETE" && !child ? [] : fx.hooks.core;
  const [id, role]: [string, HookRole] = target.i % 2 || !lasting.length
    ? [pick(deletable, target.i >> 1), "disposable"]
    : [pick(lasting, target.i >> 1), "core"];
  if (!child) return { segments: [encode(id)], owner: "A", coherent: true, tid: null, hook: id, hookRole: role };
  const own = deliveriesOf(id);
  if (target.child === "own" && own.length) {
    return { segments: [encode(id), encode(pick(own, target.c))], owner: "A", coherent: true, tid: null, hook: id, hookRole: role };
  }
  // another endpoint's delivery (of the account): not this endpoint's
  const others = Object.entries(fx.hooks.deliveries).filter(([h]) => h !== id).flatMap(([, list]) => list);
  return { segments: [encode(id), encode(pick(others.length ? others : [id], target.c))], owner: "A", coherent: false, tid: null };
}

/**
 * A stage route's path (/tournaments/{tournament_id}/stages[/{number}]): the tournament as for any
 * tournament route (half the time one with several stages), and a stage number: mostly one of its
 * stages, else one past them or a segment the function refuses. A malformed segment in place of
 * the number is "bad" only when the function refuses it (`1` is a stage).
 */
function resolveStage(spec: Spec, fx: Fixtures, numbered: boolean): Resolved {
  const target = spec.target;
  const numberOf = (t: TournamentFx | null, c: number) =>
    c % 8 < 6 ? String(1 + ((c >> 3) % Math.max(t?.stages ?? 1, 1))) : pick(STAGE_SEGMENTS, c >> 3);
  if (target.mode === "unknown") {
    return { segments: [target.ids[0], ...(numbered ? [numberOf(null, 0)] : [])], owner: "none", coherent: false, tid: null };
  }
  if (target.mode === "team" || target.mode === "hook" || target.mode === "player") {
    throw new Error(`a ${target.mode} target on a stage path`);
  }
  const encode = (id: string) => target.enc === "upper" ? id.toUpperCase() : target.enc === "percent" ? pct(id) : id;
  const aPool = [...fx.aCore, ...fx.aDisposable, ...fx.created.slice(-RECENT)];
  const staged = aPool.filter((t) => (t.stages ?? 1) > 1);
  // A PATCH asking for a status: half of them aimed where it may be taken (a hint, as the status is
  // as the last batch left it): "pending" in registration, "ongoing" or "completed" where the tournament is.
  let wanted: unknown;
  try {
    wanted = spec.method === "PATCH" && typeof spec.body?.data === "string" ? JSON.parse(spec.body.data)?.status : undefined;
  } catch { /* not JSON */ }
  const fits = typeof wanted === "string" ? aPool.filter((x) => (wanted === "pending" ? "registration" : wanted) === x.status) : [];
  const t = target.t % 4 >= 2 && fits.length
    ? pick(fits, target.t >> 2)
    : target.t % 2 && staged.length
    ? pick(staged, target.t >> 2)
    : pick(aPool, target.t >> 2);
  const segment = numberOf(t, target.c);
  const tail = numbered ? [segment] : [];
  const named = numbered ? stageNumber(segment) : null;
  switch (target.mode) {
    case "A":
      return {
        segments: [encode(t.id), ...tail],
        owner: named === null && numbered ? "bad" : "A",
        coherent: true,
        tid: t.id,
        tstate: t.state ?? null,
        stage: named,
        stages: t.stages ?? null,
      };
    case "A-cross": // an id of another kind in place of the tournament's
      return {
        segments: [encode(pick(fx.aCore.flatMap((x) => [...x.regs, ...x.matches]), target.c)), ...tail],
        owner: "A",
        coherent: false,
        tid: null,
        stage: named,
      };
    case "B":
    case "AB":
      return { segments: [encode(pick(fx.b, target.t).id), ...tail], owner: "B", coherent: false, tid: null, stage: named };
    case "bad": {
      const segments = [t.id, ...(numbered ? [String(1 + (target.c % Math.max(t.stages ?? 1, 1)))] : [])];
      const at = target.c % segments.length;
      segments[at] = target.segment!.replaceAll("%ID%", segments[at]);
      if (/^(\.|%2e){1,2}$/i.test(segments[at]) || segments[at] === "") segments[at] = `x${segments[at]}`;
      const number = numbered ? stageNumber(segments[1]) : null;
      // a "malformed" number the function takes names a stage: the tournament's, as in mode A
      if (at === 1 && number !== null) {
        return { segments, owner: "A", coherent: true, tid: t.id, tstate: t.state ?? null, stage: number, stages: t.stages ?? null };
      }
      return { segments, owner: "bad", coherent: false, tid: t.id, stage: number };
    }
  }
}

/** Game numbers for .../games/{number}: mostly 1-3 (a game reported, the next, or one past it), else one the function refuses. */
const GAME_SEGMENTS = ["0", "9", "10", "9999", "01", "-1", "1.0", "x", "%2B1", "10000"];
const GAME_NUMBER = /^(0|[1-9][0-9]{0,3})$/;

function resolveTarget(spec: Spec, fx: Fixtures): Resolved {
  const names = [...spec.template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  if (names.length === 0) return { segments: [], owner: "A", coherent: true, tid: null };
  if (names[2] === "number") {
    // a match's game: the match's chain as for the match itself, then the number
    const c = "c" in spec.target ? spec.target.c : 0;
    const resolved = resolveTournamentChild(spec, fx, names.slice(0, 2));
    // The match's games as the last batch left them (a hint): a DELETE mostly names its last
    // game, a PUT its next one or one to correct; else a number the function refuses.
    let matchId = resolved.segments[1] ?? "";
    try {
      matchId = decodeURIComponent(matchId).toLowerCase();
    } catch { /* a malformed segment: no hint */ }
    // (own keys only: a segment may be "constructor" or "__proto__")
    const reported = [...fx.aCore, ...fx.aDisposable, ...fx.created]
      .map((t) => (t.games && Object.hasOwn(t.games, matchId) ? t.games[matchId] : 0)).find((n) => n > 0) ?? 0;
    const segment = c % 8 >= 6
      ? pick(GAME_SEGMENTS, c >> 3)
      : spec.method === "DELETE"
      ? String(Math.max(reported, 1))
      : String((c >> 3) % 2 ? reported + 1 : Math.max(reported, 1) + ((c >> 4) % 2));
    const refused = !GAME_NUMBER.test(segment);
    return {
      ...resolved,
      segments: [...resolved.segments.slice(0, 2), segment],
      ...(refused && resolved.owner !== "none" ? { owner: "bad" as const, coherent: false } : {}),
    };
  }
  return resolveTournamentChild(spec, fx, names);
}

/** A child id that exists nowhere, when the fixtures have no child of the kind left (a token the fuzz may revoke). */
const NOWHERE_CHILD = "00000000-0000-4000-8000-00000000c41d";

/** A tournament path, or one of its children's (a registration, a match, a participant token). */
function resolveTournamentChild(spec: Spec, fx: Fixtures, names: string[]): Resolved {
  if (names[0] === "team_id") return resolveTeam(spec, fx, names);
  if (names[0] === "player_id") return resolvePlayer(spec, fx);
  if (names[0] === "webhook_id") return resolveHook(spec, fx, names);
  if (spec.template.includes("/stages")) return resolveStage(spec, fx, names[1] === "number");
  const target = spec.target;
  if (target.mode === "unknown") return { segments: target.ids.slice(0, names.length), owner: "none", coherent: false, tid: null };
  if (target.mode === "team" || target.mode === "hook" || target.mode === "player") {
    throw new Error(`a ${target.mode} target on a tournament path`);
  }
  const child = names[1];
  const kids = (t: TournamentFx) => (child === "registration_id" ? t.regs : child === "token_id" ? t.tokens ?? [] : t.matches);
  const isDelete = spec.method === "DELETE" && spec.template === "/tournaments/{id}";
  const aPool: TournamentFx[] = isDelete
    ? [...fx.aDisposable, ...fx.created]
    // the latest tournaments the fuzz made are likely still in registration, taking registrations
    : [...fx.aCore, ...fx.aDisposable, ...fx.created.slice(-RECENT)];
  const aKids = fx.aCore.flatMap(kids);
  const encode = (id: string) => target.enc === "upper" ? id.toUpperCase() : target.enc === "percent" ? pct(id) : id;

  // The chain of one tournament: for a child route, a tournament that has such children (while
  // it lasts); A-cross and the other modes cover the ids that do not belong together.
  // Half of them where the children change: registrations while in registration, matches while ongoing.
  const parents = child ? aPool.filter((x) => kids(x).length) : aPool;
  const changing = child === "match_id" ? "ongoing" : child || spec.template.endsWith("/registrations") ? "registration" : null;
  // (results: half of them tournaments with several stages, for ?stage=k)
  const live = spec.template.endsWith("/results")
    ? parents.filter((x) => (x.stages ?? 1) > 1)
    : parents.filter((x) => changing && x.status === changing);
  // (a game's routes: a quarter of them a match with games, as the last batch left them, so that
  // a DELETE of the last game, or its correction, finds one often enough to be accepted)
  const played = (x: TournamentFx) => Object.keys(x.games ?? {}).filter((id) => x.matches.includes(id));
  const withGames = spec.template.includes("/games/") ? parents.filter((x) => played(x).length) : [];
  let t = target.mode !== "A" || !parents.length
    ? pick(aPool, target.t)
    : target.t % 4 === 3 && withGames.length
    ? pick(withGames, target.t >> 2)
    : target.t % 2 && live.length
    ? pick(live, target.t >> 1)
    : pick(parents, target.t >> 1);
  let c = withGames.includes(t) && target.c % 2
    ? pick(played(t), target.c >> 1)
    : kids(t).length
    ? pick(kids(t), target.c)
    : pick(aKids, target.c) ?? NOWHERE_CHILD; // (the fuzz may have revoked every token it may: then one that exists nowhere)
  const owner: Wire["owner"] = "A";
  let coherent = kids(t).includes(c) || !child;
  switch (target.mode) {
    case "A-cross": {
      // the child of another tournament, or an id of the wrong kind
      const others = aKids.filter((k) => !kids(t).includes(k));
      if (child) c = pick(others, target.c) ?? NOWHERE_CHILD;
      else t = { ...t, id: pick(fx.aCore.flatMap((x) => [...x.regs, ...x.matches]), target.c) };
      coherent = false;
      break;
    }
    case "B": {
      const withKids = child ? fx.b.filter((x) => kids(x).length) : fx.b;
      const bt = pick(withKids, target.t);
      return { segments: [encode(bt.id), ...(child ? [encode(pick(kids(bt), target.c))] : [])], owner: "B", coherent: false, tid: null };
    }
    case "AB": {
      const bt = pick(fx.b.filter((x) => kids(x).length), target.t);
      const bc = pick(kids(bt), target.c);
      const segments = target.c % 2 ? [encode(t.id), encode(bc)] : [encode(bt.id), encode(c)];
      return { segments, owner: "B", coherent: false, tid: target.c % 2 ? t.id : null };
    }
    case "bad": {
      const segments = [t.id, ...(child ? [c] : [])];
      const at = target.c % segments.length;
      segments[at] = target.segment!.replaceAll("%ID%", segments[at]);
      // a dot segment would change the path itself
      if (/^(\.|%2e){1,2}$/i.test(segments[at]) || segments[at] === "") segments[at] = `x${segments[at]}`;
      return { segments, owner: "bad", coherent: false, tid: t.id };
    }
  }
  return {
    segments: [encode(t.id), ...(child ? [encode(c)] : [])],
    owner,
    coherent,
    tid: t.id,
    tstate: coherent ? t.state ?? null : null,
    stages: coherent ? t.stages ?? null : null,
  };
}

function mutate(path: string, mutation: string | null): string {
  switch (mutation) {
    case null:
      return PREFIX + path;
    case "trailing-slash":
      return `${PREFIX}${path}/`;
    case "api-prefix":
      return `/api/v1${path}`;
    case "dot-segment":
      return `${PREFIX}/x/..${path}`;
    case "encoded-dot":
      return `${PREFIX}/%2e${path}`;
    case "double-slash":
      return `${PREFIX}/${path}`;
    case "upper-case":
      return PREFIX + path.replace(/^\/[a-z]+/, (first) => first.toUpperCase());
    case "traversal":
      return `${PREFIX}${path}/../../../../../../etc/passwd`;
    case "encoded-traversal":
      return `${PREFIX}${path}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/admin`;
    case "encoded-slash": {
      const at = path.lastIndexOf("/");
      return PREFIX + path.slice(0, at) + "%2F" + path.slice(at + 1);
    }
    case "v2":
      return `/functions/v1/api/v2${path}`;
    case "no-prefix":
      return path;
    case "prefix-junk":
      return `${PREFIX}x${path}`;
    case "suffix":
      return `${PREFIX}${path}/nope`;
    case "semicolon":
      return `${PREFIX}${path};a=b`;
    default:
      throw new Error(`unknown mutation ${mutation}`);
  }
}

/** Fills in ids and a key, and lays the request out as bytes. */
export function materialize(spec: Spec, fx: Fixtures): Wire {
  const target = resolveTarget(spec, fx);
  let i = 0;
  const path = mutate(spec.template.replace(/\{\w+\}/g, () => target.segments[i++]), spec.mutation);
  const headers: Record<string, string | string[]> = {};
  const auth = authHeader(spec, fx);
  // A participant route names nothing in its path: the token's tournament is the one the request is about.
  if (auth.token) target.tid = auth.token.tid;
  if (auth.header !== undefined) headers.authorization = auth.header;
  const type = spec.body?.type !== undefined ? spec.body.type : spec.contentType;
  if (type !== null) headers["content-type"] = type;
  if (spec.idem !== null) headers["idempotency-key"] = spec.idem;
  let body: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  if (spec.body && spec.method !== "HEAD" && spec.method !== "TRACE") {
    let data = spec.body.data;
    if (typeof data === "string" && data.includes(OWN_TEAM)) {
      const deletable = [...fx.own.disposable, ...fx.own.created];
      data = data.replace(new RegExp(`${OWN_TEAM}(\\d+)@@`, "g"), (_, n: string) => pick(deletable, Number(n)));
    }
    if (typeof data === "string" && data.includes(OWN_PLAYER)) {
      const deletable = [...fx.players.disposable, ...fx.players.created];
      data = data.replace(new RegExp(`${OWN_PLAYER}(\\d+)@@`, "g"), (_, n: string) => pick(deletable, Number(n)));
    }
    body = typeof data === "string" ? Buffer.from(data, "utf8") : Buffer.from(data);
    if (spec.body.chunked && ["POST", "PATCH", "PUT", "PROPFIND"].includes(spec.method)) {
      chunks = [];
      for (let at = 0; at < body.length; at += 16_384) chunks.push(body.subarray(at, at + 16_384));
      body = undefined;
    }
  }
  // Node frames a GET or DELETE body only when told its length.
  if (body) headers["content-length"] = String(body.length);
  const size = body?.length ?? chunks?.reduce((n, c) => n + c.length, 0) ?? 0;
  return {
    method: spec.method,
    path: path + (spec.query ? `?${spec.query}` : ""),
    headers,
    body,
    chunks,
    fresh: size > MAX_BODY,
    scopes: auth.scopes,
    keyId: auth.key?.id ?? null,
    owner: target.owner,
    coherent: target.coherent,
    tid: target.tid,
    tstate: target.tstate ?? null,
    team: target.team ?? null,
    teamRole: target.teamRole ?? null,
    hook: target.hook ?? null,
    hookRole: target.hookRole ?? null,
    stage: target.stage ?? null,
    stages: target.stages ?? null,
    player: target.player ?? null,
    playerRole: target.playerRole ?? null,
    token: auth.token ?? null,
  };
}

/** What the body reader must answer for a body route: the error codes, or the parsed value. */
export function bodyVerdict(wire: Wire): { codes: string[] } | { value: unknown } {
  const bytes = wire.body ?? (wire.chunks ? Buffer.concat(wire.chunks) : Buffer.alloc(0));
  if (bytes.length > MAX_BODY) return { codes: ["payload_too_large"] };
  const header = wire.headers["content-type"];
  const type = header === undefined ? null : Array.isArray(header) ? header.join(", ") : header;
  const media = type === null ? null : type.split(";")[0].trim().toLowerCase();
  if (bytes.length === 0) {
    return { codes: media === null || media === "application/json" ? ["invalid_json"] : ["invalid_json", "unsupported_media_type"] };
  }
  if (media !== "application/json") return { codes: ["unsupported_media_type"] };
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return { codes: ["invalid_json"] };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { codes: ["invalid_json"] };
  return { value };
}
