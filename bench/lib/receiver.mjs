// The webhook receiver of `npm run bench -- --webhooks`, run as its own process (node
// bench/lib/receiver.mjs) so that it never shares an event loop with the bench or with what it
// measures. It answers every POST with 200 at once and counts it by path; under /t/ it also
// keeps each request's arrival time (wall clock, ms) and its payload's `timestamp` (the commit).
// Prints {"port": n} once it listens.
//
// Control (GET, from the bench):
//   /_control/reset                          forget everything
//   /_control/wait?prefix=/m/&count=512&timeout_ms=30000
//       answers once `count` requests under `prefix` have arrived (or at the timeout):
//       {count, first_ms, last_ms} (the arrival times of the first and of the count-th)
//   /_control/timed                          [[arrival_ms, payload timestamp ms, type], ...] of /t/
//   /_control/arrivals?prefix=/m/            the arrival times under `prefix`, in order
//   /_control/stats                          {total, by_prefix: {"/w/": n, ...}}
import http from "node:http";

const now = () => performance.timeOrigin + performance.now();
let arrivals = new Map(); // prefix (first path segment, e.g. "/w/") -> arrival times, in order
let timed = [];
let total = 0;
let waiters = [];

const prefixOf = (url) => {
  const i = url.indexOf("/", 1);
  return i < 0 ? url : url.slice(0, i + 1);
};

function checkWaiters() {
  waiters = waiters.filter((w) => {
    const list = arrivals.get(w.prefix) ?? [];
    if (list.length < w.count) return true;
    w.done();
    return false;
  });
}

function control(req, res) {
  const url = new URL(req.url, "http://x");
  const json = (body) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  switch (url.pathname) {
    case "/_control/reset":
      arrivals = new Map();
      timed = [];
      total = 0;
      for (const w of waiters) w.done();
      waiters = [];
      return json({ ok: true });
    case "/_control/stats":
      return json({ total, by_prefix: Object.fromEntries([...arrivals].map(([p, l]) => [p, l.length])) });
    case "/_control/timed":
      return json(timed);
    case "/_control/arrivals":
      return json(arrivals.get(url.searchParams.get("prefix")) ?? []);
    case "/_control/wait": {
      const prefix = url.searchParams.get("prefix");
      const count = Number(url.searchParams.get("count"));
      const answer = () => {
        const list = arrivals.get(prefix) ?? [];
        json({ count: list.length, first_ms: list[0] ?? null, last_ms: list[Math.min(count, list.length) - 1] ?? null });
      };
      const w = {
        prefix,
        count,
        done: () => {
          clearTimeout(w.timer);
          answer();
        },
      };
      w.timer = setTimeout(() => {
        waiters = waiters.filter((x) => x !== w);
        answer();
      }, Number(url.searchParams.get("timeout_ms") ?? 30_000));
      waiters.push(w);
      return checkWaiters();
    }
    default:
      res.writeHead(404);
      return res.end();
  }
}

const server = http.createServer((req, res) => {
  const at = now();
  if (req.url.startsWith("/_control/")) return control(req, res);
  const prefix = prefixOf(req.url);
  if (prefix === "/t/") {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => {
      if (body.length < 512) body += chunk;
    });
    req.on("end", () => {
      res.writeHead(200);
      res.end();
      // The payload starts {"type" : "…", "timestamp" : "…", (json_build_object's text).
      const ts = /"timestamp"\s*:\s*"([^"]+)"/.exec(body)?.[1];
      const type = /"type"\s*:\s*"([^"]+)"/.exec(body)?.[1];
      timed.push([at, ts ? Date.parse(ts) : null, type ?? null]);
    });
  } else {
    req.resume();
    req.on("end", () => {
      res.writeHead(200);
      res.end();
    });
  }
  total++;
  let list = arrivals.get(prefix);
  if (!list) arrivals.set(prefix, list = []);
  list.push(at);
  if (waiters.length) checkWaiters();
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
process.once("SIGTERM", () => process.exit(0));
