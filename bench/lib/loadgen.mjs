// The load generator of `npm run bench`, run as its own process (node bench/lib/loadgen.mjs
// <plan.json>) so that it never shares an event loop with what it measures. It drives one
// workload with autocannon and prints one JSON line with the figures.
//
// Keys rotate per request (request n uses key n mod K), so each of K keys takes about N/K of
// the N requests and the rate limit (100 per key per 60 s) is not what gets measured; the
// `hammer` workload sends everything with one key on purpose. Participant tokens (`tpt_`, issue
// 35: each has the same limit of its own) are keys here and rotate the same way, but for the
// sign-ups: a sign-up token belongs to one tournament, so they fill their tournaments one at a
// time as `register` fills its targets (1,024 each), rotating over that tournament's tokens.
// Reported results (issue 36): every request takes a fresh match of `plan.matches`, in their
// order; a report or confirmation uses the token of that match's side (the keys are one per
// match, in the same order), the organiser's PATCH rotates API keys. `plan.maxRequests` stops
// the run (early) once every match is taken.
import fs from "node:fs";
import autocannon from "autocannon";

const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const { keys, tournaments, targets, teams } = plan;
const kind = plan.kind ?? plan.workload; // the list variants (page 500, the cursor's page) are "list" with a query
const keyUses = new Uint32Array(keys?.length ?? 0);
const unexpected = []; // a few bodies of unexpected answers, to say what went wrong
let latencies = new Float64Array(1 << 16); // every response time, in ms (autocannon's are whole ms)
let responses = 0;
let n = 0;

const JSON_HEADERS = { "content-type": "application/json" };
const pick = (list) => list[Math.floor(Math.random() * list.length)];

/** The next key, in rotation: {key, account}. */
function nextKey() {
  const i = n++ % keys.length;
  keyUses[i]++;
  return keys[i];
}

// Sign-up tokens: their indexes by tournament, in the order of the keys.
const byTournament = new Map();
if (kind === "signup") keys.forEach((k, i) => byTournament.set(k.tournament, [...(byTournament.get(k.tournament) ?? []), i]));
const signupGroups = [...byTournament.values()];

/** The next sign-up token: the c-th sign-up goes to tournament ⌊c / 1024⌋, with its tokens in rotation. */
function nextSignupKey() {
  const c = n++;
  const group = signupGroups[Math.floor(c / 1024) % signupGroups.length];
  const i = group[c % group.length];
  keyUses[i]++;
  return keys[i];
}

const fillCounters = new Map(); // per target list: how many registrations it was sent

