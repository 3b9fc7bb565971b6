// The live stream (contract section 14) with real SSE clients: the `eventsource` package (as a
// browser's EventSource behaves: reconnects with Last-Event-ID) and raw fetch for the wire
// format. A second function instance (short keep-alive and life, so a forced reconnect happens
// within the test) shares the database: a change made through one reaches a stream served by
// the other, and no instance's memory is the truth.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EventSource } from "eventsource";
import {
  apiUrl,
  type Call,
  createTeams,
  expectError,
  expectStatus,
  type Match,
  request,
  sql,
  startedTournament,
  tenant,
} from "../support/helpers.ts";
import { freePort, startFunction } from "../../scripts/stack.mjs";

interface Delivered {
  id: number;
  type: string;
  data: { tournament: { version: number }; matches: Match[]; removed_matches?: string[]; standings: unknown[] };
}

let second: Awaited<ReturnType<typeof startFunction>>;
let secondUrl: string;

beforeAll(async () => {
  second = await startFunction({
    port: await freePort(),
    databaseUrl: inject("functionDbUrl"),
    env: { STREAM_MAX_SECONDS: "3", STREAM_KEEPALIVE_SECONDS: "1", STREAM_POLL_MS: "100" },
  });
  secondUrl = `${second.url}/functions/v1/api/v1`;
}, 60_000);

afterAll(async () => {
  await second?.stop();
});

/** An EventSource on a stream with the key, recording every event (results and deleted); `since`: the first request's Last-Event-ID. */
function watch(base: string, path: string, key: string, since?: number) {
  const events: Delivered[] = [];
  let opens = 0;
  const lastIds: (string | null)[] = [];
  const es = new EventSource(`${base}${path}`, {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      if (since !== undefined && !headers.has("last-event-id")) headers.set("last-event-id", String(since));
      lastIds.push(headers.get("last-event-id"));
      headers.set("authorization", `Bearer ${key}`);
      return fetch(input, { ...init, headers });
    },
  });
  es.addEventListener("open", () => opens++);
  for (const type of ["results", "deleted"]) {
    es.addEventListener(type, (e) => events.push({ id: Number(e.lastEventId), type, data: JSON.parse(e.data) }));
  }
  return { es, events, lastIds, opens: () => opens };
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function readyMatch(call: Call, id: string): Promise<Match> {
  const res = await call("GET", `/tournaments/${id}/results`);
  return (res.body.data.matches as Match[]).find((m) => m.status === "ready")!;
}

/** Reports the first ready match of the tournament (team1 wins), `n` times. */
async function report(call: Call, id: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const m = await readyMatch(call, id);
    expectStatus(await call("PATCH", `/tournaments/${id}/matches/${m.id}`, { body: { team1_score: 2, team2_score: 0 } }), 200);
  }
}

