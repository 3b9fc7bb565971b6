// The floor of the dispatcher's throughput (`npm run bench -- --webhooks`), run as its own
// process (node bench/lib/webhook-floor.mjs <plan.json>, or under Deno: deno run … the same): a
// plain POST loop (plan.client: "fetch", or "http" for node:http with keep-alive) that POSTs the
// same payloads as the dispatcher, signed the same way (Standard Webhooks: `v1,` + base64
// HMAC-SHA256 of `<id>.<timestamp>.<body>`, at send time), with the same headers, to the same
// receiver paths. Like the dispatcher, each endpoint's requests go one after another, in order,
// and `concurrency` endpoints are served side by side. No database, no claim, no settle: what a
// dispatcher could reach if its bookkeeping cost nothing. Prints one JSON line.
//
// plan: { origin, concurrency, client, endpoints: [{ path, secret: "whsec_…", items: [{ id, payload }] }] }
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";

const plan = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const queue = plan.endpoints.map((e) => ({ ...e, key: Buffer.from(e.secret.replace(/^whsec_/, ""), "base64") }));
let sent = 0;
let ok = 0;
const errors = [];

const agent = new http.Agent({ keepAlive: true, maxSockets: plan.concurrency });

/** One POST with node:http (keep-alive): { status } or throws. */
function httpPost(url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: "POST",
      agent,
      headers: { ...headers, "content-length": Buffer.byteLength(body) },
      timeout: 10_000,
    }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(body);
  });
}

async function post(endpoint, item) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = "v1," + crypto.createHmac("sha256", endpoint.key)
    .update(`${item.id}.${timestamp}.${item.payload}`).digest("base64");
  sent++;
  if (plan.client === "http") {
    try {
      const res = await httpPost(plan.origin + endpoint.path, {
        "content-type": "application/json",
        "user-agent": "TournamentAPI-Webhooks/1.0",
        "webhook-id": item.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
      }, item.payload);
      if (res.status >= 200 && res.status < 300) ok++;
      else if (errors.length < 5) errors.push(`status ${res.status}`);
    } catch (err) {
      if (errors.length < 5) errors.push(String(err?.code ?? err?.message ?? err));
    }
    return;
  }
  try {
    const res = await fetch(plan.origin + endpoint.path, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(10_000),
      headers: {
        "content-type": "application/json",
        "user-agent": "TournamentAPI-Webhooks/1.0",
        "webhook-id": item.id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": signature,
      },
      body: item.payload,
    });
    await res.body?.cancel().catch(() => {});
    if (res.status >= 200 && res.status < 300) ok++;
    else if (errors.length < 5) errors.push(`status ${res.status}`);
  } catch (err) {
    if (errors.length < 5) errors.push(String(err?.cause?.code ?? err?.message ?? err));
  }
}

const t0 = performance.now();
await Promise.all(Array.from({ length: plan.concurrency }, async () => {
  for (let endpoint = queue.shift(); endpoint; endpoint = queue.shift()) {
    for (const item of endpoint.items) await post(endpoint, item);
  }
}));
const seconds = (performance.now() - t0) / 1000;
const cpu = process.resourceUsage();
console.log(JSON.stringify({ sent, ok, seconds, rps: ok / seconds, errors, cpu_s: (cpu.userCPUTime + cpu.systemCPUTime) / 1e6 }));