// One request of each kind for the account of `k`: [method, path, body?].
const kinds = {
  get: (k) => ["GET", `/tournaments/${pick(tournaments[k.account])}`],
  list: () => ["GET", `/tournaments${plan.query ?? "?page=1&limit=20&status=registration"}`],
  create: () => ["POST", "/tournaments", {
    name: "Bench Open",
    game_id: plan.gameId,
    team_size: 5,
    max_teams: 16,
    entry_fee: 10,
    prize_pool: 2500,
    starts_at: "2031-06-01T18:00:00+02:00",
    registration_closes: "2031-05-30T18:00:00+02:00",
  }],
  // A fresh (tournament, team) pair each time: the account's targets, filled team by team.
  register: (k, role = "register", teamList = teams) => {
    const list = targets[role][k.account];
    const c = fillCounters.get(list) ?? 0;
    fillCounters.set(list, c + 1);
    const tournament = list[Math.floor(c / teamList.length) % list.length];
    return ["POST", `/tournaments/${tournament}/registrations`, { team_id: teamList[c % teamList.length] }];
  },
  // The same with the account's own teams, each with a roster that the registration copies into
  // its lineup (issue 34).
  register_lineup: (k) => kinds.register(k, "register_lineup", plan.rosterTeams),
  results: () => ["GET", `/tournaments/${plan.resultsId}/results`],
  // A tournament's registrations (issue 34: 256 teams, with lineups or without).
  registrations: () => ["GET", `/tournaments/${plan.tournament}/registrations`],
  // Issue 35: one registration as the organiser reads it (an API key), and as its participant
  // token's holder does (the key is a registration token of one of the same registrations).
  registration: () => {
    const r = pick(plan.registrations);
    return ["GET", `/tournaments/${r.tournament}/registrations/${r.registration}`];
  },
  participant_get: () => ["GET", "/participant"],
  // Issue 36: the organiser's result of a fresh ready match (an API key), team1's report of one
  // (its registration token: the key of that match), team2's confirmation of team1's report.
  patch: () => {
    const m = plan.matches[(n - 1) % plan.matches.length]; // n already counts this request
    return ["PATCH", `/tournaments/${m.tournament}/matches/${m.match}`, { team1_score: 2, team2_score: 0 }];
  },
  report: (k) => ["POST", `/participant/matches/${k.match}/report`, { team1_score: 2, team2_score: 0 }],
  confirm: (k) => ["POST", `/participant/matches/${k.match}/report/confirm`],
  // A sign-up with a sign-up token (of the tournament it signs up for): a new team, five new
  // players (the first captain), its registration and a registration token.
  signup: () => ["POST", "/participant/registrations", {
    team: { name: `Bench sign-up ${plan.tag} ${n}`, tag: `S${n % 100000}` },
    lineup: Array.from(
      { length: 5 },
      (_, j) => ({ handle: `s${plan.tag}_${n}_${j + 1}`, role: "player", ...(j === 0 ? { captain: true } : {}) }),
    ),
  }],
  // 90% reads, 10% writes: of every 20 requests, 10 GET by id, 8 list, 1 create, 1 registration.
  mix: (k) => {
    const slot = n % 20; // n already counts this request
    if (slot === 0) return kinds.create(k);
    if (slot === 1) return kinds.register(k, "mix");
    return slot <= 11 ? kinds.get(k) : ["GET", "/tournaments?page=1&limit=20&status=registration"];
  },
  hammer: (k) => kinds.get(k),
};

function setupRequest(req) {
  if (kind === "floor") return { ...req, method: "GET", path: "/" };
  const k = kind === "signup" ? nextSignupKey() : nextKey();
  const [method, path, body] = kinds[kind](k);
  return {
    ...req,
    method,
    path: plan.basePath + path,
    headers: { authorization: `Bearer ${k.key}`, ...(body ? JSON_HEADERS : {}) },
    body: body ? JSON.stringify(body) : undefined,
  };
}

function onResponse(status, body) {
  const expected = status < 300 || (status === 429 && plan.workload === "hammer");
  if (!expected && unexpected.length < 5) unexpected.push(`${status} ${String(body).slice(0, 300)}`);
}

const instance = autocannon({
  url: plan.origin,
  connections: plan.connections,
  duration: plan.duration,
  timeout: 10,
  ...(plan.maxRequests ? { maxOverallRequests: plan.maxRequests } : {}),
  requests: [{ setupRequest, onResponse }],
}, (err, result) => {
  if (err) {
    console.error(err);
    process.exit(1);
  }
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([c, s]) => [c, s.count]));
  const ok = Object.entries(codes).filter(([c]) => c < 300).reduce((sum, [, v]) => sum + v, 0);
  const limited = plan.workload === "hammer" ? (codes[429] ?? 0) : 0;
  const cpu = process.resourceUsage();
  const sorted = latencies.subarray(0, responses).sort();
  const at = (q) => Math.round(sorted[Math.min(responses - 1, Math.floor(q * responses))] * 100) / 100;
  console.log(JSON.stringify({
    workload: plan.workload,
    duration_s: result.duration,
    connections: plan.connections,
    sent: result.requests.sent,
    completed: result.requests.total,
    rps: result.requests.total / result.duration,
    latency_ms: {
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: at(1),
      mean: Math.round((sorted.reduce((a, b) => a + b, 0) / responses) * 100) / 100,
    },
    status_codes: codes,
    ok,
    rate_limited: limited,
    socket_errors: result.errors,
    timeouts: result.timeouts,
    errors: result.requests.total - ok - limited + result.errors,
    keys: keys?.length ?? 0,
    max_requests_per_key: keys ? Math.max(...keyUses) : 0,
    unexpected,
    load_cpu_s: (cpu.userCPUTime + cpu.systemCPUTime) / 1e6,
  }));
});
instance.on("response", (_client, _status, _bytes, ms) => {
  if (responses === latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[responses++] = ms;
});
process.once("SIGTERM", () => instance.stop());