describe("the live stream", () => {
  it("sends the whole results first, then one delta per change in version order, each change once", async () => {
    const teams = await createTeams(8, "Live");
    const { t, call, id } = await startedTournament({}, teams);
    const w = watch(apiUrl(), `/tournaments/${id}/stream`, t.key);
    try {
      await until("the first event", () => w.events.length === 1);
      const first = w.events[0];
      const full = (await call("GET", `/tournaments/${id}/results`)).body.data;
      expect(first.type).toBe("results");
      expect(first.id).toBe(full.tournament.version);
      expect(first.data).toEqual(full);

      // Seven results, spaced past the poll: seven events, ids strictly rising, every match
      // that changed delivered with its final state.
      for (let i = 0; i < 7; i++) {
        await report(call, id, 1);
        const v = (await call("GET", `/tournaments/${id}`)).body.data.version;
        await until(`version ${v}`, () => w.events.at(-1)!.id === v);
      }
      const ids = w.events.map((e) => e.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect(w.events).toHaveLength(8);
      const state = new Map(first.data.matches.map((m) => [m.id, m]));
      for (const e of w.events.slice(1)) for (const m of e.data.matches) state.set(m.id, m);
      const final = (await call("GET", `/tournaments/${id}/results`)).body.data;
      expect([...state.values()].sort((a, b) => a.id.localeCompare(b.id)))
        .toEqual([...final.matches].sort((a: Match, b: Match) => a.id.localeCompare(b.id)));
      expect(w.events.at(-1)!.data.standings).toEqual(final.standings);
    } finally {
      w.es.close();
    }
  });

  it("reaches a stream served by one instance with a change made through another", async () => {
    const teams = await createTeams(4, "Across");
    const { t, id } = await startedTournament({}, teams);
    const w = watch(apiUrl(), `/tournaments/${id}/stream`, t.key);
    try {
      await until("the first event", () => w.events.length === 1);
      const m = w.events[0].data.matches.find((x) => x.status === "ready")!;
      const res = await fetch(`${secondUrl}/tournaments/${id}/matches/${m.id}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
        body: JSON.stringify({ team1_score: 3, team2_score: 1 }),
      });
      expect(res.status).toBe(200);
      await until("the change", () => w.events.some((e) => e.data.matches.some((x) => x.id === m.id && x.status === "completed")), 2000);
    } finally {
      w.es.close();
    }
  });

  it("never answers whole results older than the tournament, whichever instance made the change (each instance keeps the last results it read)", async () => {
    const teams = await createTeams(8, "Kept");
    const { t, call, id } = await startedTournament({ format: "double_elimination" }, teams);
    const other = await tenant();
    const read = async (base: string, path = `/tournaments/${id}/results`, headers: Record<string, string> = {}) => {
      const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${t.key}`, ...headers } });
      return { status: res.status, etag: res.headers.get("etag"), body: res.status === 200 ? await res.json() : null };
    };
    const score = (r: { body: { data: { matches: Match[] } } | null }, matchId: string) =>
      r.body!.data.matches.find((m) => m.id === matchId)!.team1_score;
    const first = await read(apiUrl());
    expect(first.status).toBe(200);
    // Read again: the same document and ETag (now from what the instance kept).
    const again = await read(apiUrl());
    expect([again.status, again.etag]).toEqual([200, first.etag]);
    expect(again.body.data).toEqual(first.body.data);
    const ready = (first.body.data.matches as Match[]).filter((m) => m.status === "ready");
    // A change through the other instance, then one in SQL (as another writer would): each is seen.
    for (
      const [i, change] of [
        async (m: Match) =>
          expect(
            (await fetch(`${secondUrl}/tournaments/${id}/matches/${m.id}`, {
              method: "PATCH",
              headers: { authorization: `Bearer ${t.key}`, "content-type": "application/json" },
              body: JSON.stringify({ team1_score: 5, team2_score: 1 }),
            })).status,
          ).toBe(200),
        async (m: Match) =>
          sql(
            `with bound as (select set_config('app.account_id', $1, true))
                               select app.report_match(jsonb_build_object('tournament_id', $2::uuid, 'match_id', $3::uuid,
                                        'body', jsonb_build_object('team1_score', 6, 'team2_score', 1))) from bound`,
            [t.accountId, id, m.id],
          ),
      ].entries()
    ) {
      const before = await read(apiUrl());
      await change(ready[i]);
      const after = await read(apiUrl());
      expect(Number(JSON.parse(after.etag!))).toBeGreaterThan(Number(JSON.parse(before.etag!)));
      expect(score(after, ready[i].id)).toBe(5 + i);
      expect(after.body.data.tournament.version).toBe(Number(JSON.parse(after.etag!)));
      // The delta since the version before is not the whole results kept.
      const delta = await read(apiUrl(), `/tournaments/${id}/results?since=${JSON.parse(before.etag!)}`);
      expect(delta.body.data.matches.map((m: Match) => m.id)).toContain(ready[i].id);
      expect(delta.body.data.matches.length).toBeLessThan(after.body.data.matches.length);
    }
    // An operator renames a registered team in SQL: a started tournament keeps the name it
    // started with (contract section 16), so its version and results stay as they were; a new
    // logo is shown by every tournament: the version goes up, so no instance keeps what it read
    // under the old version.
    const before = await read(apiUrl());
    await sql("update app.teams set name = $2 where id = $1", [teams[0], `Renamed ${teams[0].slice(0, 8)}`]);
    const kept = await read(apiUrl());
    expect(kept.etag).toBe(before.etag);
    expect(kept.body.data).toEqual(before.body.data);
    await sql("update app.teams set logo_url = $2 where id = $1", [teams[0], `https://example.com/${teams[0]}.png`]);
    const renamed = await read(apiUrl());
    expect(Number(JSON.parse(renamed.etag!))).toBeGreaterThan(Number(JSON.parse(before.etag!)));
    expect(renamed.body.data.tournament.version).toBe(Number(JSON.parse(renamed.etag!)));
    expect((await read(secondUrl)).body.data).toEqual(renamed.body.data);
    // Each stage's results are kept apart; a stage that does not exist is still a 400.
    expect((await read(apiUrl(), `/tournaments/${id}/results?stage=1`)).body.data.matches.length)
      .toBe((await read(apiUrl())).body.data.matches.length);
    expectError(await call("GET", `/tournaments/${id}/results?stage=2`), 400, "validation_error", ["stage"]);
    // Conditional reads still answer from the version: 304 for the current one, the body for an old one.
    const now = await read(apiUrl());
    expect((await read(apiUrl(), `/tournaments/${id}/results`, { "if-none-match": now.etag! })).status).toBe(304);
    expect((await read(apiUrl(), `/tournaments/${id}/results`, { "if-none-match": first.etag! })).body.data)
      .toEqual(now.body.data);
    // Another account's key never gets what an instance kept: 404.
    expectError(await other.request("GET", `/tournaments/${id}/results`), 404, "not_found");
  });

  it("answers results whose ETag is the version of their body while writes commit, on both instances, never going back", async () => {
    const teams = await createTeams(16, "Racing");
    const { t, id } = await startedTournament({ format: "double_elimination" }, teams);
    const reporter = await t.newKey();
    let writing = true;
    // Writes: every ready match reported, pass after pass, through both instances.
    const writer = (async () => {
      for (let pass = 0; pass < 4 && writing; pass++) {
        const ready = ((await (await fetch(`${apiUrl()}/tournaments/${id}/results`, { headers: { authorization: `Bearer ${t.key}` } }))
          .json()).data.matches as Match[]).filter((m) => m.status === "ready");
        for (const [i, m] of ready.entries()) {
          const base = i % 2 ? secondUrl : apiUrl();
          const res = await fetch(`${base}/tournaments/${id}/matches/${m.id}`, {
            method: "PATCH",
            headers: { authorization: `Bearer ${reporter.key}`, "content-type": "application/json" },
            body: JSON.stringify({ team1_score: 2, team2_score: 1 }),
          });
          expect(res.status).toBe(200);
        }
      }
      writing = false;
    })();
    // Readers, each on its own key, alternating the instances, whole results and one stage's.
    const readers = await Promise.all([0, 1, 2].map(async (r) => {
      const { key } = await t.newKey();
      const seen: number[] = [];
      while (writing || seen.length < 5) {
        const base = (seen.length + r) % 2 ? secondUrl : apiUrl();
        const path = r === 2 ? `/tournaments/${id}/results?stage=1` : `/tournaments/${id}/results`;
        const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        const body = await res.json();
        const etag = Number(JSON.parse(res.headers.get("etag")!));
        expect(body.data.tournament.version, `reader ${r}: the ETag is the body's version`).toBe(etag);
        if (seen.length) expect(etag, `reader ${r}: a later read is not older`).toBeGreaterThanOrEqual(seen.at(-1)!);
        seen.push(etag);
        if (seen.length > 80) break; // the key's budget (100 a minute)
      }
      return seen;
    }));
    await writer;
    // The writes moved the version while the readers read, and every reader saw it move.
    for (const seen of readers) expect(seen.at(-1)!, JSON.stringify(seen)).toBeGreaterThan(seen[0]);
  });

  it("misses nothing across the server's end of the stream: EventSource reconnects with Last-Event-ID", async () => {
    const teams = await createTeams(64, "Reconnect");
    const { t, call, id } = await startedTournament({}, teams);
    const w = watch(secondUrl, `/tournaments/${id}/stream`, t.key); // this instance ends streams after 3 s
    try {
      await until("the first event", () => w.events.length === 1);
      // Changes every ~200 ms for 8 s: at least two reconnects fall among them.
      const deadline = Date.now() + 8000;
      let changes = 0;
      while (Date.now() < deadline && (await readyMatch(call, id))) {
        await report(call, id, 1);
        changes++;
        await new Promise((r) => setTimeout(r, 200));
      }
      const final = (await call("GET", `/tournaments/${id}/results`)).body.data;
      await until("the last version", () => w.events.at(-1)!.id === final.tournament.version, 3000);
      expect(w.opens()).toBeGreaterThanOrEqual(3);
      // Every reconnect sent the id of the last event received.
      expect(w.lastIds.slice(1).every((v) => v !== null)).toBe(true);
      const ids = w.events.map((e) => e.id);
      expect(new Set(ids).size, "no version twice").toBe(ids.length);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const state = new Map(w.events[0].data.matches.map((m) => [m.id, m]));
      for (const e of w.events.slice(1)) for (const m of e.data.matches) state.set(m.id, m);
      expect([...state.values()].sort((a, b) => a.id.localeCompare(b.id)))
        .toEqual([...final.matches].sort((a: Match, b: Match) => a.id.localeCompare(b.id)));
      expect(changes).toBeGreaterThan(10);
    } finally {
      w.es.close();
    }
  });

  it("serves streams of several tournaments from one instance, each its own changes, viewers at different versions included", async () => {
    const a = await startedTournament({}, await createTeams(4, "ManyA"));
    const b = await startedTournament({}, await createTeams(4, "ManyB"));
    const aBefore = (await a.call("GET", `/tournaments/${a.id}`)).body.data.version;
    await report(a.call, a.id, 1);
    const wa = watch(apiUrl(), `/tournaments/${a.id}/stream`, a.t.key);
    // A second viewer of A that last saw an earlier version: it starts with the delta since then.
    const wa2 = watch(apiUrl(), `/tournaments/${a.id}/stream`, (await a.t.newKey()).key, aBefore);
    const wb = watch(apiUrl(), `/tournaments/${b.id}/stream`, b.t.key);
    try {
      await until("the first events", () => wa.events.length === 1 && wa2.events.length === 1 && wb.events.length === 1);
      expect(wa.events[0].data.matches).toHaveLength(3); // the whole bracket
      expect(wa2.events[0].data.matches).toHaveLength(2); // since aBefore: the semi-final reported and the final it fed
      expect(wa2.events[0].id).toBe(wa.events[0].id);
      await report(a.call, a.id, 1);
      await report(b.call, b.id, 1);
      const va = (await a.call("GET", `/tournaments/${a.id}`)).body.data.version;
      const vb = (await b.call("GET", `/tournaments/${b.id}`)).body.data.version;
      await until("both changes", () => wa.events.at(-1)!.id === va && wa2.events.at(-1)!.id === va && wb.events.at(-1)!.id === vb);
      const idsOf = (w: typeof wa) => new Set(w.events.flatMap((e) => e.data.matches.map((m) => m.id)));
      const aMatches = new Set((await a.call("GET", `/tournaments/${a.id}/results`)).body.data.matches.map((m: Match) => m.id));
      for (const id of idsOf(wa)) expect(aMatches.has(id)).toBe(true);
      for (const id of idsOf(wb)) expect(aMatches.has(id)).toBe(false);
      expect(wa2.events.map((e) => e.id)).toEqual(wa.events.map((e) => e.id));
      expect(aBefore).toBeLessThan(va);
    } finally {
      for (const w of [wa, wa2, wb]) w.es.close();
    }
  });

  it("writes keep-alive comments and ends with retry: 1000 (raw wire format)", async () => {
    const teams = await createTeams(2, "Wire");
    const { t, id } = await startedTournament({}, teams);
    const started = Date.now();
    const res = await fetch(`${secondUrl}/tournaments/${id}/stream`, { headers: { authorization: `Bearer ${t.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("ratelimit-remaining")).not.toBeNull();
    const text = await res.text(); // the server ends it after 3 s
    const took = Date.now() - started;
    expect(took).toBeGreaterThan(2500);
    expect(took).toBeLessThan(6000);
    expect(text).toMatch(/^id: \d+\nevent: results\ndata: \{/);
    expect(text.match(/^: keep-alive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(text.endsWith("retry: 1000\n\n")).toBe(true);
  });

  it("sends event: deleted with the id, then ends, when the tournament is deleted", async () => {
    const t = await tenant();
    const created = await t.request("POST", "/tournaments", {
      body: {
        name: "Doomed",
        game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
        team_size: 5,
        max_teams: 8,
        starts_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    const id = created.body.data.id;
    const res = await fetch(`${apiUrl()}/tournaments/${id}/stream`, { headers: { authorization: `Bearer ${t.key}` } });
    const body = res.text();
    await new Promise((r) => setTimeout(r, 300));
    expectStatus(await t.request("DELETE", `/tournaments/${id}`), 200);
    const text = await body;
    expect(text).toContain(`event: deleted\ndata: {"id":"${id}"}\n\n`);
    expect(text.trimEnd().endsWith(`data: {"id":"${id}"}`)).toBe(true);
  });

  it("allows 10 open streams per key: the 11th is 429 (not counted), a closed one frees its slot", async () => {
    const teams = await createTeams(2, "Ten");
    const { t, id } = await startedTournament({}, teams);
    const { key } = await t.newKey();
    const open = () => {
      const ctl = new AbortController();
      return fetch(`${apiUrl()}/tournaments/${id}/stream`, { headers: { authorization: `Bearer ${key}` }, signal: ctl.signal })
        .then((res) => ({ res, ctl }));
    };
    const streams = await Promise.all(Array.from({ length: 12 }, open));
    const statuses = streams.map((s) => s.res.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const refused = streams.find((s) => s.res.status === 429)!;
    const body = await refused.res.json();
    expect(body.error.code).toBe("rate_limited");
    expect(body.error.message).toMatch(/10/);
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    // 429s do not count: 10 streams opened, 90 left.
    const me = await request("GET", "/me", { key });
    expect(me.headers.get("ratelimit-remaining")).toBe("89");
    // Close one: its lease ends, and a new stream opens.
    const ok = streams.filter((s) => s.res.status === 200);
    ok[0].ctl.abort();
    let reopened = 0;
    for (let i = 0; i < 40 && reopened !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const again = await open();
      reopened = again.res.status;
      if (reopened === 200) again.ctl.abort();
      else await again.res.body?.cancel();
    }
    expect(reopened).toBe(200);
    for (const s of ok) s.ctl.abort();
    for (const s of streams.filter((x) => x.res.status === 429)) await s.res.body?.cancel().catch(() => {});
  });

  it("needs read:results and a tournament of the key's account", async () => {
    const teams = await createTeams(2, "Scope");
    const { t, id } = await startedTournament({}, teams);
    const { key: weak } = await t.newKey(["read:tournaments"]);
    expectError(await request("GET", `/tournaments/${id}/stream`, { key: weak }), 403, "insufficient_scope");
    const other = await tenant();
    expectError(await other.request("GET", `/tournaments/${id}/stream`), 404, "not_found");
    expectError(await request("GET", `/tournaments/${id}/stream`), 401, "unauthorized");
    expectError(await t.request("GET", `/tournaments/00000000-0000-4000-8000-000000000000/stream`), 404, "not_found");
    expect((await sql("select count(*)::int as n from app.streams where tournament_id = $1", [id]))[0].n).toBe(0);
  });

  it("with Last-Event-ID starts with the delta since that version", async () => {
    const teams = await createTeams(4, "Since");
    const { t, call, id } = await startedTournament({}, teams);
    const before = (await call("GET", `/tournaments/${id}/results`)).body.data;
    await report(call, id, 1);
    const delta = (await call("GET", `/tournaments/${id}/results?since=${before.tournament.version}`)).body.data;
    const res = await fetch(`${apiUrl()}/tournaments/${id}/stream`, {
      headers: { authorization: `Bearer ${t.key}`, "last-event-id": String(before.tournament.version) },
    });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("\n\n")) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const [, idLine, data] = /^(id: \d+)\nevent: results\ndata: (.*)\n\n/.exec(text)!;
    expect(idLine).toBe(`id: ${delta.tournament.version}`);
    expect(JSON.parse(data)).toEqual(delta);
    expect(delta.matches.length).toBeGreaterThan(0);
    expect(delta.matches.length).toBeLessThan(before.matches.length + 1);
  });
});

describe("conditions meet existence first (found in review)", () => {
  it("answers 404, not 412, for a registration, match, game or stage that does not exist, whatever If-Match says", async () => {
    const teams = await createTeams(4, "Exists");
    const { call, id } = await startedTournament({ format_options: { best_of: 3 } }, teams);
    const version = (await call("GET", `/tournaments/${id}`)).body.data.version;
    const stale = { "if-match": `"${version - 1}"` };
    const nowhere = "00000000-0000-4000-8000-000000000000";
    const m = (await call("GET", `/tournaments/${id}/results`)).body.data.matches.find((x: Match) => x.status === "ready");
    expectError(
      await call("PATCH", `/tournaments/${id}/registrations/${nowhere}`, { headers: stale, body: { seed: 1 } }),
      404,
      "not_found",
    );
    expectError(
      await call("PATCH", `/tournaments/${id}/matches/${nowhere}`, { headers: stale, body: { team1_score: 2, team2_score: 0 } }),
      404,
      "not_found",
    );
    expectError(
      await call("PUT", `/tournaments/${id}/matches/${nowhere}/games/1`, { headers: stale, body: { team1_score: 2, team2_score: 0 } }),
      404,
      "not_found",
    );
    expectError(await call("DELETE", `/tournaments/${id}/matches/${m.id}/games/1`, { headers: stale }), 404, "not_found");
    expectError(await call("PATCH", `/tournaments/${id}/stages/3`, { headers: stale, body: { status: "ongoing" } }), 404, "not_found");
    expectError(await call("PATCH", `/tournaments/${nowhere}`, { headers: stale, body: { name: "x" } }), 404, "not_found");
    // The same requests on what exists: 412, nothing changed.
    expectError(
      await call("PUT", `/tournaments/${id}/matches/${m.id}/games/1`, { headers: stale, body: { team1_score: 2, team2_score: 0 } }),
      412,
      "precondition_failed",
    );
    expect((await call("GET", `/tournaments/${id}`)).body.data.version).toBe(version);
  });

  it("answers 400 for a ?stage= the tournament does not have, not 304; and the stream takes no condition", async () => {
    const teams = await createTeams(2, "Cond");
    const { t, call, id } = await startedTournament({}, teams);
    const etag = (await call("GET", `/tournaments/${id}/results`)).headers.get("etag")!;
    expectError(await call("GET", `/tournaments/${id}/results?stage=3`, { headers: { "if-none-match": etag } }), 400, "validation_error", [
      "stage",
    ]);
    expect((await call("GET", `/tournaments/${id}/results?stage=1`, { headers: { "if-none-match": etag } })).status).toBe(304);
    const ctl = new AbortController();
    const res = await fetch(`${apiUrl()}/tournaments/${id}/stream`, {
      signal: ctl.signal,
      headers: { authorization: `Bearer ${(await t.newKey()).key}`, "if-none-match": etag },
    });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    ctl.abort();
  });

  it("raises the version of every tournament a team is registered in when the team's name changes (any account's)", async () => {
    const owner = await tenant();
    const team = await owner.request("POST", "/teams", { body: { name: "Renamers", tag: "REN" } });
    expectStatus(team, 201);
    const organiser = await tenant();
    const created = await organiser.request("POST", "/tournaments", {
      body: {
        name: "Other's cup",
        game_id: "6f1c2b1a-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
        team_size: 5,
        max_teams: 8,
        starts_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    const tid = created.body.data.id;
    expectStatus(await organiser.request("POST", `/tournaments/${tid}/registrations`, { body: { team_id: team.body.data.id } }), 201);
    const before = await organiser.request("GET", `/tournaments/${tid}/registrations`);
    const etag = before.headers.get("etag")!;
    expectStatus(await owner.request("PATCH", `/teams/${team.body.data.id}`, { body: { name: "Renamed" } }), 200);
    const after = await organiser.request("GET", `/tournaments/${tid}/registrations`, { headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.body.data[0].teams.name).toBe("Renamed");
    expect(Number(JSON.parse(after.headers.get("etag")!))).toBe(Number(JSON.parse(etag)) + 1);
    // The same name again changes nothing.
    expectStatus(await owner.request("PATCH", `/teams/${team.body.data.id}`, { body: { name: "Renamed" } }), 200);
    expect((await organiser.request("GET", `/tournaments/${tid}/registrations`)).headers.get("etag")).toBe(after.headers.get("etag"));
  });
});
